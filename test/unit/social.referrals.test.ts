/**
 * Referral codes over the memory store: creation, term updates, and recordReferralSignup's
 * checks and compare-and-set under concurrent sign-ups and updates (spec §2.8, §8 MaxReferrals).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MemoryStore } from '../../server/store/index.js';
import {
  createReferral,
  getReferral,
  isReferralHashText,
  newReferralHash,
  recordReferralSignup,
  refereesOf,
  referralInfoJson,
  referralsOf,
  referredBy,
  updateReferralTerms,
  type ReferralRecord,
  type ReferralTerms,
} from '../../server/social/referrals.js';

/** The store hands byte arrays back as Buffers; compare records with plain Uint8Arrays. */
const norm = (r: ReferralRecord | undefined): unknown => r && { ...r, referrer: new Uint8Array(r.referrer) };
const pk = (): Uint8Array => new Uint8Array([2, ...randomBytes(32)]);
const TERMS: ReferralTerms = { referrerAmountUSDCents: 100, refereeAmountUSDCents: 50, maxReferrals: 0n, requiresIdVerification: false };

let store: MemoryStore;
beforeEach(() => {
  store = new MemoryStore();
});
afterEach(async () => {
  await store.close();
});

describe('newReferralHash', () => {
  it('draws 8 Base58 characters, different each time', () => {
    const seen = new Set(Array.from({ length: 200 }, newReferralHash));
    assert.equal(seen.size, 200, 'no repeats in 200 draws');
    for (const h of seen) assert.ok(isReferralHashText(h) && h.length === 8, `${h} is 8 Base58 characters`);
  });

  it('isReferralHashText refuses what could not be a code', () => {
    for (const bad of ['', '0OIl', 'a:b', '../x', 'x'.repeat(65)]) assert.equal(isReferralHashText(bad), false, JSON.stringify(bad));
  });
});

describe('createReferral', () => {
  it('stores an active code, listed for its referrer', async () => {
    const referrer = pk();
    const r = await createReferral(store, referrer, TERMS, { nowNanos: 123n });
    assert.equal(r.isActive, true);
    assert.equal(r.totalReferrals, 0n);
    assert.deepEqual(norm(await getReferral(store, r.hash)), norm(r));
    assert.deepEqual((await referralsOf(store, referrer)).map((x) => x.hash), [r.hash]);
    assert.equal(referralInfoJson(r)['DateCreatedTStampNanos'], 123n);
  });

  it('draws again when a hash is taken', async () => {
    const hashes = ['AAAAAAAA', 'AAAAAAAA', 'BBBBBBBB'];
    const first = await createReferral(store, pk(), TERMS, { hash: () => hashes.shift()! });
    const second = await createReferral(store, pk(), TERMS, { hash: () => hashes.shift()! });
    assert.deepEqual([first.hash, second.hash], ['AAAAAAAA', 'BBBBBBBB']);
  });
});

