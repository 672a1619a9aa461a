/**
 * Rules of SWAP_IDENTITY, as core's `_connectSwapIdentity` (deso-protocol/core
 * lib/block_view_swap_identity.go): a param updater swaps the identities of two public keys.
 *
 * Core swaps the two keys' PKIDs, so everything core keys by PKID changes hands while what it
 * keys by public key stays. This chain keys its state by public key, so the connect moves the
 * PKID-keyed state itself, From ↔ To:
 *
 * - the profiles (username, description, picture, creator-coin totals; usernames re-indexed);
 * - creator-coin holdings, in both roles (coins the key holds, holdings of the key's coin);
 * - the DAO coin entry and DAO coin balances, in both roles;
 * - follows, in both roles (state/follows.ts swapFollows).
 *
 * Unchanged, as in core (keyed by public key there too): native balances, nonces, posts,
 * likes, reposts, derived keys, access groups and messages.
 *
 * Not moved although core's PKID swap would move them (this chain has no index to find them
 * all; see the route module's report):
 * - open DAO coin limit orders (by transactor, and orders naming either key's coin);
 * - creator-coin holding records whose balance is zero (kept out of the holder indexes; they
 *   only decide "no balance entry" vs "insufficient coins" on a later sell);
 * - node-side data keyed by public key (verification badges, referral codes, user metadata).
 * - diamonds (state/diamonds.ts): core's entries name sender and receiver by PKID, so a swap
 *   hands them to the other key; here they stay with the public keys, beside the posts they
 *   point at (which stay with their public keys in core too).
 *
 * Checks, in core's order: param updater (`RuleErrorSwapIdentityIsParamUpdaterOnly`), non-zero
 * input (fee + outputs, `RuleErrorProfileUpdateRequiresNonZeroInput`), From then To a 33-byte
 * key (`RuleErrorFromPublicKeyIsRequired` / `RuleErrorToPublicKeyIsRequired`) on the curve
 * (`RuleErrorInvalidFromPublicKey` / `RuleErrorInvalidToPublicKey`). From = To swaps nothing.
 * @module
 */
import { toHex, fromHex } from '../../hex.js';
import { isValidCompressedPoint } from '../../keys/index.js';
import { creatorCoinKeys, getHolding, putHolding, type HoldingRecord } from '../state/creatorCoins.js';
import { daoCoinKeys, getDAOCoinBalance, setDAOCoinBalance, type DAOCoinEntry } from '../state/daoCoins.js';
import { swapFollows } from '../state/follows.js';
import { getProfile, lockedMember, profileKeys, putProfile } from '../state/profiles.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { decodeMetadata, TxnType, type SwapIdentityMetadata } from '../txn/metadata.js';
import type { ConnectContext } from './connect.js';
import { RuleError } from './errors.js';
import { isParamUpdaterOf } from './globalParams.js';
import type { HandlerEntry } from './handlers.js';

/** The swap as a mapping of public keys (hex): a ↔ b, everything else fixed. */
function swapper(a: Uint8Array, b: Uint8Array): (pk: Uint8Array) => Uint8Array {
  const [ah, bh] = [toHex(a), toHex(b)];
  return (pk) => {
    const h = toHex(pk);
    return h === ah ? b : h === bh ? a : pk;
  };
}

/** The two profiles change keys; usernames and the by-value index follow. */
async function swapProfiles(view: StateView, a: Uint8Array, b: Uint8Array): Promise<void> {
  const [pa, pb] = [await getProfile(view, a), await getProfile(view, b)];
  // Unindex both first, then index both under their new keys: the two usernames trade
  // owners, which one-by-one updates would briefly give to both keys.
  for (const p of [pa, pb]) {
    if (p === undefined) continue;
    const name = p.username.toLowerCase();
    view.delete(profileKeys.byPublicKey(p.publicKey));
    view.delete(profileKeys.byUsername(name));
    view.indexRemove(profileKeys.usernameIndex, [name]);
    view.indexRemove(profileKeys.lockedIndex, [lockedMember(p)]);
  }
  if (pa !== undefined) putProfile(view, { ...pa, publicKey: b }, undefined);
  if (pb !== undefined) putProfile(view, { ...pb, publicKey: a }, undefined);
}

/** Distinct (holder, creator) pairs, as hex, from index listings. */
function pairs(list: Array<[string, string]>): Array<[Uint8Array, Uint8Array]> {
  const seen = new Map<string, [Uint8Array, Uint8Array]>();
  for (const [h, c] of list) seen.set(`${h}:${c}`, [fromHex(h), fromHex(c)]);
  return [...seen.values()];
}

