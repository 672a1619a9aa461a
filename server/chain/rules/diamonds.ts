/**
 * Diamonds, as core's `_connectBasicTransferWithExtraSpend` and `ValidateDiamondsAndGetNumDeSoNanos`
 * connect them past DeSoDiamondsBlockHeight (0 on regtest and on this chain: every block): a
 * BASIC_TRANSFER whose ExtraData has `DiamondPostHash` (32 bytes) and `DiamondLevel` (a zig-zag
 * varint, core IntToBuf) pays the post's author the nanos of the new level minus those of the
 * level the sender already gave the post, and records the new level.
 *
 * Checks, in core's order (a lone `DiamondLevel` is ignored, as in core):
 * 1. `DiamondLevel` present, else `RuleErrorBasicTransferHasDiamondPostHashWithoutDiamondLevel`;
 * 2. the level reads (Go binary.Varint; a prefix, trailing bytes ignored) and is not negative,
 *    else `RuleErrorBasicTransferHasInvalidDiamondLevel`;
 * 3. the hash has 32 bytes, else `RuleErrorBasicTransferDiamondInvalidLengthForPostHashBytes`;
 * 4. the post exists, else `RuleErrorBasicTransferDiamondPostEntryDoesNotExist`;
 * 5. the sender is not the post's author, else `RuleErrorBasicTransferDiamondCannotTransferToSelf`;
 * 6. the level is one of `DIAMOND_LEVEL_NANOS` (1..8). Core fails with a plain error here
 *    ("ValidateDiamondsAndGetNumCreatorCoinNanos: Diamond level N not allowed"); this node names
 *    it `RuleErrorBasicTransferHasInvalidDiamondLevel` with core's text as the detail;
 * 7. the level is above the one the sender already gave the post, else
 *    `RuleErrorCreatorCoinTransferPostAlreadyHasSufficientDiamonds` (levels may jump: 1 → 5);
 * 8. the outputs to the author add up to at least the difference, else
 *    `RuleErrorBasicTransferInsufficientDeSoForDiamondLevel` (paying more is allowed).
 *
 * Effects: the (sender, post) entry holds the new level (state/diamonds.ts) and the post's
 * DiamondCount grows by the new level minus the old one.
 * @module
 */
import { toHex } from '../../hex.js';
import { getDiamondLevel, putDiamond } from '../state/diamonds.js';
import { getPost, updatePost, type PostRecord } from '../state/posts.js';
import type { StateReader } from '../state/reader.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { HASH_BYTES } from '../txn/sizes.js';
import { encodeUvarint } from '../txn/varint.js';
import { RuleError } from './errors.js';

/** The ExtraData keys of a diamond (core DiamondLevelKey, DiamondPostHashKey). */
export const DIAMOND_EXTRA_KEYS = { level: 'DiamondLevel', postHash: 'DiamondPostHash' } as const;

/**
 * Nanos a diamond of each level is worth (core GetDeSoNanosDiamondLevelMapAtBlockHeight past
 * DeSoDiamondsBlockHeight; get-app-state's DiamondLevelMap): index = level, each ten times the
 * one before. Level 0 (no diamond) is worth nothing and is not a level one can give.
 */
export const DIAMOND_LEVEL_NANOS: readonly bigint[] = [0n, 50_000n, 500_000n, 5_000_000n, 50_000_000n, 500_000_000n, 5_000_000_000n, 50_000_000_000n, 500_000_000_000n];

/** The highest level one can give. */
export const MAX_DIAMOND_LEVEL = DIAMOND_LEVEL_NANOS.length - 1;

/** Whether a level is one of DIAMOND_LEVEL_NANOS's (1..8). */
export const isDiamondLevel = (level: bigint): boolean => level >= 1n && level <= BigInt(MAX_DIAMOND_LEVEL);

/** Core's IntToBuf of a level: zig-zag varint (level n ⇒ uvarint 2n: 1 → `02`, 8 → `10`). */
export function encodeDiamondLevel(level: bigint): Uint8Array {
  return encodeUvarint(level >= 0n ? level << 1n : ((-level) << 1n) - 1n);
}

/**
 * Go's binary.Varint over the value: the level and the bytes read, as core sees them. Bytes
 * read 0 (empty or truncated) come with level 0; negative bytes read (more than 64 bits) mean
 * unreadable.
 */
