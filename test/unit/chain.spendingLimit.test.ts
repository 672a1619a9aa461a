/**
 * TransactionSpendingLimit binary codec (server/chain/txn/spendingLimit.ts) against core's
 * layout (lib/network.go ToBytes/FromBytes), the SDK vector (sdk-vectors.json
 * derivedKeyAuthorization) and the SDK's own transcoder (deso-protocol
 * TransactionSpendingLimitRecord) on random records.
 *
 * Left out of the SDK round trips, with the reason:
 * - DAOCoinLimitOrderLimitMap: the SDK writes its two PKIDs length-prefixed (VarBuffer), core
 *   writes them raw (DAOCoinLimitOrderLimitKey.Encode); a test below pins the difference.
 * - Values ≥ 2^53 and txn types ≥ 128: the SDK holds numbers (not bigints) and writes the txn
 *   type as one raw byte, where core writes a uvarint (equal below 128; every type is below 45).
 * - Every field after the original five maps: the SDK's record stops there.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  TransactionCoinOperationLimitMapItem,
  TransactionCountLimitMapItem,
  TransactionDAOCoinLimitOrderLimitMapItem,
  TransactionNFTOperationLimitMapItem,
  TransactionSpendingLimitRecord,
} from 'deso-protocol';
import fc from 'fast-check';
import { accessBytes } from '../../server/chain/rules/derivedKeys.js';
import { TxnDecodeError } from '../../server/chain/txn/errors.js';
import {
  decodeSpendingLimit,
  emptySpendingLimit,
  encodeSpendingLimit,
  getLimit,
  LIMIT_KEYS,
  setLimit,
  SpendingLimitVersion,
  type LimitKeyCodec,
  type LimitMap,
  type TransactionSpendingLimit,
} from '../../server/chain/txn/spendingLimit.js';
import { decodePublicKey } from '../../server/keys/index.js';
import { sha256d } from '../../wasm/hash.js';
import { parseDer, verify } from '../../wasm/secp256k1.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

interface DerivedKeyVector {
  ownerPublicKeyBase58Check: string;
  derivedPublicKeyBase58Check: string;
  expirationBlock: number;
  transactionSpendingLimitHex: string;
  accessBytesHex: string;
  accessBytesHashHex: string;
  accessSignatureDerHex: string;
}
const V = readSharedVectors<{ derivedKeyAuthorization: DerivedKeyVector }>('sdk-vectors.json').derivedKeyAuthorization;
const ORIGINAL = SpendingLimitVersion.Original;
const RUNS = Number(process.env.SPENDING_LIMIT_RUNS ?? 1_000);

const hex = (b: Uint8Array): string => bytesToHex(b);
const bytesN = (n: number): fc.Arbitrary<Uint8Array> => fc.uint8Array({ minLength: n, maxLength: n });
const safeCount = fc.bigInt({ min: 0n, max: (1n << 53n) - 1n });
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const u256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });

function mapOf<K, V>(codec: LimitKeyCodec<K>, entries: Array<[K, V]>): LimitMap<K, V> {
  const map: LimitMap<K, V> = new Map();
  for (const [k, v] of entries) setLimit(map, codec, k, v);
  return map;
}

/** Records the SDK transcoder can write too: the original five maps, limit orders left out. */
const sdkShaped: fc.Arbitrary<TransactionSpendingLimit> = fc
  .record({
    global: safeCount,
    counts: fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 127 }), safeCount), { selector: ([t]) => t, maxLength: 8 }),
    cc: fc.array(fc.tuple(bytesN(33), fc.integer({ min: 0, max: 4 }), safeCount), { maxLength: 4 }),
    dao: fc.array(fc.tuple(bytesN(33), fc.integer({ min: 0, max: 6 }), safeCount), { maxLength: 4 }),
    nft: fc.array(fc.tuple(bytesN(32), safeCount, fc.integer({ min: 0, max: 7 }), safeCount), { maxLength: 4 }),
  })
  .map(({ global, counts, cc, dao, nft }) => ({
    ...emptySpendingLimit(),
    globalDESOLimit: global,
    transactionCounts: new Map(counts.map(([t, c]) => [t, c])),
    creatorCoinOperations: mapOf(LIMIT_KEYS.coinOperation, cc.map(([creatorPKID, operation, v]) => [{ creatorPKID, operation }, v])),
    daoCoinOperations: mapOf(LIMIT_KEYS.coinOperation, dao.map(([creatorPKID, operation, v]) => [{ creatorPKID, operation }, v])),
    nftOperations: mapOf(LIMIT_KEYS.nftOperation, nft.map(([postHash, serialNumber, operation, v]) => [{ postHash, serialNumber, operation }, v])),
  }));

