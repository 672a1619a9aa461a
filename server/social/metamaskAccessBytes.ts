/**
 * Access Bytes Encoding 2.0: the derived key, its expiration block and its spending limit as
 * text a MetaMask wallet can sign (core lib/block_view_derived_key.go
 * AssembleAccessBytesWithMetamaskStrings, lib/network.go TransactionSpendingLimit.ToMetamaskString).
 * get-access-bytes answers it as `AccessBytesHex`; the SDK signs the binary access bytes
 * instead (identity-and-crypto §5.5), so this is for wallets that sign text.
 *
 * The text must be core's byte for byte (core verifies a signature over it by rebuilding it),
 * so it follows core's quirks: PKIDs (the zero one too) in Base58Check, every map's entries
 * sorted as whole text blocks by their bytes, stake amounts as Go's `%.2f` of a 53-bit float.
 * @module
 */
import { encodePublicKey, type Network } from '../keys/index.js';
import { toHex } from '../hex.js';
import type { LimitMap, TransactionSpendingLimit } from '../chain/txn/spendingLimit.js';
import {
  ACCESS_GROUP_MEMBER_OPS,
  ACCESS_GROUP_OPS,
  ASSOCIATION_CLASSES,
  ASSOCIATION_OPS,
  CREATOR_COIN_OPS,
  DAO_COIN_OPS,
  LOCKUP_OPS,
  LOCKUP_SCOPES,
  NFT_OPS,
  txnString,
} from './spendingLimitResponse.js';

const NANOS_PER_UNIT = 1_000_000_000n;
/** AssociationAppScopeTypeScoped: only then is the app key shown. */
const APP_SCOPE_SCOPED = 2;
/** AccessGroupScopeTypeAny: the name is shown as "Any". */
const ACCESS_GROUP_SCOPE_ANY = 0;

