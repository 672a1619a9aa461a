/**
 * The transaction Merkle root of a block (reference node-api.md §5.5): leaves are the txn hashes
 * (sha256d of each full txn, block reward first), a parent is sha256d(left ‖ right), an odd
 * node count duplicates the last node, and a single txn still gets one level
 * (root = sha256d(h ‖ h)).
 *
 * Checked against core (deso-protocol/core lib/blockchain.go `ComputeMerkleRoot`, which builds
 * go-merkle-tree `NewTreeFromHashes(Sha256DoubleHash, hashes)`): that tree has
 * ceil(log2(n + n mod 2)) + 1 rows, which is one hashing level for n = 1 and the usual
 * ceil(log2 n) levels otherwise (n odd > 1 is never a power of two), pairing the last node
 * with itself when a row is odd; an empty block is an error there too.
 * @module
 */
import { sha256dInto } from '../../../wasm/hash.js';
import { txnHash } from '../txn/envelope.js';
import { BlockError } from './errors.js';
import { HASH_BYTES } from '../txn/sizes.js';


/** The Merkle root of the txn hashes (each 32 bytes, in block order). MERKLE_EMPTY for none. */
export function merkleRoot(txnHashes: readonly Uint8Array[]): Uint8Array {
  if (!Array.isArray(txnHashes) || txnHashes.length === 0) {
    throw new BlockError('MERKLE_EMPTY', 'merkle root expected at least one txn hash');
  }
  txnHashes.forEach((h, i) => {
    if (!(h instanceof Uint8Array) || h.length !== HASH_BYTES) {
      const got = h instanceof Uint8Array ? `${h.length} bytes` : typeof h;
      throw new BlockError('MERKLE_LEAF', `merkle leaf ${i} expected ${HASH_BYTES} bytes, got ${got}`);
    }
  });
  const pair = new Uint8Array(2 * HASH_BYTES);
  let level: readonly Uint8Array[] = txnHashes;
  // do/while: a single leaf still goes through one level.
  do {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1] ?? left;
      pair.set(left, 0);
      pair.set(right, HASH_BYTES);
      next.push(sha256dInto(pair, new Uint8Array(HASH_BYTES)));
    }
    level = next;
  } while (level.length > 1);
  return level[0]!;
}

/** The Merkle root of whole serialized txns (each hashed with txnHash, which also decodes it). */
export function merkleRootOfTxns(txns: readonly Uint8Array[]): Uint8Array {
  if (!Array.isArray(txns) || txns.length === 0) {
    throw new BlockError('MERKLE_EMPTY', 'merkle root expected at least one txn');
  }
  return merkleRoot(txns.map((t) => txnHash(t)));
}

/**
 * The merkle root of a block whose first leaf is `first` and whose other leaves gave `path`
 * (the pool's merklePath task, CryptoService.merklePath): one hash per level, equal to
 * `merkleRoot([first, ...rest])`.
 */
export function rootFromFirstLeafPath(first: Uint8Array, path: readonly Uint8Array[]): Uint8Array {
  const pair = new Uint8Array(2 * HASH_BYTES);
  // A single leaf still gets one level (root = sha256d(h ‖ h)), as in merkleRoot.
  if (path.length === 0) {
    pair.set(first, 0);
    pair.set(first, HASH_BYTES);
    return sha256dInto(pair, new Uint8Array(HASH_BYTES));
  }
  let node = first;
  for (const sibling of path) {
    pair.set(node, 0);
    pair.set(sibling, HASH_BYTES);
    node = sha256dInto(pair, new Uint8Array(HASH_BYTES));
  }
  return node;
}
