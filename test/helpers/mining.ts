/**
 * Proof of work for tests that act as an outside miner: scan nonces with the crypto service's
 * DeSoHashV1 until a header meets its target.
 */
import { decodeHeader, encodeHeader, HEADER_OFFSETS } from '../../server/chain/block/header.js';
import { merkleRoot } from '../../server/chain/block/merkle.js';
import { blockRewardNanos } from '../../server/chain/block/reward.js';
import type { Chain } from '../../server/chain/chain.js';
import { decodeTxn, encodeTxn, txnHash } from '../../server/chain/txn/envelope.js';
import { encodeMetadata, TxnType } from '../../server/chain/txn/metadata.js';
import type { CryptoService } from '../../server/crypto/service.js';

const SLICE = 100_000;

/** A copy of `header` with a nonce whose hash is <= `target`. */
export async function solveHeader(crypto: CryptoService, header: Uint8Array, target: Uint8Array): Promise<Uint8Array> {
  for (let start = 0n; ; start += BigInt(SLICE)) {
    const r = await crypto.mine({ header, startNonce: start, count: SLICE, target });
    if (r.found) {
      const solved = header.slice();
      new DataView(solved.buffer).setBigUint64(HEADER_OFFSETS.nonce, r.nonce);
      return solved;
    }
  }
}

/** The first header of a get-block-template answer (or miner-feed template), solved, as base64. */
export async function solveTemplate(crypto: CryptoService, t: Record<string, unknown>): Promise<string> {
  const header = new Uint8Array(Buffer.from((t['Headers'] as string[])[0]!, 'base64'));
  const target = new Uint8Array(Buffer.from(t['DifficultyTargetHex'] as string, 'hex'));
  return Buffer.from(await solveHeader(crypto, header, target)).toString('base64');
}

/**
 * A solved block on `chain`'s tip (its template's time and target) paying `rewardPk`, holding
 * `txns` after a reward whose extra data is `extraNonce`: the same bytes whichever chain then
 * processes it, so tests can connect one block on two chains, or by two processes.
 * `tstampSecs` replaces the template's timestamp (to test the timestamp rules).
 */
export async function solvedBlock(chain: Chain, crypto: CryptoService, rewardPk: Uint8Array, txns: readonly Uint8Array[], extraNonce = 1, tstampSecs?: bigint): Promise<{ header: Uint8Array; txns: Uint8Array[] }> {
  const template = await chain.blockTemplate(rewardPk, 1);
  const fees = txns.reduce((a, t) => a + (decodeTxn(t).v1?.feeNanos ?? 0n), 0n);
  const reward = encodeTxn({
    inputs: [],
    outputs: [{ publicKey: rewardPk, amountNanos: blockRewardNanos(template.height, chain.params) + fees }],
    txnType: TxnType.BLOCK_REWARD,
    metadata: encodeMetadata({ type: 'BLOCK_REWARD', extraData: new Uint8Array([extraNonce]) }),
    publicKey: new Uint8Array(0),
    extraData: [],
    signature: new Uint8Array(0),
    v1: null,
  });
  const all = [reward, ...txns];
  const templateHeader = decodeHeader(template.headers[0]!);
  const unsolved = encodeHeader({ ...templateHeader, tstampSecs: tstampSecs ?? templateHeader.tstampSecs, transactionMerkleRoot: merkleRoot(all.map((b) => txnHash(b))) });
  return { header: await solveHeader(crypto, unsolved, template.target), txns: all };
}