/** The bytes a MetaMask wallet signs to authorize `derived` (core AssembleAccessBytesWithMetamaskStrings). */
export function metamaskAccessBytes(derived: Uint8Array, expirationBlock: bigint, limit: TransactionSpendingLimit, network: Network): Uint8Array {
  const text =
    'DECENTRALIZED SOCIAL\n\n' +
    `Your derived public key: ${encodePublicKey(derived, network)}\n\n` +
    `The expiration block of your key: ${expirationBlock}\n\n` +
    spendingLimitMetamaskText(limit, network);
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/** Core's TransactionSpendingLimit.ToMetamaskString. */
export function spendingLimitMetamaskText(l: TransactionSpendingLimit, network: Network): string {
  const b58 = (pkid: Uint8Array): string => encodePublicKey(pkid, network);
  const tabs = (n: number): string => '\t'.repeat(n);
  /** One bracketed block per entry at depth 2, its lines at depth 3. */
  const block = (lines: string[]): string => `${tabs(2)}[\n${lines.map((x) => `${tabs(3)}${x}\n`).join('')}${tabs(2)}]\n`;
  /** A map's heading at depth 1 and its entries' text, sorted bytewise as Go's sort.Strings. */
  const section = (heading: string, entries: string[]): string => (entries.length === 0 ? '' : `${tabs(1)}${heading}\n${sortBytewise(entries).join('')}`);
  const blocks = <K, V>(m: LimitMap<K, V>, lines: (key: K, value: V) => string[]): string[] => [...m.values()].map((e) => block(lines(e.key, e.value)));

  let s = 'Spending limits on the derived key:\n';
  if (l.globalDESOLimit > 0n) s += `${tabs(1)}Total $DESO Limit: ${scaledDecimal(l.globalDESOLimit)} $DESO\n`;
  // Core's heading has a space before the newline.
  s += section('Transaction Count Limit: ', [...l.transactionCounts].map(([t, n]) => `${tabs(2)}${txnTypeText(t)}: ${n}\n`));
  s += section(
    'Creator Coin Operation Limits:',
    blocks(l.creatorCoinOperations, (k, n) => [`Creator PKID: ${b58(k.creatorPKID)}`, `Operation: ${CREATOR_COIN_OPS[k.operation] ?? 'undefined'}`, `Transaction Count: ${n}`]),
  );
  s += section(
    'DAO Coin Operation Limits:',
    blocks(l.daoCoinOperations, (k, n) => [`Creator PKID: ${b58(k.creatorPKID)}`, `Operation: ${DAO_COIN_OPS[k.operation] ?? 'undefined'}`, `Transaction Count: ${n}`]),
  );
  s += section(
    'NFT Operation Limits:',
    blocks(l.nftOperations, (k, n) => [`Block Hash: ${toHex(k.postHash)}`, `Serial Number: ${k.serialNumber}`, `Operation: ${NFT_OPS[k.operation] ?? 'undefined'}`, `Transaction Count: ${n}`]),
  );
  s += section(
    'DAO Coin Limit Order Restrictions:',
    blocks(l.daoCoinLimitOrders, (k, n) => [`Buying DAO Creator PKID: ${b58(k.buyingCreatorPKID)}`, `Selling DAO Creator PKID: ${b58(k.sellingCreatorPKID)}`, `Transaction Count: ${n}`]),
  );
  s += section(
    'Association Restrictions:',
    blocks(l.associations, (k, n) => {
      const type = goUpper(Buffer.from(k.associationType).toString('utf8'));
      return [
        `Association Class: ${ASSOCIATION_CLASSES[k.associationClass] ?? 'Undefined'}`,
        `Association Type: ${type === '' ? 'Any' : type}`,
        `App PKID: ${k.appScopeType === APP_SCOPE_SCOPED ? b58(k.appPKID) : 'Any'}`,
        `Operation: ${ASSOCIATION_OPS[k.operation] ?? 'Undefined'}`,
        `Transaction Count: ${n}`,
      ];
    }),
  );
  const group = (ops: readonly string[], opLabel: string) => (k: { ownerPublicKey: Uint8Array; scopeType: number; groupKeyName: Uint8Array; operation: number }, n: bigint) => [
    `Access Group Owner Public Key: ${b58(k.ownerPublicKey)}`,
    `Access Group Key Name: ${k.scopeType === ACCESS_GROUP_SCOPE_ANY ? 'Any' : groupKeyNameText(k.groupKeyName)}`,
    // Core's ToString of these two enums is "" for Unknown (0), "Unknown" past the last value.
    `${opLabel}: ${k.operation === 0 ? '' : (ops[k.operation] ?? 'Unknown')}`,
    `Transaction Count: ${n}`,
  ];
  s += section('Access Group Restrictions:', blocks(l.accessGroups, group(ACCESS_GROUP_OPS, 'Access Group Operation')));
  s += section('Access Group Member Restrictions:', blocks(l.accessGroupMembers, group(ACCESS_GROUP_MEMBER_OPS, 'Access Group Member Operation Type')));
  s += section(
    'Lockup Restrictions:',
    blocks(l.lockups, (k, n) => [
      `Lockup Profile PKID: ${b58(k.profilePKID)}`,
      `Lockup Scope: ${LOCKUP_SCOPES[k.scopeType] ?? 'Undefined'}`,
      `Lockup Operation: ${LOCKUP_OPS[k.operation] ?? 'Undefined'}`,
      `Transaction Count: ${n}`,
    ]),
  );
  const validator = (pkid: Uint8Array): string => `Validator PKID: ${pkid.every((b) => b === 0) ? 'Any' : b58(pkid)}`;
  s += section('Staking Restrictions:', blocks(l.stakes, (k, nanos) => [validator(k.validatorPKID), `Staking Limit: ${desoTwoDecimals(nanos ?? 0n)} $DESO`]));
  s += section('Unstaking Restrictions:', blocks(l.unstakes, (k, nanos) => [validator(k.validatorPKID), `Unstaking Limit: ${desoTwoDecimals(nanos ?? 0n)} $DESO`]));
  s += section('Unlocking Stake Restrictions:', blocks(l.unlockStakes, (k, n) => [validator(k.validatorPKID), `Transaction Count: ${n}`]));
  if (l.isUnlimited) s += 'Unlimited';
  return s;
}

/** Core's TxnType.String(). */
function txnTypeText(t: number): string {
  const s = txnString(t);
  return s === 'TXN_UNDEFINED' ? `UNRECOGNIZED(${t}) - make sure GetTxnString() is up to date` : s;
}

function sortBytewise(strings: string[]): string[] {
  return strings
    .map((s) => ({ s, b: Buffer.from(s, 'utf8') }))
    .sort((a, b) => Buffer.compare(a.b, b.b))
    .map((x) => x.s);
}

/** Core's FormatScaledUint256AsDecimalString(nanos, 1e9): "1.5", "0.01", and "2.0" when whole. */
export function scaledDecimal(nanos: bigint): string {
  const whole = nanos / NANOS_PER_UNIT;
  const frac = nanos % NANOS_PER_UNIT;
  return frac === 0n ? `${whole}.0` : `${whole}.${frac.toString().padStart(9, '0').replace(/0+$/, '')}`;
}

/**
 * Go's `%.2f` of NewFloat().Quo(nanos, 1e9) at 53 bits, round-to-nearest-even: the quotient is
 * the IEEE double JS computes, printed from its exact binary value with ties to even (JS's
 * toFixed breaks ties upward and switches to exponents past 1e21).
 */
export function desoTwoDecimals(nanos: bigint): string {
  const x = Number(nanos) / 1e9;
  const bits = new DataView(new Float64Array([x]).buffer).getBigUint64(0, true);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  // x = mantissa · 2^exponent exactly.
  const mantissa = exponentBits === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (exponentBits === 0 ? 1 : exponentBits) - 1075;
  let hundredths: bigint;
  if (exponent >= 0) hundredths = (mantissa * 100n) << BigInt(exponent);
  else {
    const num = mantissa * 100n;
    const den = 1n << BigInt(-exponent);
    hundredths = num / den;
    const twice = 2n * (num % den);
    if (twice > den || (twice === den && hundredths % 2n === 1n)) hundredths += 1n;
  }
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

/** Core's AccessKeyNameDecode: the name without its zero padding ("" when all zero). */
function groupKeyNameText(name: Uint8Array): string {
  let end = name.length;
  while (end > 1 && name[end - 1] === 0) end--;
  if (end === 1 && name[0] === 0) end = 0;
  return Buffer.from(name.subarray(0, end)).toString('utf8');
}

/**
 * Go's strings.ToUpper: each code point by its simple mapping. JS gives full mappings (ß → SS);
 * a code point whose JS upper case is several is left as is, which is Go's answer for ß and
 * the like (a few Greek letters with iota subscripts differ; association types are app names).
 */
function goUpper(s: string): string {
  return Array.from(s, (ch) => {
    const up = Array.from(ch.toUpperCase());
    return up.length === 1 ? up[0]! : ch;
  }).join('');
}
