/**
 * Referral routes (spec §2.8, §3 "Referral code", §4.6; reference node-api.md §2.5) and the
 * super-admin routes that manage codes, end to end, once on a memory-store node and once on a
 * Redis-backed node. Profiles are real update-profile transactions; sign-ups with a code go
 * through update-user-global-metadata's `ReferralHashBase58` (recordReferralSignup underneath);
 * everything else is HTTP. One table of cases per route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordReferralSignup } from '../../server/social/referrals.js';
import { keyPair, profileBody, startChainNode, type ChainNode, type J, type KeyPair, TEST_STORES } from '../helpers/chainNode.js';
import { routeTable, type RouteCase } from '../helpers/routeTable.js';
import { sdkJwt as jwt } from '../helpers/adminBody.js';

// The SDK signs with the browser's window.crypto / btoa; Node has both on globalThis.
(globalThis as { window?: unknown }).window ??= globalThis;

const FEE = { MinFeeRateNanosPerKB: 1000 };

/** Spec §2.8 Info fields. */
const INFO_FIELDS = [
  'DateCreatedTStampNanos',
  'MaxReferrals',
  'NumIdVerificationAttempts',
  'NumIdVerificationSuccesses',
  'ReferralHashBase58',
  'ReferreeAmountUSDCents',
  'ReferrerAmountUSDCents',
  'ReferrerPKID',
  'RequiresIdVerification',
  'TotalRefereeNativeNanos',
  'TotalRefererrerNativeNanos',
  'TotalReferrals',
];

const superAdmin = keyPair();
const admin = keyPair();
const outsider = keyPair();

interface Ctx {
  n: ChainNode;
  referrer: KeyPair;
  referrerName: string;
  /** Users who signed up with `capped` (MaxReferrals 2): the first two have profiles. */
  referees: KeyPair[];
  refereeNames: string[];
  /** MaxReferrals 2, created by public key, reached. */
  capped: string;
  /** MaxReferrals 0 (unlimited), created by username. */
  open: string;
}

const asAdmin = async (k: KeyPair, body: J): Promise<J> => ({ AdminPublicKey: k.pk, JWT: await jwt(k), ...body });
/** A user's sign-up with a referral code (JWT of `signer`, default the user). */
const signupBody = async (k: KeyPair, code: string, signer: KeyPair = k): Promise<J> => ({ UserPublicKeyBase58Check: k.pk, JWT: await jwt(signer), ReferralHashBase58: code });

async function createProfile(n: ChainNode, k: KeyPair, username: string): Promise<void> {
  await n.fund(k.pk, 0.1 * 1e9);
  const c = await n.ok('update-profile', { ...FEE, ...profileBody(k.pk, username) });
  await n.submit(c['TransactionHex'] as string, k, 'sdk');
}

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36);
  const referrer = keyPair();
  const referrerName = `rr${tag}`;
  const referees = [keyPair(), keyPair(), keyPair()];
  const refereeNames = [`re0${tag}`, `re1${tag}`];
  await createProfile(n, referrer, referrerName);
  const created = await n.ok(
    'admin/create-referral-hash',
    await asAdmin(superAdmin, { UserPublicKeyBase58Check: referrer.pk, ReferrerAmountUSDCents: 500, RefereeAmountUSDCents: 300, MaxReferrals: 2, RequiresJumio: false }),
  );
  const capped = created['ReferralInfoResponse']['Info']['ReferralHashBase58'] as string;
  const open = (await n.ok('admin/create-referral-hash', await asAdmin(superAdmin, { Username: referrerName, ReferreeAmountUSDCents: 100 })))['ReferralInfoResponse']['Info']['ReferralHashBase58'] as string;
  // Two users sign up with the capped code (their first profile, then the code through
  // update-user-global-metadata, as a frontend's sign-up flow sends it), which fills it.
  for (const [i, name] of refereeNames.entries()) {
    await createProfile(n, referees[i]!, name);
    await n.ok('update-user-global-metadata', await signupBody(referees[i]!, capped));
  }
  return { n, referrer, referrerName, referees, refereeNames, capped, open };
}

type Case = RouteCase<Ctx>;

const table = routeTable<Ctx>();

const byHash = (r: J, hash: string): J => {
  const found = (r['ReferralInfoResponses'] as J[]).find((x) => x['Info']['ReferralHashBase58'] === hash);
  assert.ok(found, `code ${hash} is listed`);
  return found;
};
const userBody = async (k: KeyPair, signer: KeyPair = k): Promise<J> => ({ PublicKeyBase58Check: k.pk, JWT: await jwt(signer) });

