/**
 * A client's TransactionSpendingLimitResponse read into the chain's limit
 * (server/social/spendingLimitRequest.ts; backend routes/transaction.go
 * TransactionSpendingLimitFromResponse) and the MetaMask text of the access bytes
 * (server/social/metamaskAccessBytes.ts; core ToMetamaskString): the SDK's default limit gives
 * social-graph.md §1.4's bytes, every limit the response builder writes reads back to the same
 * bytes, core's string quirks, refusals that never echo a key, and the text byte for byte.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { emptySpendingLimit, encodeSpendingLimit, LIMIT_KEYS, setLimit, type TransactionSpendingLimit } from '../../server/chain/txn/spendingLimit.js';
import { TxnType } from '../../server/chain/txn/metadata.js';
import { toHex } from '../../server/hex.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { desoTwoDecimals, metamaskAccessBytes, scaledDecimal } from '../../server/social/metamaskAccessBytes.js';
import { MAX_LIMIT_ENTRIES, SpendingLimitRequestError, spendingLimitFromJson, transactionSpendingLimitJson } from '../../server/social/spendingLimitRequest.js';
import { transactionSpendingLimitResponse } from '../../server/social/spendingLimitResponse.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const NETWORK = 'testnet';
const RUNS = Number(process.env['SPENDING_LIMIT_RUNS'] ?? 300);
const keyOf = (seed: number): Uint8Array => getPublicKey(new Uint8Array(32).fill(seed), true);
const KEYS = [keyOf(1), keyOf(2), keyOf(3)];
const ZERO = new Uint8Array(33);
const b58 = (k: Uint8Array): string => encodePublicKey(k, NETWORK);
/** Core's TxnType numbers of the two NFT transfer types (this chain has no NFTs: TxnType omits them). */
const NFT_TRANSFER = 19;
const ACCEPT_NFT_TRANSFER = 20;

/** Request JSON through the route's schema, then into the chain's limit. */
function fromJson(json: unknown): TransactionSpendingLimit {
  return spendingLimitFromJson(transactionSpendingLimitJson.parse(json, 'TransactionSpendingLimit', { network: NETWORK }), NETWORK);
}
const hexOf = (json: unknown): string => toHex(encodeSpendingLimit(fromJson(json)));

function refuses(json: unknown, re: RegExp): string {
  let message = '';
  assert.throws(
    () => fromJson(json),
    (e: unknown) => {
      message = (e as Error).message;
      return (e instanceof SpendingLimitRequestError || (e as Error).name === 'ApiError' || e instanceof Error) && re.test(message);
    },
  );
  return message;
}