describe('recordReferralSignup', () => {
  it('counts a sign-up, lists the referee and marks the user', async () => {
    const r = await createReferral(store, pk(), TERMS);
    const user = pk();
    const out = await recordReferralSignup(store, r.hash, user, { nowNanos: 9n });
    assert.ok(out.ok, 'counted');
    assert.equal(out.referral.totalReferrals, 1n);
    assert.deepEqual(await refereesOf(store, r.hash), [user]);
    assert.deepEqual(await referredBy(store, user), { hash: r.hash, atNanos: 9n });
  });

  const refusals: Array<[string, (h: string, referrer: Uint8Array) => Promise<{ hash: string; user: Uint8Array }>, string]> = [
    ['an unknown code', async () => ({ hash: 'zzzzzzzz', user: pk() }), 'UNKNOWN_REFERRAL_HASH'],
    ['text that is not a code', async () => ({ hash: 'a:b', user: pk() }), 'UNKNOWN_REFERRAL_HASH'],
    ['an inactive code', async (h) => (await updateReferralTerms(store, h, { isActive: false }), { hash: h, user: pk() }), 'REFERRAL_INACTIVE'],
    ['the referrer itself', async (h, referrer) => ({ hash: h, user: referrer }), 'SELF_REFERRAL'],
    [
      'a user referred before',
      async (h) => {
        const user = pk();
        assert.ok((await recordReferralSignup(store, h, user)).ok, 'first sign-up counts');
        return { hash: h, user };
      },
      'ALREADY_REFERRED',
    ],
    [
      'a full code',
      async (h) => {
        await updateReferralTerms(store, h, { maxReferrals: 1n });
        assert.ok((await recordReferralSignup(store, h, pk())).ok, 'first sign-up counts');
        return { hash: h, user: pk() };
      },
      'MAX_REFERRALS_REACHED',
    ],
  ];
  for (const [name, arrange, reason] of refusals) {
    it(`refuses ${name} (${reason}) and writes nothing`, async () => {
      const referrer = pk();
      const r = await createReferral(store, referrer, TERMS);
      const { hash, user } = await arrange(r.hash, referrer);
      const before = await getReferral(store, r.hash);
      assert.deepEqual(await recordReferralSignup(store, hash, user), { ok: false, reason });
      assert.deepEqual(await getReferral(store, r.hash), before, 'the code is unchanged');
    });
  }

  it('MaxReferrals 0 is unlimited', async () => {
    const r = await createReferral(store, pk(), TERMS);
    for (let i = 0; i < 30; i++) assert.ok((await recordReferralSignup(store, r.hash, pk())).ok, `sign-up ${i}`);
    assert.equal((await getReferral(store, r.hash))?.totalReferrals, 30n);
  });

  it('concurrent sign-ups never pass MaxReferrals and each counts once', async () => {
    const r = await createReferral(store, pk(), { ...TERMS, maxReferrals: 5n });
    const users = Array.from({ length: 20 }, pk);
    const results = await Promise.all(users.map((u) => recordReferralSignup(store, r.hash, u)));
    assert.equal(results.filter((x) => x.ok).length, 5);
    assert.ok(results.every((x) => x.ok || x.reason === 'MAX_REFERRALS_REACHED'), 'the rest are refused as full');
    assert.equal((await getReferral(store, r.hash))?.totalReferrals, 5n);
    assert.equal((await refereesOf(store, r.hash)).length, 5);
  });

  it('the same user signing up twice at once counts once', async () => {
    const r = await createReferral(store, pk(), TERMS);
    const user = pk();
    const results = await Promise.all([recordReferralSignup(store, r.hash, user), recordReferralSignup(store, r.hash, user)]);
    assert.deepEqual(results.map((x) => x.ok).sort(), [false, true]);
    assert.equal((await getReferral(store, r.hash))?.totalReferrals, 1n);
  });

  it('an admin update at the same time as sign-ups loses neither', async () => {
    const r = await createReferral(store, pk(), TERMS);
    await Promise.all([
      ...Array.from({ length: 10 }, () => recordReferralSignup(store, r.hash, pk())),
      updateReferralTerms(store, r.hash, { refereeAmountUSDCents: 999 }),
    ]);
    const after = await getReferral(store, r.hash);
    assert.equal(after?.totalReferrals, 10n);
    assert.equal(after?.refereeAmountUSDCents, 999);
  });
});

describe('updateReferralTerms', () => {
  it('changes only the given fields; undefined for an unknown code', async () => {
    const r = await createReferral(store, pk(), TERMS);
    const next = await updateReferralTerms(store, r.hash, { maxReferrals: 3n, isActive: false, referrerAmountUSDCents: undefined });
    assert.deepEqual(norm(next), norm({ ...r, maxReferrals: 3n, isActive: false }));
    assert.equal(await updateReferralTerms(store, 'zzzzzzzz', { isActive: true }), undefined);
  });
});