export function readDiamondLevel(b: Uint8Array): { level: bigint; bytesRead: number } {
  let x = 0n;
  let shift = 0n;
  for (let i = 0; i < b.length; i++) {
    if (i === 10) return { level: 0n, bytesRead: -(i + 1) };
    const byte = b[i]!;
    if (byte < 0x80) {
      if (i === 9 && byte > 1) return { level: 0n, bytesRead: -(i + 1) };
      const ux = x | (BigInt(byte) << shift);
      return { level: (ux & 1n) === 1n ? -(ux >> 1n) - 1n : ux >> 1n, bytesRead: i + 1 };
    }
    x |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
  }
  return { level: 0n, bytesRead: 0 };
}

/** What a diamond of `level` by `sender` on `post` pays and changes. */
export interface DiamondPayment {
  /** Nanos the author must receive: the new level's worth minus the previous level's. */
  nanos: bigint;
  /** The level the sender gave the post before (0: none). */
  previousLevel: number;
  level: number;
}

/**
 * Core's ValidateDiamondsAndGetNumDeSoNanos: the level must be one of the map's and above the
 * one `sender` already gave `post`. Shared by connect and the send-diamonds constructor.
 * @throws {RuleError}
 */
export async function diamondPayment(state: StateReader, sender33: Uint8Array, post: Pick<PostRecord, 'postHash'>, level: bigint): Promise<DiamondPayment> {
  if (!isDiamondLevel(level)) {
    throw new RuleError('RuleErrorBasicTransferHasInvalidDiamondLevel', `ValidateDiamondsAndGetNumCreatorCoinNanos: Diamond level ${level} not allowed`);
  }
  const previousLevel = await getDiamondLevel(state, post.postHash, sender33);
  if (BigInt(previousLevel) >= level) {
    throw new RuleError('RuleErrorCreatorCoinTransferPostAlreadyHasSufficientDiamonds', `the sender already gave post ${toHex(post.postHash)} a level ${previousLevel} diamond; a new one must be higher than that`);
  }
  const n = Number(level);
  return { nanos: DIAMOND_LEVEL_NANOS[n]! - DIAMOND_LEVEL_NANOS[previousLevel]!, previousLevel, level: n };
}

const extraValue = (txn: TxnEnvelope, key: string): Uint8Array | undefined => txn.extraData.find(([k]) => Buffer.from(k).toString('latin1') === key)?.[1];

/**
 * The diamond part of a BASIC_TRANSFER (after its fee and outputs moved): nothing without a
 * `DiamondPostHash`, else the checks and effects of the module comment.
 * @throws {RuleError}
 */
export async function connectDiamond(view: StateView, txn: TxnEnvelope): Promise<void> {
  const postHash = extraValue(txn, DIAMOND_EXTRA_KEYS.postHash);
  if (postHash === undefined) return;
  const levelBytes = extraValue(txn, DIAMOND_EXTRA_KEYS.level);
  if (levelBytes === undefined) throw new RuleError('RuleErrorBasicTransferHasDiamondPostHashWithoutDiamondLevel', 'ExtraData has DiamondPostHash but no DiamondLevel');
  const { level, bytesRead } = readDiamondLevel(levelBytes);
  if (bytesRead < 0 || level < 0n) throw new RuleError('RuleErrorBasicTransferHasInvalidDiamondLevel', bytesRead < 0 ? 'DiamondLevel overflows 64 bits' : `DiamondLevel ${level} is negative`);
  if (postHash.length !== HASH_BYTES) {
    throw new RuleError('RuleErrorBasicTransferDiamondInvalidLengthForPostHashBytes', `DiamondPostHash has ${postHash.length} bytes; expected ${HASH_BYTES}`);
  }
  const post = await getPost(view, postHash);
  if (post === undefined) throw new RuleError('RuleErrorBasicTransferDiamondPostEntryDoesNotExist', `post ${toHex(postHash)} does not exist`);
  const author = post.posterPublicKey;
  if (Buffer.compare(txn.publicKey, author) === 0) throw new RuleError('RuleErrorBasicTransferDiamondCannotTransferToSelf', 'the sender wrote the post: one cannot diamond one\'s own post');

  const pay = await diamondPayment(view, txn.publicKey, post, level);
  let toAuthor = 0n;
  for (const o of txn.outputs) if (Buffer.compare(o.publicKey, author) === 0) toAuthor += o.amountNanos;
  if (toAuthor < pay.nanos) {
    throw new RuleError('RuleErrorBasicTransferInsufficientDeSoForDiamondLevel', `the outputs pay the author ${toAuthor} nanos; a level ${pay.level} diamond over level ${pay.previousLevel} needs ${pay.nanos}`);
  }

  await putDiamond(view, { sender: txn.publicKey, receiver: author, postHash: post.postHash, postTimestampNanos: post.timestampNanos, previousLevel: pay.previousLevel, level: pay.level });
  updatePost(view, { ...post, diamondCount: post.diamondCount + BigInt(pay.level - pay.previousLevel) });
}