describe('spendingLimitFromJson', () => {
  it("encodes the SDK's default limit as social-graph §1.4's example", () => {
    assert.equal(hexOf({ GlobalDESOLimit: 1e7, TransactionCountLimitMap: { AUTHORIZE_DERIVED_KEY: 1 } }), `80ade204011601${'00'.repeat(12)}`);
  });

  it('reads an absent limit field as empty, as Go leaves a missing field at its zero value', () => {
    assert.equal(hexOf({}), '00'.repeat(14));
  });

  const key = fc.constantFrom(...KEYS);
  const pkid = fc.constantFrom(ZERO, ...KEYS);
  const count = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
  const name = fc.stringMatching(/^[a-z0-9]{1,12}$/).map((s) => {
    const out = new Uint8Array(32);
    out.set(Buffer.from(s));
    return out;
  });
  /** Every txn type the reference names, but ACCEPT_NFT_TRANSFER (its string reads as NFT_TRANSFER). */
  const txnTypes = Array.from({ length: 45 }, (_, t) => t).filter((t) => t !== 7 && t !== ACCEPT_NFT_TRANSFER);
  const anyLimit: fc.Arbitrary<TransactionSpendingLimit> = fc
    .record({
      global: count,
      unlimited: fc.boolean(),
      counts: fc.array(fc.tuple(fc.constantFrom(...txnTypes), count), { maxLength: 5 }),
      cc: fc.array(fc.tuple(pkid, fc.integer({ min: 0, max: 4 }), count), { maxLength: 3 }),
      dao: fc.array(fc.tuple(pkid, fc.integer({ min: 0, max: 6 }), count), { maxLength: 3 }),
      nft: fc.array(fc.tuple(fc.oneof(fc.constant(new Uint8Array(32)), fc.uint8Array({ minLength: 32, maxLength: 32 })), count, fc.integer({ min: 0, max: 7 }), count), { maxLength: 3 }),
      orders: fc.array(fc.tuple(pkid, pkid, count), { maxLength: 3 }),
      associations: fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.stringMatching(/^[a-z_]{0,8}$/), pkid, fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 }), count), { maxLength: 3 }),
      groups: fc.array(fc.tuple(key, fc.integer({ min: 0, max: 2 }), name, fc.integer({ min: 0, max: 3 }), count), { maxLength: 3 }),
      members: fc.array(fc.tuple(key, fc.integer({ min: 0, max: 2 }), name, fc.integer({ min: 0, max: 4 }), count), { maxLength: 3 }),
      lockups: fc.array(fc.tuple(pkid, fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 6 }), count), { maxLength: 3 }),
      stakes: fc.array(fc.tuple(pkid, fc.bigInt({ min: 0n, max: (1n << 256n) - 1n })), { maxLength: 3 }),
      unstakes: fc.array(fc.tuple(pkid, fc.bigInt({ min: 0n, max: (1n << 256n) - 1n })), { maxLength: 3 }),
      unlocks: fc.array(fc.tuple(pkid, count), { maxLength: 3 }),
    })
    .map((r) => {
      const l = emptySpendingLimit();
      l.globalDESOLimit = r.global;
      l.isUnlimited = r.unlimited;
      for (const [t, n] of r.counts) l.transactionCounts.set(t, n);
      for (const [creatorPKID, operation, n] of r.cc) setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID, operation }, n);
      for (const [creatorPKID, operation, n] of r.dao) setLimit(l.daoCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID, operation }, n);
      for (const [postHash, serialNumber, operation, n] of r.nft) setLimit(l.nftOperations, LIMIT_KEYS.nftOperation, { postHash, serialNumber, operation }, n);
      for (const [buyingCreatorPKID, sellingCreatorPKID, n] of r.orders) setLimit(l.daoCoinLimitOrders, LIMIT_KEYS.limitOrder, { buyingCreatorPKID, sellingCreatorPKID }, n);
      for (const [associationClass, type, appPKID, appScopeType, operation, n] of r.associations) {
        setLimit(l.associations, LIMIT_KEYS.association, { associationClass, associationType: new Uint8Array(Buffer.from(type)), appPKID, appScopeType, operation }, n);
      }
      for (const [ownerPublicKey, scopeType, groupKeyName, operation, n] of r.groups) setLimit(l.accessGroups, LIMIT_KEYS.accessGroup, { ownerPublicKey, scopeType, groupKeyName, operation }, n);
      for (const [ownerPublicKey, scopeType, groupKeyName, operation, n] of r.members) setLimit(l.accessGroupMembers, LIMIT_KEYS.accessGroup, { ownerPublicKey, scopeType, groupKeyName, operation }, n);
      for (const [profilePKID, scopeType, operation, n] of r.lockups) setLimit(l.lockups, LIMIT_KEYS.lockup, { profilePKID, scopeType, operation }, n);
      for (const [validatorPKID, v] of r.stakes) setLimit(l.stakes, LIMIT_KEYS.stake, { validatorPKID }, v);
      for (const [validatorPKID, v] of r.unstakes) setLimit(l.unstakes, LIMIT_KEYS.stake, { validatorPKID }, v);
      for (const [validatorPKID, n] of r.unlocks) setLimit(l.unlockStakes, LIMIT_KEYS.stake, { validatorPKID }, n);
      return l;
    });

  it(`${RUNS} random limits: the JSON the node answers reads back to the same bytes`, () => {
    fc.assert(
      fc.property(anyLimit, (l) => {
        // Amounts past 2^53 travel as decimal strings (JSON.parse would round them).
        const json: unknown = JSON.parse(JSON.stringify(transactionSpendingLimitResponse(l, NETWORK), (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)));
        assert.equal(hexOf(json), toHex(encodeSpendingLimit(l)));
      }),
      { numRuns: RUNS },
    );
  });

  it("follows core's string quirks: ACCEPT_NFT_TRANSFER counts NFT_TRANSFER, unknown strings count as type 0 and undefined operations", () => {
    const l = fromJson({
      TransactionCountLimitMap: { ACCEPT_NFT_TRANSFER: 2, NOT_A_TYPE: 3 },
      CreatorCoinOperationLimitMap: { '': { bogus: 1 } },
      DAOCoinOperationLimitMap: { '': { bogus: 1 } },
      NFTOperationLimitMap: { '': { '0': { bogus: 1 } } },
    });
    assert.deepEqual([...l.transactionCounts], [[NFT_TRANSFER, 2n], [0, 3n]]);
    assert.deepEqual([...l.creatorCoinOperations.values()].map((e) => e.key.operation), [4]);
    assert.deepEqual([...l.daoCoinOperations.values()].map((e) => e.key.operation), [6]);
    assert.deepEqual([...l.nftOperations.values()].map((e) => e.key.operation), [7]);
  });

  it('reads "" and "DESO" in limit-order pairs as the native coin, and "" creators as any', () => {
    const l = fromJson({ DAOCoinLimitOrderLimitMap: { DESO: { [b58(KEYS[0]!)]: 1 }, '': { DESO: 2 } }, CreatorCoinOperationLimitMap: { '': { any: 5 } } });
    const orders = [...l.daoCoinLimitOrders.values()].map((e) => [toHex(e.key.buyingCreatorPKID), toHex(e.key.sellingCreatorPKID), e.value]);
    assert.deepEqual(orders, [
      [toHex(ZERO), toHex(KEYS[0]!), 1n],
      [toHex(ZERO), toHex(ZERO), 2n],
    ]);
    assert.deepEqual(toHex([...l.creatorCoinOperations.values()][0]!.key.creatorPKID), toHex(ZERO));
  });

  it('lower-cases association types code point by code point, as Go (İ is i)', () => {
    const l = fromJson({ AssociationLimitMap: [{ AssociationClass: 'User', AssociationType: 'EndorSe-İ', AppScopeType: 'Any', AssociationOperation: 'Create', OpCount: 1 }] });
    const [e] = [...l.associations.values()];
    assert.equal(Buffer.from(e!.key.associationType).toString(), 'endorse-i');
    assert.deepEqual([e!.key.associationClass, e!.key.appScopeType, e!.key.operation], [1, 1, 2]);
  });

  it('pads access group names to 32 bytes and refuses longer ones', () => {
    const l = fromJson({ AccessGroupLimitMap: [{ AccessGroupOwnerPublicKeyBase58Check: b58(KEYS[0]!), ScopeType: 'Scoped', AccessGroupKeyName: 'chat', OperationType: 'Create', OpCount: 1 }] });
    const [e] = [...l.accessGroups.values()];
    assert.equal(toHex(e!.key.groupKeyName), toHex(Buffer.from('chat'.padEnd(32, '\0'))));
    refuses({ AccessGroupLimitMap: [{ AccessGroupOwnerPublicKeyBase58Check: b58(KEYS[0]!), AccessGroupKeyName: 'x'.repeat(33) }] }, /AccessGroupKeyName: expected at most 32 bytes, got 33/);
    refuses({ AccessGroupMemberLimitMap: [{ AccessGroupKeyName: 'chat' }] }, /Error getting PKID for pub key: .*AccessGroupOwnerPublicKeyBase58Check/);
  });

  it('refuses keys of another network or not on the curve without echoing them', () => {
    const mainnet = encodePublicKey(KEYS[0]!, 'mainnet');
    const m = refuses({ CreatorCoinOperationLimitMap: { [mainnet]: { buy: 1 } } }, /^Error getting PKID for pub key: /);
    assert.ok(!m.includes(mainnet), m);
    const notAKey = 'tBCnotAPublicKeyButMaybeASecret0000000000000000000000';
    const m2 = refuses({ StakeLimitMap: [{ ValidatorPublicKeyBase58Check: notAKey, StakeLimit: '0x1' }] }, /^Error getting PKID for pub key: /);
    assert.ok(!m2.includes(notAKey), m2);
  });

  it('refuses a bad NFT post hash or serial number, a missing stake limit, and more than MAX_LIMIT_ENTRIES entries', () => {
    refuses({ NFTOperationLimitMap: { abcd: { '1': { any: 1 } } } }, /Error parsing post hash/);
    refuses({ NFTOperationLimitMap: { '': { x: { any: 1 } } } }, /serial number keys are unsigned 64-bit decimal integers/);
    refuses({ NFTOperationLimitMap: { '': { '18446744073709551616': { any: 1 } } } }, /serial number keys/);
    refuses({ StakeLimitMap: [{ ValidatorPublicKeyBase58Check: '' }] }, /StakeLimit: is required/);
    refuses({ StakeLimitMap: [{ StakeLimit: `0x1${'0'.repeat(64)}` }] }, /an unsigned 256-bit integer/);
    // Each map is bounded by its schema; the total over every map by the reader.
    const half = Object.fromEntries(Array.from({ length: MAX_LIMIT_ENTRIES / 2 + 1 }, (_, i) => [`T${i}`, 1]));
    refuses({ TransactionCountLimitMap: half, CreatorCoinOperationLimitMap: { '': half } }, new RegExp(`more than ${MAX_LIMIT_ENTRIES} limit entries`));
  });

  it('reads a stake limit as a number, a decimal string or 0x hex', () => {
    for (const StakeLimit of [255, '255', '0xff', '0XFF']) {
      const [e] = [...fromJson({ StakeLimitMap: [{ StakeLimit }] }).stakes.values()];
      assert.equal(e!.value, 255n, String(StakeLimit));
    }
  });
});