/** Every field at the current version, values over the whole u64 / u256 range. */
const anyLimit: fc.Arbitrary<TransactionSpendingLimit> = fc
  .record({
    base: sdkShaped,
    orders: fc.array(fc.tuple(bytesN(33), bytesN(33), u64), { maxLength: 3 }),
    unlimited: fc.boolean(),
    associations: fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.uint8Array({ maxLength: 20 }), bytesN(33), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 }), u64), { maxLength: 3 }),
    groups: fc.array(fc.tuple(bytesN(33), fc.integer({ min: 0, max: 1 }), bytesN(32), fc.integer({ min: 0, max: 3 }), u64), { maxLength: 3 }),
    members: fc.array(fc.tuple(bytesN(33), fc.integer({ min: 0, max: 1 }), bytesN(32), fc.integer({ min: 0, max: 4 }), u64), { maxLength: 3 }),
    lockups: fc.array(fc.tuple(bytesN(33), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), u64), { maxLength: 3 }),
    stakes: fc.array(fc.tuple(bytesN(33), fc.option(u256, { nil: null })), { maxLength: 3 }),
    unstakes: fc.array(fc.tuple(bytesN(33), fc.option(u256, { nil: null })), { maxLength: 3 }),
    unlocks: fc.array(fc.tuple(bytesN(33), u64), { maxLength: 3 }),
  })
  .map((r) => ({
    ...r.base,
    isUnlimited: r.unlimited,
    daoCoinLimitOrders: mapOf(LIMIT_KEYS.limitOrder, r.orders.map(([buyingCreatorPKID, sellingCreatorPKID, v]) => [{ buyingCreatorPKID, sellingCreatorPKID }, v])),
    associations: mapOf(LIMIT_KEYS.association, r.associations.map(([associationClass, associationType, appPKID, appScopeType, operation, v]) => [{ associationClass, associationType, appPKID, appScopeType, operation }, v])),
    accessGroups: mapOf(LIMIT_KEYS.accessGroup, r.groups.map(([ownerPublicKey, scopeType, groupKeyName, operation, v]) => [{ ownerPublicKey, scopeType, groupKeyName, operation }, v])),
    accessGroupMembers: mapOf(LIMIT_KEYS.accessGroup, r.members.map(([ownerPublicKey, scopeType, groupKeyName, operation, v]) => [{ ownerPublicKey, scopeType, groupKeyName, operation }, v])),
    lockups: mapOf(LIMIT_KEYS.lockup, r.lockups.map(([profilePKID, scopeType, operation, v]) => [{ profilePKID, scopeType, operation }, v])),
    stakes: mapOf(LIMIT_KEYS.stake, r.stakes.map(([validatorPKID, v]) => [{ validatorPKID }, v])),
    unstakes: mapOf(LIMIT_KEYS.stake, r.unstakes.map(([validatorPKID, v]) => [{ validatorPKID }, v])),
    unlockStakes: mapOf(LIMIT_KEYS.stake, r.unlocks.map(([validatorPKID, v]) => [{ validatorPKID }, v])),
  }));

/** The same record as the SDK's transcoder holds it, entries in core's order. */
function toSdk(l: TransactionSpendingLimit): TransactionSpendingLimitRecord {
  const sorted = <K, V>(map: LimitMap<K, V>) => [...map].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e);
  const rec = new TransactionSpendingLimitRecord();
  rec.globalDESOLimit = Number(l.globalDESOLimit);
  rec.txnCountLimitMap = [...l.transactionCounts].sort(([a], [b]) => a - b).map(([t, c]) => Object.assign(new TransactionCountLimitMapItem(), { txnType: t, value: Number(c) }));
  const coin = (map: TransactionSpendingLimit['creatorCoinOperations']) =>
    sorted(map).map((e) => Object.assign(new TransactionCoinOperationLimitMapItem(), { creatorPKID: e.key.creatorPKID, operation: e.key.operation, value: Number(e.value) }));
  rec.creatorCoinOperationLimitMap = coin(l.creatorCoinOperations);
  rec.daoCoinOperationLimitMap = coin(l.daoCoinOperations);
  rec.nftOperationLimitMap = sorted(l.nftOperations).map((e) =>
    Object.assign(new TransactionNFTOperationLimitMapItem(), { postHash: e.key.postHash, serialNumber: Number(e.key.serialNumber), operation: e.key.operation, value: Number(e.value) }),
  );
  return rec;
}

