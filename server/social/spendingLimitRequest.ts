/**
 * A TransactionSpendingLimitResponse sent by a client (what the SDK builds from its
 * `spendingLimitOptions`) read into the chain's TransactionSpendingLimit: the backend's
 * TransactionSpendingLimitFromResponse (routes/transaction.go), the inverse of
 * spendingLimitResponse.ts. get-access-bytes and get-transaction-spending-limit-hex-string
 * encode the result (txn/spendingLimit.ts).
 *
 * As the reference: unknown transaction strings count as type 0 (UNSET) and
 * `ACCEPT_NFT_TRANSFER` as NFT_TRANSFER (core's GetTxnTypeFromString); unknown operation and
 * scope strings become core's "undefined" values; `""` (and `"DESO"` in limit-order pairs) is
 * the zero PKID ("any"); association types are lower-cased; access group names are padded to
 * 32 bytes. PKIDs are the public keys (no identity swaps on this chain).
 *
 * Stricter than the reference: keys must be public keys of this network (never echoed in
 * errors); a group name over 32 bytes is refused (the reference truncates it); a stake limit
 * must be given (the reference panics on null); at most MAX_LIMIT_ENTRIES entries in all.
 * @module
 */
import { DomainError } from '../errors.js';
import { decodePublicKey, isKeyError, type Network } from '../keys/index.js';
import { ValidationError, v, type Infer, type Schema } from '../schema.js';
import { emptySpendingLimit, LIMIT_KEYS, setLimit, type TransactionSpendingLimit } from '../chain/txn/spendingLimit.js';
import {
  ACCESS_GROUP_MEMBER_OPS,
  ACCESS_GROUP_OPS,
  ACCESS_GROUP_SCOPES,
  ASSOCIATION_APP_SCOPES,
  ASSOCIATION_CLASSES,
  ASSOCIATION_OPS,
  CREATOR_COIN_OPS,
  DAO_COIN_OPS,
  LOCKUP_OPS,
  LOCKUP_SCOPES,
  NFT_OPS,
  txnString,
} from './spendingLimitResponse.js';
import { GROUP_KEY_NAME_BYTES, PUBLIC_KEY_BYTES } from '../chain/txn/sizes.js';

/**
 * Entries one limit may have, over every map. Core sets no number; this bounds the work of one
 * request, and is far above what a limit signed into a transaction needs (the SDK's default
 * has two).
 */
export const MAX_LIMIT_ENTRIES = 1_000;
const U256_MAX = (1n << 256n) - 1n;
/** The key of the native coin on either side of a DAO coin limit-order pair. */
const DESO_KEY = 'DESO';

/** A limit the chain cannot hold (SPENDING_LIMIT_REQUEST_INVALID: 400 under the route's prefix). */
export class SpendingLimitRequestError extends DomainError {
  override readonly name = 'SpendingLimitRequestError';
  constructor(message: string) {
    super('SPENDING_LIMIT_REQUEST_INVALID', 'invalid', message);
  }
}

/**
 * A uint256 as Go's uint256.Int reads JSON: a number, a decimal string or a 0x hex string
 * (what spendingLimitResponse.ts writes).
 */
function uint256(): Schema<bigint> {
  const pattern = '^(0[xX][0-9a-fA-F]{1,64}|[0-9]{1,78})$';
  return {
    json: { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern }], description: 'unsigned 256-bit integer: a number, a decimal string or 0x hex' },
    parse(x, path) {
      let n: bigint | undefined;
      if (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0) n = BigInt(x);
      else if (typeof x === 'string' && new RegExp(pattern).test(x)) n = BigInt(x);
      if (n === undefined || n > U256_MAX) throw new ValidationError(path, 'an unsigned 256-bit integer', x);
      return n;
    },
  };
}

const text = (maxLength = 1_000): Schema<string> => v.string({ maxLength });
const key = () => v.optional(text(200), '');
const count = v.uint64();
/** Per map level; MAX_LIMIT_ENTRIES bounds the total. */
const map = <T>(value: Schema<T>): Schema<Record<string, T>> => v.record(value, MAX_LIMIT_ENTRIES);
const list = <T>(item: Schema<T>): Schema<T[]> => v.array(item, MAX_LIMIT_ENTRIES);