/** Every non-zero holding where `pk` is the holder or the creator, per the two indexes. */
async function holdingPairs(view: StateView, keys: { holders: (c: Uint8Array) => string; holdings: (h: Uint8Array) => string }, pks: Uint8Array[]): Promise<Array<[Uint8Array, Uint8Array]>> {
  const out: Array<[string, string]> = [];
  for (const pk of pks) {
    const h = toHex(pk);
    for (const creator of await view.indexRange(keys.holdings(pk))) out.push([h, creator]);
    for (const holder of await view.indexRange(keys.holders(pk))) out.push([holder, h]);
  }
  return pairs(out);
}

async function swapCreatorCoinHoldings(view: StateView, a: Uint8Array, b: Uint8Array): Promise<void> {
  const map = swapper(a, b);
  const found = await holdingPairs(view, creatorCoinKeys, [a, b]);
  const records: Array<[Uint8Array, Uint8Array, HoldingRecord]> = [];
  for (const [holder, creator] of found) {
    const rec = await getHolding(view, holder, creator);
    if (rec !== undefined) records.push([holder, creator, rec]);
  }
  // Remove every entry, then write each under its swapped (holder, creator).
  for (const [holder, creator, rec] of records) {
    putHolding(view, holder, creator, { balanceNanos: 0n, hasPurchased: false }, rec);
    view.delete(creatorCoinKeys.balance(holder, creator));
  }
  for (const [holder, creator, rec] of records) putHolding(view, map(holder), map(creator), rec, undefined);
}

async function swapDAOCoins(view: StateView, a: Uint8Array, b: Uint8Array): Promise<void> {
  const map = swapper(a, b);
  const [ea, eb] = [await view.get<DAOCoinEntry>(daoCoinKeys.entry(a)), await view.get<DAOCoinEntry>(daoCoinKeys.entry(b))];
  for (const [pk, entry] of [[b, ea], [a, eb]] as const) {
    if (entry === undefined) view.delete(daoCoinKeys.entry(pk));
    else view.set(daoCoinKeys.entry(pk), { ...entry });
  }
  const found = await holdingPairs(view, daoCoinKeys, [a, b]);
  const balances: Array<[Uint8Array, Uint8Array, bigint]> = [];
  for (const [holder, creator] of found) balances.push([holder, creator, await getDAOCoinBalance(view, holder, creator)]);
  for (const [holder, creator] of balances) await setDAOCoinBalance(view, holder, creator, 0n);
  for (const [holder, creator, amount] of balances) if (amount > 0n) await setDAOCoinBalance(view, map(holder), map(creator), amount);
}

/** Moves the PKID-keyed state of `a` to `b` and back (see the module comment). */
export async function swapIdentities(view: StateView, a: Uint8Array, b: Uint8Array): Promise<void> {
  if (Buffer.compare(a, b) === 0) return;
  await swapProfiles(view, a, b);
  await swapCreatorCoinHoldings(view, a, b);
  await swapDAOCoins(view, a, b);
  await swapFollows(view, a, b);
}

function checkKey(pk: Uint8Array, which: 'From' | 'To'): void {
  if (pk.length !== 33) throw new RuleError(`RuleError${which}PublicKeyIsRequired`, `${which}PublicKey has ${pk.length} bytes, expected 33`);
  if (!isValidCompressedPoint(pk)) throw new RuleError(`RuleErrorInvalid${which}PublicKey`, `${which}PublicKey is not a secp256k1 point`);
}

async function connectSwapIdentity(view: StateView, txn: TxnEnvelope, _info: unknown, ctx: ConnectContext): Promise<void> {
  const m = decodeMetadata(txn.txnType, txn.metadata) as SwapIdentityMetadata;
  if (!isParamUpdaterOf(ctx.rules, txn.publicKey)) {
    throw new RuleError('RuleErrorSwapIdentityIsParamUpdaterOnly', `${toHex(txn.publicKey)} is not a param updater of this chain`);
  }
  // Core forces a non-zero input against replays; in the balance model that is fee + outputs.
  const input = (txn.v1?.feeNanos ?? 0n) + txn.outputs.reduce((sum, o) => sum + o.amountNanos, 0n);
  if (input === 0n) throw new RuleError('RuleErrorProfileUpdateRequiresNonZeroInput', 'a swap must pay a fee or an output');
  checkKey(m.fromPublicKey, 'From');
  checkKey(m.toPublicKey, 'To');
  await swapIdentities(view, m.fromPublicKey, m.toPublicKey);
}

export const swapIdentityHandlers: readonly HandlerEntry[] = [[TxnType.SWAP_IDENTITY, connectSwapIdentity]];