/** A record as plain comparable data (map order and key objects do not matter). */
function plain(l: TransactionSpendingLimit): unknown {
  const walk = (v: unknown): unknown => {
    if (v instanceof Uint8Array) return hex(v);
    if (v instanceof Map) return [...v].map(([k, x]) => [String(k), walk(x)]).sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
    if (typeof v === 'bigint') return `${v}n`;
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(l);
}

const rejects = (bytes: Uint8Array, re: RegExp, version = SpendingLimitVersion.ProofOfStake as SpendingLimitVersion): void => {
  assert.throws(() => decodeSpendingLimit(bytes, version), (e: unknown) => e instanceof TxnDecodeError && re.test(e.message), `refused: ${re}`);
};

describe('TransactionSpendingLimit: the SDK vector', () => {
  const vectorBytes = hexToBytes(V.transactionSpendingLimitHex);

  it('decodes at the original version: GlobalDESOLimit 10,000,000, AUTHORIZE_DERIVED_KEY (22) once, every map empty', () => {
    const l = decodeSpendingLimit(vectorBytes, ORIGINAL);
    assert.equal(l.globalDESOLimit, 10_000_000n);
    assert.deepEqual([...l.transactionCounts], [[22, 1n]]);
    for (const map of [l.creatorCoinOperations, l.daoCoinOperations, l.nftOperations, l.daoCoinLimitOrders]) assert.equal(map.size, 0, 'empty map');
    assert.equal(hex(encodeSpendingLimit(l, ORIGINAL)), V.transactionSpendingLimitHex, 're-encodes byte for byte');
  });

  it('is too short for the current version (IsUnlimited and the later maps are missing), as the vector notes', () => {
    rejects(vectorBytes, /IsUnlimited: expected 1 bytes, 0 left/);
    const current = encodeSpendingLimit(decodeSpendingLimit(vectorBytes, ORIGINAL));
    // IsUnlimited = 0, then seven empty maps: associations, access groups, members, lockups, stakes, unstakes, unlock stakes.
    assert.equal(hex(current), `${V.transactionSpendingLimitHex}00${'00'.repeat(7)}`);
  });

  it('access bytes = derived pk33 ‖ u64be(expiration) ‖ limit bytes; the owner\'s DER signature verifies over their sha256d', () => {
    const derived = decodePublicKey(V.derivedPublicKeyBase58Check, 'mainnet', 'derived');
    const owner = decodePublicKey(V.ownerPublicKeyBase58Check, 'mainnet', 'owner');
    const bytes = accessBytes(derived, BigInt(V.expirationBlock), vectorBytes);
    assert.equal(hex(bytes), V.accessBytesHex);
    assert.equal(hex(sha256d(bytes)), V.accessBytesHashHex);
    assert.ok(verify(parseDer(hexToBytes(V.accessSignatureDerHex))!, sha256d(bytes), owner, { lowS: false }), 'the vector signature verifies');
  });
});

describe('TransactionSpendingLimit against the SDK transcoder', () => {
  it(`${RUNS} random records: our original-version bytes equal the SDK's, and each side reads the other's`, () => {
    fc.assert(
      fc.property(sdkShaped, (l) => {
        const ours = encodeSpendingLimit(l, ORIGINAL);
        const sdk = toSdk(l).toBytes();
        assert.equal(hex(ours), hex(sdk), 'same bytes');
        assert.deepEqual(plain(decodeSpendingLimit(sdk, ORIGINAL)), plain(l), 'we read the SDK\'s bytes');
        const [back, rest] = TransactionSpendingLimitRecord.fromBytes(ours);
        assert.equal(rest.length, 0, 'the SDK reads all of ours');
        assert.equal(hex(back.toBytes()), hex(ours), 'and writes them back unchanged');
      }),
      { numRuns: RUNS },
    );
  });

  it('limit-order keys: core (and we) write the two PKIDs raw; the SDK length-prefixes them, which core cannot read', () => {
    const buying = new Uint8Array(33).fill(2);
    const selling = new Uint8Array(33);
    const l = { ...emptySpendingLimit(), daoCoinLimitOrders: mapOf(LIMIT_KEYS.limitOrder, [[{ buyingCreatorPKID: buying, sellingCreatorPKID: selling }, 5n]]) };
    assert.equal(hex(encodeSpendingLimit(l, ORIGINAL)), `000000000001${hex(buying)}${hex(selling)}05`);
    const rec = new TransactionSpendingLimitRecord();
    rec.daoCoinLimitOrderLimitMap = [Object.assign(new TransactionDAOCoinLimitOrderLimitMapItem(), { buyingDAOCoinCreatorPKID: buying, sellingDAOCoinCreatorPKID: selling, value: 5 })];
    assert.equal(hex(rec.toBytes()), `00000000000121${hex(buying)}21${hex(selling)}05`);
    rejects(rec.toBytes(), /./, ORIGINAL);
  });
});

describe('TransactionSpendingLimit: core\'s layout at the current version', () => {
  it('writes every field in core\'s order, each key as core encodes it', () => {
    const pk = (b: number): Uint8Array => new Uint8Array(33).fill(b);
    const name = new Uint8Array(32);
    name.set(Buffer.from('chat'));
    const l: TransactionSpendingLimit = {
      ...emptySpendingLimit(),
      globalDESOLimit: 300n,
      transactionCounts: new Map([
        [33, 4n],
        [2, 1n],
      ]),
      creatorCoinOperations: mapOf(LIMIT_KEYS.coinOperation, [[{ creatorPKID: pk(1), operation: 1 }, 2n]]),
      nftOperations: mapOf(LIMIT_KEYS.nftOperation, [[{ postHash: new Uint8Array(32).fill(7), serialNumber: 130n, operation: 3 }, 1n]]),
      associations: mapOf(LIMIT_KEYS.association, [[{ associationClass: 1, associationType: Buffer.from('like'), appPKID: pk(4), appScopeType: 2, operation: 2 }, 6n]]),
      accessGroups: mapOf(LIMIT_KEYS.accessGroup, [[{ ownerPublicKey: pk(5), scopeType: 1, groupKeyName: name, operation: 2 }, 1n]]),
      lockups: mapOf(LIMIT_KEYS.lockup, [[{ profilePKID: pk(6), scopeType: 1, operation: 2 }, 3n]]),
      stakes: mapOf(LIMIT_KEYS.stake, [[{ validatorPKID: pk(7) }, 256n]]),
    };
    const expected = [
      'ac02', // GlobalDESOLimit 300
      '02', '0201', '2104', // TransactionCountLimitMap, by txn type: BASIC_TRANSFER 1, NEW_MESSAGE 4
      '01', `21${hex(pk(1))}01`, '02', // CreatorCoinOperationLimitMap: bytes(PKID) ‖ op ‖ count
      '00', // DAOCoinOperationLimitMap
      '01', `20${'07'.repeat(32)}8201` + '03', '01', // NFTOperationLimitMap: bytes(hash) ‖ serial ‖ op ‖ count
      '00', // DAOCoinLimitOrderLimitMap
      '00', // IsUnlimited
      '01', `01046c696b65${hex(pk(4))}0202`, '06', // AssociationLimitMap: class ‖ bytes(type) ‖ PKID ‖ scope ‖ op ‖ count
      '01', `21${hex(pk(5))}0120${hex(name)}02`, '01', // AccessGroupMap: bytes(owner) ‖ scope ‖ bytes(name32) ‖ op ‖ count
      '00', // AccessGroupMemberMap
      '01', `${hex(pk(6))}0102`, '03', // LockupLimitMap: PKID ‖ scope byte ‖ op byte ‖ count
      '01', hex(pk(7)), '01020100', // StakeLimitMap: validator PKID ‖ exists ‖ bytes(256)
      '00', // UnstakeLimitMap
      '00', // UnlockStakeLimitMap
    ].join('');
    assert.equal(hex(encodeSpendingLimit(l)), expected);
    assert.deepEqual(plain(decodeSpendingLimit(hexToBytes(expected))), plain(l));
  });

  it('sorts map entries by the bytes of their key encoding, whatever order they were added in', () => {
    const keys = [3, 1, 2].map((b) => ({ creatorPKID: new Uint8Array(33).fill(b), operation: 0 }));
    const l = { ...emptySpendingLimit(), creatorCoinOperations: mapOf(LIMIT_KEYS.coinOperation, keys.map((k, i) => [k, BigInt(i + 1)])) };
    const bytes = encodeSpendingLimit(l, ORIGINAL);
    const order = [1, 2, 3].map((b) => hex(bytes).indexOf(`21${hex(new Uint8Array(33).fill(b))}`));
    assert.ok(order[0]! < order[1]! && order[1]! < order[2]!, `keys in byte order: ${order}`);
    assert.equal(getLimit(decodeSpendingLimit(bytes, ORIGINAL).creatorCoinOperations, LIMIT_KEYS.coinOperation, keys[1]!), 2n, 'values stay with their keys');
  });

  it(`${RUNS} random records of every field round-trip: decode(encode(x)) = x and encode(decode(b)) = b`, () => {
    fc.assert(
      fc.property(anyLimit, (l) => {
        const bytes = encodeSpendingLimit(l);
        const back = decodeSpendingLimit(bytes);
        assert.deepEqual(plain(back), plain(l));
        assert.equal(hex(encodeSpendingLimit(back)), hex(bytes));
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses to write a field into a version that has no room for it', () => {
    assert.throws(() => encodeSpendingLimit({ ...emptySpendingLimit(), isUnlimited: true }, ORIGINAL), /"isUnlimited" is not part of spending limit version 0/);
    const lockups = mapOf(LIMIT_KEYS.lockup, [[{ profilePKID: new Uint8Array(33), scopeType: 0, operation: 0 }, 1n]]);
    assert.throws(() => encodeSpendingLimit({ ...emptySpendingLimit(), lockups }, SpendingLimitVersion.AssociationsAndAccessGroups), /"lockups"/);
  });
});

describe('TransactionSpendingLimit: strict decoding', () => {
  const empty = encodeSpendingLimit(emptySpendingLimit());

  it('refuses trailing bytes', () => rejects(Uint8Array.from([...empty, 0]), /1 bytes after the last field/));
  it('refuses a non-minimal uvarint', () => rejects(Uint8Array.from([0x80, 0x00, ...empty.subarray(1)]), /GlobalDESOLimit: uvarint is not minimally encoded/));
  it('refuses a truncated record', () => rejects(empty.subarray(0, empty.length - 1), /UnlockStakeLimitMap/));
  it('refuses a boolean byte other than 0 or 1', () => {
    const bad = empty.slice();
    bad[6] = 2; // IsUnlimited follows GlobalDESOLimit and the five map counts
    rejects(bad, /IsUnlimited: expected a boolean byte 0 or 1, got 2/);
  });
  it('refuses a txn type that appears twice', () => rejects(hexToBytes(`0002020102020000000000000000000000`), /txn type 2 appears twice/));
  it('refuses a map key that appears twice', () => {
    const key = `21${'02'.repeat(33)}01`;
    rejects(hexToBytes(`000002${key}01${key}02000000000000000000000000`), /CreatorCoinOperationLimitMap: key 1 appears twice/);
  });
  it('refuses a creator PKID that is not 33 bytes', () => rejects(hexToBytes(`000001${'20'}${'02'.repeat(32)}0101000000000000000000000000`), /creatorPKID: expected 33 bytes, got 32/));
  it('refuses an access group name that is not the padded 32 bytes', () => {
    rejects(hexToBytes(`00000000000000000121${'02'.repeat(33)}0104${'61'.repeat(4)}0201000000000000`), /groupKeyName: expected 32 bytes, got 4/);
  });
  it('refuses an operation over 255 (core casts it to a byte)', () => rejects(hexToBytes(`000001${'21'}${'02'.repeat(33)}80020100000000000000000000000000`), /operation: 256 is over 255/));
  it('refuses a count its bytes cannot hold', () => rejects(hexToBytes('00ff01'), /TransactionCountLimitMap: 255 exceeds/));
  it('refuses a uint256 with a leading zero byte', () => {
    rejects(hexToBytes(`${'00'.repeat(11)}01${'07'.repeat(33)}01020001000000`), /uint256 is not minimally encoded/);
  });
});