const associationItem = v.object({
  AssociationClass: v.optional(text(100), ''),
  AssociationType: v.optional(text(), ''),
  AppScopeType: v.optional(text(100), ''),
  AppPublicKeyBase58Check: key(),
  AssociationOperation: v.optional(text(100), ''),
  OpCount: v.optional(count, 0n),
});

const accessGroupItem = v.object({
  AccessGroupOwnerPublicKeyBase58Check: key(),
  ScopeType: v.optional(text(100), ''),
  AccessGroupKeyName: v.optional(text(100), ''),
  OperationType: v.optional(text(100), ''),
  OpCount: v.optional(count, 0n),
});

/** The request form of a TransactionSpendingLimit (backend TransactionSpendingLimitResponse). */
export const transactionSpendingLimitJson = v.object({
  GlobalDESOLimit: v.optional(count, 0n),
  TransactionCountLimitMap: v.optional(map(count)),
  CreatorCoinOperationLimitMap: v.optional(map(map(count))),
  DAOCoinOperationLimitMap: v.optional(map(map(count))),
  /** Post hash hex → serial number (decimal) → operation → count. */
  NFTOperationLimitMap: v.optional(map(map(map(count)))),
  /** Buying coin → selling coin → count; `DESO` (or `""`) is the native coin. */
  DAOCoinLimitOrderLimitMap: v.optional(map(map(count))),
  AssociationLimitMap: v.optional(list(associationItem)),
  AccessGroupLimitMap: v.optional(list(accessGroupItem)),
  AccessGroupMemberLimitMap: v.optional(list(accessGroupItem)),
  StakeLimitMap: v.optional(list(v.object({ ValidatorPublicKeyBase58Check: key(), StakeLimit: uint256() }))),
  UnstakeLimitMap: v.optional(list(v.object({ ValidatorPublicKeyBase58Check: key(), UnstakeLimit: uint256() }))),
  UnlockStakeLimitMap: v.optional(list(v.object({ ValidatorPublicKeyBase58Check: key(), OpCount: v.optional(count, 0n) }))),
  LockupLimitMap: v.optional(
    list(v.object({ ProfilePublicKeyBase58Check: key(), ScopeType: v.optional(text(100), ''), Operation: v.optional(text(100), ''), OpCount: v.optional(count, 0n) })),
  ),
  IsUnlimited: v.optional(v.boolean(), false),
});
export type TransactionSpendingLimitJson = Infer<typeof transactionSpendingLimitJson>;

/** Core's GetTxnTypeFromString: every TxnString, plus its one quirk. */
const TXN_TYPES: ReadonlyMap<string, number> = (() => {
  const byString = new Map<string, number>();
  for (let t = 0; t < 256; t++) if (txnString(t) !== 'TXN_UNDEFINED') byString.set(txnString(t), t);
  // Core maps ACCEPT_NFT_TRANSFER to TxnTypeNFTTransfer (lib/network.go), not to its own type.
  byString.set('ACCEPT_NFT_TRANSFER', byString.get('NFT_TRANSFER')!);
  return byString;
})();

/** Core's `…String.To…()`: the string's number, else the enum's fallback. */
const operation = (table: readonly string[], s: string, fallback: number): number => {
  const i = table.indexOf(s);
  return i >= 0 ? i : fallback;
};

/** Go's bytes.ToLower: each code point by its simple mapping (JS maps İ to two code points, Go to i). */
const goLower = (s: string): string => Array.from(s, (ch) => Array.from(ch.toLowerCase())[0]!).join('');

/**
 * The client's limit as the chain's.
 * @throws {SpendingLimitRequestError} a key, post hash, serial number or group name the chain
 *   cannot hold, or more than MAX_LIMIT_ENTRIES entries
 */