function suite(store: 'memory' | 'redis'): void {
  describe(`referrals (${store} store)`, () => {
    let c: Ctx | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the setup ran');
      return c;
    };

    before(async () => {
      const args = ['--super-admin-public-keys', superAdmin.pk, '--admin-public-keys', admin.pk];
      c = await setup(await startChainNode({ args, store }));
    });
    after(async () => {
      await c?.n.close();
    });

    table(ctx, 'get-referral-info-for-user', [
      {
        name: 'the referrer sees both codes, the spec §2.8 fields, the counters and the referred users’ profiles',
        body: () => userBody(ctx().referrer),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r), ['ReferralInfoResponses']);
          assert.equal((r['ReferralInfoResponses'] as J[]).length, 2);
          const capped = byHash(r, c.capped);
          assert.deepEqual(Object.keys(capped).sort(), ['Info', 'IsActive', 'ReferredUsers']);
          assert.deepEqual(Object.keys(capped['Info']).sort(), INFO_FIELDS);
          assert.equal(capped['IsActive'], true);
          const info = capped['Info'] as J;
          assert.deepEqual(info['ReferrerPKID'], [...c.referrer.pk33], 'ReferrerPKID is the byte array of the key');
          assert.equal(info['ReferrerAmountUSDCents'], 500);
          assert.equal(info['ReferreeAmountUSDCents'], 300);
          assert.equal(info['MaxReferrals'], 2);
          assert.equal(info['TotalReferrals'], 2);
          assert.equal(info['RequiresIdVerification'], false);
          assert.equal(typeof info['DateCreatedTStampNanos'], 'number');
          assert.match(c.capped, /^[1-9A-HJ-NP-Za-km-z]{8}$/, 'a code is 8 Base58 characters');
          const users = capped['ReferredUsers'] as J[];
          assert.deepEqual(users.map((u) => u['Username']).sort(), [...c.refereeNames].sort(), 'ProfileEntryResponses of the referred users');
          const open = byHash(r, c.open);
          assert.equal(open['Info']['MaxReferrals'], 0, '0 = unlimited');
          assert.equal(open['Info']['ReferreeAmountUSDCents'], 100);
          assert.deepEqual(open['ReferredUsers'], []);
        },
      },
      { name: 'a user without codes: an empty list', body: () => userBody(outsider), check: (r) => assert.deepEqual(r, { ReferralInfoResponses: [] }) },
      { name: 'a JWT of another key is refused (403)', body: () => userBody(ctx().referrer, outsider), error: { status: 403, re: /^GetReferralInfoForUser: Error validating JWT: JWT is valid for another public key/ } },
      { name: 'no JWT is refused (401)', body: () => ({ PublicKeyBase58Check: ctx().referrer.pk }), error: { status: 401, re: /^GetReferralInfoForUser: Error validating JWT: Problem verifying JWT token: token is missing$/ } },
      { name: 'a malformed JWT is refused (401)', body: () => ({ PublicKeyBase58Check: ctx().referrer.pk, JWT: 'not-a-jwt' }), error: { status: 401, re: /^GetReferralInfoForUser: Error validating JWT: Problem verifying JWT token: / } },
      { name: 'a missing public key is refused (400)', body: async () => ({ JWT: await jwt(outsider) }), error: { re: /^PublicKeyBase58Check: is required$/ } },
    ]);

    table(ctx, 'get-referral-info-for-referral-hash', [
      {
        name: 'the public summary of a code',
        body: () => ({ ReferralHash: ctx().capped }),
        check: (r, c) => assert.deepEqual(r, { ReferralInfoResponse: { IsActive: true, Info: { ReferralHashBase58: c.capped, ReferreeAmountUSDCents: 300, MaxReferrals: 2, TotalReferrals: 2 } } }),
      },
      { name: 'an unknown code is 404', body: () => ({ ReferralHash: 'zzzzzzzz' }), error: { status: 404, re: /^GetReferralInfoForReferralHash: Error getting referral info for referral hash: no referral hash "zzzzzzzz"$/ } },
      { name: 'text that cannot be a code is 404 too', body: () => ({ ReferralHash: '../../x' }), error: { status: 404, re: /^GetReferralInfoForReferralHash: / } },
      { name: 'a missing ReferralHash is refused', body: () => ({}), error: { re: /^ReferralHash: is required$/ } },
    ]);

    table(ctx, 'admin/create-referral-hash', [
      {
        name: 'the super admin creates an active code; its owner lists it',
        body: () => asAdmin(superAdmin, { UserPublicKeyBase58Check: outsider.pk, ReferrerAmountUSDCents: 1, RefereeAmountUSDCents: 2, MaxReferrals: 7, RequiresJumio: true }),
        check: async (r, c) => {
          const created = r['ReferralInfoResponse'] as J;
          assert.equal(created['IsActive'], true);
          assert.deepEqual(created['ReferredUsers'], []);
          assert.equal(created['Info']['RequiresIdVerification'], true);
          assert.equal(created['Info']['TotalReferrals'], 0);
          const mine = await c.n.ok('get-referral-info-for-user', await userBody(outsider));
          assert.deepEqual(byHash(mine, created['Info']['ReferralHashBase58'] as string)['Info'], created['Info']);
        },
      },
      { name: 'amounts above $1000 are refused', body: () => asAdmin(superAdmin, { UserPublicKeyBase58Check: outsider.pk, ReferrerAmountUSDCents: 100_001 }), error: { re: /^AdminCreateReferralHash: Referrer and referee amounts should not exceed \$1000 USD\.$/ } },
      { name: 'neither key nor username is refused', body: () => asAdmin(superAdmin, {}), error: { re: /^AdminCreateReferralHash: Must provide a valid username or public key\.$/ } },
      { name: 'an unknown username is refused', body: () => asAdmin(superAdmin, { Username: 'nobody_has_this_name' }), error: { re: /^AdminCreateReferralHash: Problem getting profile for username: nobody_has_this_name$/ } },
      { name: 'a malformed key is refused', body: () => asAdmin(superAdmin, { UserPublicKeyBase58Check: 'tBCnotakey' }), error: { re: /^AdminCreateReferralHash: Problem decoding updater public key: (?!.*tBCnotakey)/ } },
      { name: 'an admin who is not super admin is refused (403)', body: () => asAdmin(admin, { UserPublicKeyBase58Check: outsider.pk }), error: { status: 403, re: /^CheckAdminPublicKey: Not a superadmin$/ } },
      { name: 'a user who is not an admin is refused (403)', body: () => asAdmin(outsider, { UserPublicKeyBase58Check: outsider.pk }), error: { status: 403, re: /^CheckAdminPublicKey: Not a superadmin$/ } },
      { name: 'no JWT is refused (401)', body: () => ({ AdminPublicKey: superAdmin.pk, UserPublicKeyBase58Check: outsider.pk }), error: { status: 401, re: /^CheckAdminPublicKey: Invalid token: Problem verifying JWT token: token is missing$/ } },
    ]);

    table(ctx, 'admin/update-referral-hash', [
      {
        name: 'the super admin deactivates a code: readers see IsActive false and sign-ups are refused; reactivating restores both',
        body: () => asAdmin(superAdmin, { ReferralHashBase58: ctx().open, IsActive: false }),
        check: async (r, c) => {
          assert.equal(r['ReferralInfoResponse']['IsActive'], false);
          assert.equal(r['ReferralInfoResponse']['Info']['ReferreeAmountUSDCents'], 100, 'omitted terms keep their value');
          assert.equal((await c.n.ok('get-referral-info-for-referral-hash', { ReferralHash: c.open }))['ReferralInfoResponse']['IsActive'], false);
          assert.deepEqual(await recordReferralSignup(c.n.deps.store, c.open, keyPair().pk33), { ok: false, reason: 'REFERRAL_INACTIVE' });
          await c.n.ok('admin/update-referral-hash', await asAdmin(superAdmin, { ReferralHashBase58: c.open, IsActive: true, MaxReferrals: 1 }));
          const joined = await recordReferralSignup(c.n.deps.store, c.open, c.referees[2]!.pk33);
          assert.ok(joined.ok, 'an active code counts a sign-up again');
          assert.deepEqual(await recordReferralSignup(c.n.deps.store, c.open, keyPair().pk33), { ok: false, reason: 'MAX_REFERRALS_REACHED' });
        },
      },
      {
        name: 'raising MaxReferrals of a full code lets one more user in',
        body: () => asAdmin(superAdmin, { ReferralHashBase58: ctx().capped, MaxReferrals: 3 }),
        check: async (r, c) => {
          assert.equal(r['ReferralInfoResponse']['Info']['MaxReferrals'], 3);
          assert.equal(r['ReferralInfoResponse']['IsActive'], true, 'IsActive omitted: kept');
          assert.equal(r['ReferralInfoResponse']['ReferredUsers'].length, 2);
          assert.ok((await recordReferralSignup(c.n.deps.store, c.capped, keyPair().pk33)).ok, 'the third sign-up counts');
        },
      },
      { name: 'an unknown code is 404', body: () => asAdmin(superAdmin, { ReferralHashBase58: 'zzzzzzzz', IsActive: false }), error: { status: 404, re: /^AdminUpdateReferralHash: no referral hash "zzzzzzzz"$/ } },
      { name: 'amounts above $1000 are refused', body: () => asAdmin(superAdmin, { ReferralHashBase58: ctx().capped, RefereeAmountUSDCents: 200_000 }), error: { re: /should not exceed \$1000 USD/ } },
      { name: 'a JWT of another key is refused (403)', body: async () => ({ AdminPublicKey: superAdmin.pk, JWT: await jwt(outsider), ReferralHashBase58: ctx().capped }), error: { status: 403, re: /^CheckAdminPublicKey: Invalid token: JWT is valid for another public key/ } },
      { name: 'a user who is not an admin is refused (403)', body: () => asAdmin(outsider, { ReferralHashBase58: ctx().capped, IsActive: false }), error: { status: 403, re: /^CheckAdminPublicKey: Not a superadmin$/ } },
    ]);

    table(ctx, 'admin/get-all-referral-info-for-user', [
      {
        name: 'by username: every code of the user, with referred users',
        body: () => asAdmin(superAdmin, { Username: ctx().referrerName }),
        check: (r, c) => {
          assert.deepEqual((r['ReferralInfoResponses'] as J[]).map((x) => x['Info']['ReferralHashBase58']).sort(), [c.capped, c.open].sort());
          assert.ok(byHash(r, c.capped)['ReferredUsers'].length >= 2, 'referred users are listed');
        },
      },
      { name: 'by public key', body: () => asAdmin(superAdmin, { UserPublicKeyBase58Check: ctx().referrer.pk }), check: (r) => assert.equal((r['ReferralInfoResponses'] as J[]).length, 2) },
      { name: 'neither key nor username is refused', body: () => asAdmin(superAdmin, {}), error: { re: /^AdminGetAllReferralInfoForUser: Must provide a valid username or public key\.$/ } },
      { name: 'a user who is not an admin is refused (403)', body: () => asAdmin(outsider, { Username: ctx().referrerName }), error: { status: 403, re: /^CheckAdminPublicKey: Not a superadmin$/ } },
    ]);

    table(ctx, 'update-user-global-metadata', [
      {
        name: 'a sign-up with a code counts once and lists the user among its referees',
        body: async (c) => {
          const code = (await c.n.ok('admin/create-referral-hash', await asAdmin(superAdmin, { Username: c.referrerName, MaxReferrals: 5 })))['ReferralInfoResponse']['Info']['ReferralHashBase58'] as string;
          return signupBody(keyPair(), code);
        },
        check: async (r, c) => {
          assert.deepEqual(r, {});
          const codes = (await c.n.ok('get-referral-info-for-user', await userBody(c.referrer)))['ReferralInfoResponses'] as J[];
          const fresh = codes.find((x) => x['Info']['MaxReferrals'] === 5);
          assert.ok(fresh, 'the new code is listed for its referrer');
          assert.equal(fresh['Info']['TotalReferrals'], 1, 'the sign-up was counted');
        },
      },
      { name: 'a code that has reached MaxReferrals is refused', body: (c) => signupBody(keyPair(), c.capped), error: { re: /^UpdateUserGlobalMetadataRequest: referral code \w+ has reached its MaxReferrals$/ } },
      { name: 'an unknown code is refused', body: () => signupBody(keyPair(), 'zzzzzzzz'), error: { re: /^UpdateUserGlobalMetadataRequest: referral code zzzzzzzz does not exist$/ } },
      { name: 'a user who already signed up with a code is refused', body: (c) => signupBody(c.referees[0]!, c.open), error: { re: /^UpdateUserGlobalMetadataRequest: this user already signed up with a referral code$/ } },
      { name: 'the referrer cannot use their own code', body: (c) => signupBody(c.referrer, c.open), error: { re: /^UpdateUserGlobalMetadataRequest: a user cannot sign up with their own referral code$/ } },
      { name: 'a JWT of another key is refused (403)', body: (c) => signupBody(keyPair(), c.open, outsider), error: { status: 403, re: /^UpdateUserGlobalMetadataRequest: Invalid token: JWT is valid for another public key/ } },
    ]);

    describe('recordReferralSignup', () => {
      it('refuses an unknown code, a second referral of a user and self-referral', async () => {
        const c = ctx();
        assert.deepEqual(await recordReferralSignup(c.n.deps.store, 'zzzzzzzz', keyPair().pk33), { ok: false, reason: 'UNKNOWN_REFERRAL_HASH' });
        assert.deepEqual(await recordReferralSignup(c.n.deps.store, c.open, c.referees[0]!.pk33), { ok: false, reason: 'ALREADY_REFERRED' });
        assert.deepEqual(await recordReferralSignup(c.n.deps.store, c.capped, c.referrer.pk33), { ok: false, reason: 'SELF_REFERRAL' });
      });
    });
  });
}

for (const store of TEST_STORES) suite(store);