describe('metamaskAccessBytes (core ToMetamaskString)', () => {
  it('writes core’s text byte for byte: headings, tabs, sorted blocks, Any, empty Unknown operations, Unlimited last', () => {
    const l = emptySpendingLimit();
    l.globalDESOLimit = 1_500_000_000n;
    l.transactionCounts.set(TxnType.BASIC_TRANSFER, 2n);
    l.transactionCounts.set(TxnType.AUTHORIZE_DERIVED_KEY, 1n);
    // Added in reverse order of their text: the output is sorted.
    setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: KEYS[1]!, operation: 2 }, 4n);
    setLimit(l.creatorCoinOperations, LIMIT_KEYS.coinOperation, { creatorPKID: KEYS[0]!, operation: 1 }, 3n);
    setLimit(l.accessGroups, LIMIT_KEYS.accessGroup, { ownerPublicKey: KEYS[2]!, scopeType: 0, groupKeyName: new Uint8Array(32), operation: 0 }, 1n);
    setLimit(l.associations, LIMIT_KEYS.association, { associationClass: 2, associationType: Buffer.from('reaction'), appPKID: KEYS[0]!, appScopeType: 2, operation: 1 }, 7n);
    setLimit(l.stakes, LIMIT_KEYS.stake, { validatorPKID: ZERO }, 125_000_000n);
    l.isUnlimited = true;
    const derived = KEYS[2]!;
    const [first, second] = [KEYS[0]!, KEYS[1]!].map(b58).sort();
    const ccBlock = (pk: string): string => {
      const [op, n] = pk === b58(KEYS[0]!) ? ['buy', 3] : ['sell', 4];
      return `\t\t[\n\t\t\tCreator PKID: ${pk}\n\t\t\tOperation: ${op}\n\t\t\tTransaction Count: ${n}\n\t\t]\n`;
    };
    const expected =
      'DECENTRALIZED SOCIAL\n\n' +
      `Your derived public key: ${b58(derived)}\n\n` +
      'The expiration block of your key: 1000\n\n' +
      'Spending limits on the derived key:\n' +
      '\tTotal $DESO Limit: 1.5 $DESO\n' +
      '\tTransaction Count Limit: \n\t\tAUTHORIZE_DERIVED_KEY: 1\n\t\tBASIC_TRANSFER: 2\n' +
      `\tCreator Coin Operation Limits:\n${ccBlock(first!)}${ccBlock(second!)}` +
      `\tAssociation Restrictions:\n\t\t[\n\t\t\tAssociation Class: Post\n\t\t\tAssociation Type: REACTION\n\t\t\tApp PKID: ${b58(KEYS[0]!)}\n\t\t\tOperation: Any\n\t\t\tTransaction Count: 7\n\t\t]\n` +
      `\tAccess Group Restrictions:\n\t\t[\n\t\t\tAccess Group Owner Public Key: ${b58(KEYS[2]!)}\n\t\t\tAccess Group Key Name: Any\n\t\t\tAccess Group Operation: \n\t\t\tTransaction Count: 1\n\t\t]\n` +
      '\tStaking Restrictions:\n\t\t[\n\t\t\tValidator PKID: Any\n\t\t\tStaking Limit: 0.12 $DESO\n\t\t]\n' +
      'Unlimited';
    assert.equal(Buffer.from(metamaskAccessBytes(derived, 1000n, l, NETWORK)).toString('utf8'), expected);
  });

  it('writes the zero PKID in Base58Check where core does, and an empty limit as the heading alone', () => {
    const l = emptySpendingLimit();
    setLimit(l.daoCoinLimitOrders, LIMIT_KEYS.limitOrder, { buyingCreatorPKID: ZERO, sellingCreatorPKID: KEYS[0]! }, 1n);
    const text = Buffer.from(metamaskAccessBytes(KEYS[1]!, 5n, l, NETWORK)).toString();
    assert.ok(text.includes(`\t\t\tBuying DAO Creator PKID: ${b58(ZERO)}\n`), text);
    assert.ok(Buffer.from(metamaskAccessBytes(KEYS[1]!, 5n, emptySpendingLimit(), NETWORK)).toString().endsWith('key: 5\n\nSpending limits on the derived key:\n'));
  });

  it("formats DESO amounts as core: FormatScaledUint256AsDecimalString, and Go's %.2f of a 53-bit float (ties to even)", () => {
    assert.deepEqual([1_500_000_000n, 2_000_000_000n, 10_000_000n, 1n, 0n].map(scaledDecimal), ['1.5', '2.0', '0.01', '0.000000001', '0.0']);
    // 0.125 and 0.375 are exact binary ties (JS toFixed would give 0.13 and 0.38); 0.005 is just above its tie.
    assert.deepEqual([125_000_000n, 375_000_000n, 5_000_000n, 0n, 1_234_567_890n, 10n ** 30n].map(desoTwoDecimals), ['0.12', '0.38', '0.01', '0.00', '1.23', '1000000000000000000000.00']);
    assert.match(desoTwoDecimals((1n << 256n) - 1n), /^\d{69}\.00$/);
  });
});
