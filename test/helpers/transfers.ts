/**
 * Keys and signed native transfers for unit tests that drive a Chain directly (no HTTP): a
 * transfer is built as construct.ts builds it, for the chain's next block (its tip and its
 * params), at 1,000 nanos/KB, and signed by the sender.
 */
import { randomBytes } from 'node:crypto';
import type { Chain } from '../../server/chain/chain.js';
import { constructTxn } from '../../server/chain/construct.js';
import type { CryptoService } from '../../server/crypto/service.js';
import { signTransaction } from '../../server/identity/signTxn.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

export interface TestKey {
  secret: Uint8Array;
  /** 33-byte compressed public key. */
  pk: Uint8Array;
}

export function newKey(): TestKey {
  const secret = new Uint8Array(randomBytes(32));
  return { secret, pk: getPublicKey(secret, true) };
}

export async function signedTransfer(chain: Chain, crypto: CryptoService, from: TestKey, to: Uint8Array, amountNanos: bigint): Promise<Uint8Array> {
  const c = constructTxn({
    publicKey: from.pk,
    metadata: { type: 'BASIC_TRANSFER' },
    outputs: [{ publicKey: to, amountNanos }],
    minFeeRateNanosPerKB: 1000n,
    networkMinFeeRateNanosPerKB: chain.params.minNetworkFeeNanosPerKB,
    tipHeight: (await chain.tip()).height,
    maxNonceExpirationBlockHeightOffset: chain.params.maxNonceExpirationBlockHeightOffset,
  });
  return signTransaction(crypto, c.bytes, from.secret, { derived: false });
}