export function spendingLimitFromJson(j: TransactionSpendingLimitJson, network: Network): TransactionSpendingLimit {
  const l = emptySpendingLimit();
  l.globalDESOLimit = j.GlobalDESOLimit;
  l.isUnlimited = j.IsUnlimited;
  let entries = 0;
  const counted = (): void => {
    if (++entries > MAX_LIMIT_ENTRIES) throw new SpendingLimitRequestError(`more than ${MAX_LIMIT_ENTRIES} limit entries`);
  };
  const publicKey = (s: string, field: string): Uint8Array => {
    try {
      return decodePublicKey(s, network, field);
    } catch (e) {
      if (isKeyError(e)) throw new SpendingLimitRequestError(`Error getting PKID for pub key: ${e.message}`);
      throw e;
    }
  };
  /** A public key as its PKID; `""` is the zero PKID ("any"). */
  const pkid = (s: string, field: string): Uint8Array => (s === '' ? new Uint8Array(PUBLIC_KEY_BYTES) : publicKey(s, field));
  const entriesOf = <T>(m: Record<string, T> | undefined): Array<[string, T]> => (m === undefined ? [] : Object.entries(m));

  for (const [txn, n] of entriesOf(j.TransactionCountLimitMap)) {
    counted();
    l.transactionCounts.set(TXN_TYPES.get(txn) ?? 0, n);
  }
  const coinMap = (m: Record<string, Record<string, bigint>> | undefined, into: TransactionSpendingLimit['creatorCoinOperations'], field: string, ops: readonly string[]): void => {
    for (const [pk, byOp] of entriesOf(m)) {
      const creatorPKID = pkid(pk, field);
      for (const [op, n] of Object.entries(byOp)) {
        counted();
        setLimit(into, LIMIT_KEYS.coinOperation, { creatorPKID, operation: operation(ops, op, ops.length) }, n);
      }
    }
  };
  // Undefined operations are the next number after the last named one (core: CC 4, DAO 6, NFT 7).
  coinMap(j.CreatorCoinOperationLimitMap, l.creatorCoinOperations, 'CreatorCoinOperationLimitMap', CREATOR_COIN_OPS);
  coinMap(j.DAOCoinOperationLimitMap, l.daoCoinOperations, 'DAOCoinOperationLimitMap', DAO_COIN_OPS);

  for (const [postHashHex, bySerial] of entriesOf(j.NFTOperationLimitMap)) {
    const postHash = postHashHex === '' ? new Uint8Array(32) : hash32(postHashHex);
    for (const [serial, byOp] of Object.entries(bySerial)) {
      if (!/^[0-9]{1,20}$/.test(serial) || BigInt(serial) >= 1n << 64n) {
        throw new SpendingLimitRequestError(`NFTOperationLimitMap: serial number keys are unsigned 64-bit decimal integers, got ${JSON.stringify(serial.slice(0, 30))}`);
      }
      for (const [op, n] of Object.entries(byOp)) {
        counted();
        setLimit(l.nftOperations, LIMIT_KEYS.nftOperation, { postHash, serialNumber: BigInt(serial), operation: operation(NFT_OPS, op, NFT_OPS.length) }, n);
      }
    }
  }

  const coin = (s: string): Uint8Array => (s === DESO_KEY ? new Uint8Array(PUBLIC_KEY_BYTES) : pkid(s, 'DAOCoinLimitOrderLimitMap'));
  for (const [buying, bySelling] of entriesOf(j.DAOCoinLimitOrderLimitMap)) {
    const buyingCreatorPKID = coin(buying);
    for (const [selling, n] of Object.entries(bySelling)) {
      counted();
      setLimit(l.daoCoinLimitOrders, LIMIT_KEYS.limitOrder, { buyingCreatorPKID, sellingCreatorPKID: coin(selling) }, n);
    }
  }

  for (const a of j.AssociationLimitMap ?? []) {
    counted();
    const key = {
      associationClass: operation(ASSOCIATION_CLASSES, a.AssociationClass, 0),
      associationType: new Uint8Array(Buffer.from(goLower(a.AssociationType), 'utf8')),
      appPKID: pkid(a.AppPublicKeyBase58Check, 'AssociationLimitMap.AppPublicKeyBase58Check'),
      appScopeType: operation(ASSOCIATION_APP_SCOPES, a.AppScopeType, 0),
      operation: operation(ASSOCIATION_OPS, a.AssociationOperation, 0),
    };
    setLimit(l.associations, LIMIT_KEYS.association, key, a.OpCount);
  }

  const groups = (items: ReadonlyArray<Infer<typeof accessGroupItem>> | undefined, into: TransactionSpendingLimit['accessGroups'], field: string, ops: readonly string[]): void => {
    for (const g of items ?? []) {
      counted();
      // The owner is a public key, not a PKID: "" is no key here (the SDK fills in the owner).
      const ownerPublicKey = publicKey(g.AccessGroupOwnerPublicKeyBase58Check, `${field}.AccessGroupOwnerPublicKeyBase58Check`);
      const scopeType = operation(ACCESS_GROUP_SCOPES, g.ScopeType, ACCESS_GROUP_SCOPES.length);
      setLimit(into, LIMIT_KEYS.accessGroup, { ownerPublicKey, scopeType, groupKeyName: groupKeyName(g.AccessGroupKeyName, field), operation: operation(ops, g.OperationType, 0) }, g.OpCount);
    }
  };
  groups(j.AccessGroupLimitMap, l.accessGroups, 'AccessGroupLimitMap', ACCESS_GROUP_OPS);
  groups(j.AccessGroupMemberLimitMap, l.accessGroupMembers, 'AccessGroupMemberLimitMap', ACCESS_GROUP_MEMBER_OPS);

  for (const s of j.StakeLimitMap ?? []) {
    counted();
    setLimit(l.stakes, LIMIT_KEYS.stake, { validatorPKID: pkid(s.ValidatorPublicKeyBase58Check, 'StakeLimitMap.ValidatorPublicKeyBase58Check') }, s.StakeLimit);
  }
  for (const s of j.UnstakeLimitMap ?? []) {
    counted();
    setLimit(l.unstakes, LIMIT_KEYS.stake, { validatorPKID: pkid(s.ValidatorPublicKeyBase58Check, 'UnstakeLimitMap.ValidatorPublicKeyBase58Check') }, s.UnstakeLimit);
  }
  for (const s of j.UnlockStakeLimitMap ?? []) {
    counted();
    setLimit(l.unlockStakes, LIMIT_KEYS.stake, { validatorPKID: pkid(s.ValidatorPublicKeyBase58Check, 'UnlockStakeLimitMap.ValidatorPublicKeyBase58Check') }, s.OpCount);
  }
  for (const k of j.LockupLimitMap ?? []) {
    counted();
    const key = {
      profilePKID: pkid(k.ProfilePublicKeyBase58Check, 'LockupLimitMap.ProfilePublicKeyBase58Check'),
      scopeType: operation(LOCKUP_SCOPES, k.ScopeType, 0),
      operation: operation(LOCKUP_OPS, k.Operation, LOCKUP_OPS.length),
    };
    setLimit(l.lockups, LIMIT_KEYS.lockup, key, k.OpCount);
  }
  return l;
}

/** A post hash as the backend's GetPostHashFromPostHashHex reads it (the hash is not echoed). */
function hash32(s: string): Uint8Array {
  if (!/^(?:[0-9a-fA-F]{2}){32}$/.test(s)) throw new SpendingLimitRequestError('Error parsing post hash: NFTOperationLimitMap keys are 64 hex characters or ""');
  return new Uint8Array(Buffer.from(s, 'hex'));
}

/** Core's NewGroupKeyName: the UTF-8 bytes zero-padded to 32. */
function groupKeyName(name: string, field: string): Uint8Array {
  const bytes = Buffer.from(name, 'utf8');
  if (bytes.length > GROUP_KEY_NAME_BYTES) throw new SpendingLimitRequestError(`${field}.AccessGroupKeyName: expected at most ${GROUP_KEY_NAME_BYTES} bytes, got ${bytes.length}`);
  const out = new Uint8Array(GROUP_KEY_NAME_BYTES);
  out.set(bytes);
  return out;
}
