/**
 * Proof of work for tests that act as an outside miner: scan nonces with the crypto service's
 * DeSoHashV1 until a header meets its target.
 */
import { HEADER_OFFSETS } from '../../server/chain/block/header.js';
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
