/**
 * Errors of the block-level primitives (header codec, Merkle root, targets, chain parameters).
 * One class with a machine-readable `code`; the message says what was wrong and where.
 * @module
 */
import { DomainError } from '../../errors.js';

export type BlockErrorCode =
  /** A header is not exactly 100 bytes. */
  | 'HEADER_LENGTH'
  /** A header's u32 Version is not 1 (v0 headers are not accepted, §5.6). */
  | 'HEADER_VERSION'
  /** A header number is outside its range: TstampSecs / Height beyond u32, Nonce / ExtraNonce beyond u64, Version beyond u32. */
  | 'HEADER_RANGE'
  /** A header hash field (PrevBlockHash, TransactionMerkleRoot) is not 32 bytes. */
  | 'HEADER_FIELD'
  /** A Merkle root of no transactions was asked for (a block has at least its block-reward txn). */
  | 'MERKLE_EMPTY'
  /** A Merkle leaf is not a 32-byte hash. */
  | 'MERKLE_LEAF'
  /** A hash or target is not 32 bytes, or a target value does not fit 256 bits / is negative. */
  | 'TARGET'
  /** A block height is negative (or otherwise not a valid height). */
  | 'HEIGHT_RANGE'
  /** Chain parameters that cannot work (e.g. zero block time, retarget window shorter than a block). */
  | 'PARAMS';

export class BlockError extends DomainError {
  override readonly name = 'BlockError';
  constructor(
    override readonly code: BlockErrorCode,
    message: string,
  ) {
    super(code, 'invalid', message);
  }
}

export function isBlockError(e: unknown, code?: BlockErrorCode): e is BlockError {
  return e instanceof BlockError && (code === undefined || e.code === code);
}
