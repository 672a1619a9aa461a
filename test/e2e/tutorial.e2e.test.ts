/**
 * Tutorial routes (spec §3 "Tutorial status", §4.7; reference node-api.md §2.5) and the admin
 * routes that curate the featured creators, end to end, once on a memory-store node and once on
 * a Redis-backed node. Creator profiles are made with real update-profile transactions; JWTs
 * come from the SDK's getSignedJWT; the node's admins come from its flags. One table of cases
 * per route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getSignedJWT } from 'deso-protocol';
import { issueJwt } from '../../server/identity/jwt.js';
import { getTutorialState } from '../../server/social/tutorial.js';
import { keyPair, startChainNode, type ChainNode, type J, type KeyPair, TEST_STORES } from '../helpers/chainNode.js';
import { routeTable, type RouteCase } from '../helpers/routeTable.js';
import { sdkJwt as jwt } from '../helpers/adminBody.js';

// The SDK signs with the browser's window.crypto / btoa; Node has both on globalThis.
(globalThis as { window?: unknown }).window ??= globalThis;

const FEE = { MinFeeRateNanosPerKB: 1000 };

interface Ctx {
  n: ChainNode;
  /** Featured well known: 5% and exactly 10% founder reward. */
  wk5: KeyPair;
  wk10: KeyPair;
  /** Featured well known but 20% founder reward: never in the public answer. */
  wk20: KeyPair;
  /** Featured up and coming: one with a profile, one without. */
  uc: KeyPair;
  ucNoProfile: KeyPair;
}

const superAdmin = keyPair();
const admin = keyPair();
const outsider = keyPair();

async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<void> {
  const c = await n.ok(path, { ...FEE, ...body });
  await n.submit(c['TransactionHex'] as string, signer, 'sdk');
}

const asAdmin = async (k: KeyPair, body: J): Promise<J> => ({ AdminPublicKey: k.pk, JWT: await jwt(k), ...body });

async function setup(n: ChainNode): Promise<Ctx> {
  const c: Ctx = { n, wk5: keyPair(), wk10: keyPair(), wk20: keyPair(), uc: keyPair(), ucNoProfile: keyPair() };
  const tag = Date.now().toString(36);
  const withProfile: Array<[KeyPair, number, string]> = [
    [c.wk5, 500, 'tw5'],
    [c.wk10, 1000, 'tw10'],
    [c.wk20, 2000, 'tw20'],
    [c.uc, 100, 'tuc'],
  ];
  for (const [k] of withProfile) await n.fund(k.pk, 0.2 * 1e9);
  for (const [k, bps, name] of withProfile) {
    await mined(
      n,
      'update-profile',
      { UpdaterPublicKeyBase58Check: k.pk, ProfilePublicKeyBase58Check: '', NewUsername: `${name}${tag}`, NewDescription: '', NewProfilePic: '', NewCreatorBasisPoints: bps, NewStakeMultipleBasisPoints: 12500, IsHidden: false },
      k,
    );
  }
  for (const [k, wellKnown] of [[c.wk5, true], [c.wk10, true], [c.wk20, true], [c.uc, false], [c.ucNoProfile, false]] as const) {
    const r = await n.post('admin/update-tutorial-creators', await asAdmin(superAdmin, { PublicKeyBase58Check: k.pk, IsWellKnown: wellKnown }));
    assert.equal(r.status, 200, `featuring a creator: ${JSON.stringify(r.json)}`);
  }
  return c;
}

type Case = RouteCase<Ctx>;

const table = routeTable<Ctx>();

const keysOf = (list: unknown): string[] => {
  assert.ok(Array.isArray(list), 'an array of ProfileEntryResponse');
  return (list as J[]).map((p) => p['PublicKeyBase58Check'] as string).sort();
};
const sorted = (...ks: KeyPair[]): string[] => ks.map((k) => k.pk).sort();
const statusOf = async (c: Ctx, k: KeyPair): Promise<string> => (await getTutorialState(c.n.deps.store, k.pk33)).status;
const userBody = async (k: KeyPair, extra: J = {}, signer: KeyPair = k): Promise<J> => ({ PublicKeyBase58Check: k.pk, JWT: await jwt(signer), ...extra });

function suite(store: 'memory' | 'redis'): void {
  describe(`tutorial (${store} store)`, () => {
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

    table(ctx, 'get-tutorial-creators', [
      {
        name: 'a large limit: every eligible creator (founder reward ≤ 10%, with a profile), as ProfileEntryResponses with the featured flags',
        body: () => ({ ResponseLimit: 10 }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['UpAndComingProfileEntryResponses', 'WellKnownProfileEntryResponses']);
          assert.deepEqual(keysOf(r['WellKnownProfileEntryResponses']), sorted(c.wk5, c.wk10), 'the 20% creator is excluded');
          assert.deepEqual(keysOf(r['UpAndComingProfileEntryResponses']), sorted(c.uc), 'the key without a profile is skipped');
          for (const p of r['WellKnownProfileEntryResponses'] as J[]) {
            assert.equal(p['IsFeaturedTutorialWellKnownCreator'], true, 'well known flag');
            assert.equal(p['IsFeaturedTutorialUpAndComingCreator'], false, 'not up and coming');
            assert.ok((p['CoinEntry']['CreatorBasisPoints'] as number) <= 1000, 'founder reward at most 10%');
          }
          assert.equal((r['UpAndComingProfileEntryResponses'] as J[])[0]!['IsFeaturedTutorialUpAndComingCreator'], true);
        },
      },
      {
        name: 'ResponseLimit 1: exactly one per category',
        body: () => ({ ResponseLimit: 1 }),
        check: (r) => {
          assert.equal((r['WellKnownProfileEntryResponses'] as J[]).length, 1);
          assert.equal((r['UpAndComingProfileEntryResponses'] as J[]).length, 1);
        },
      },
      { name: 'ResponseLimit 0: none', body: () => ({ ResponseLimit: 0 }), check: (r) => assert.deepEqual(r, { WellKnownProfileEntryResponses: [], UpAndComingProfileEntryResponses: [] }) },
      { name: 'a missing ResponseLimit is refused', body: () => ({}), error: { re: /^ResponseLimit: is required$/ } },
      { name: 'a negative ResponseLimit is refused', body: () => ({ ResponseLimit: -1 }), error: { re: /^ResponseLimit: expected an integer from 0 to 300/ } },
      { name: 'a ResponseLimit that is not an integer is refused', body: () => ({ ResponseLimit: '3' }), error: { re: /^ResponseLimit: expected an integer/ } },
    ]);

    describe('get-tutorial-creators selection', () => {
      it('is random: ResponseLimit 1 shows each eligible well-known creator over repeated calls', async () => {
        const seen = new Set<string>();
        // Each call picks one of two at random: missing one in 60 calls has probability 2^-59.
        for (let i = 0; i < 60 && seen.size < 2; i++) {
          for (const k of keysOf((await ctx().n.ok('get-tutorial-creators', { ResponseLimit: 1 }))['WellKnownProfileEntryResponses'])) seen.add(k);
        }
        assert.deepEqual([...seen].sort(), sorted(ctx().wk5, ctx().wk10));
      });
    });

    table(ctx, 'admin/get-tutorial-creators', [
      { name: 'an admin sees every creator with a profile, whatever the founder reward', body: () => asAdmin(admin, { ResponseLimit: 10 }), check: (r, c) => assert.deepEqual(keysOf(r['WellKnownProfileEntryResponses']), sorted(c.wk5, c.wk10, c.wk20)) },
      { name: 'a user who is not an admin is refused (403)', body: () => asAdmin(outsider, { ResponseLimit: 10 }), error: { status: 403, re: /^CheckAdminPublicKey: Not an admin$/ } },
      { name: 'no JWT is refused (401)', body: () => ({ AdminPublicKey: admin.pk, ResponseLimit: 10 }), error: { status: 401, re: /^CheckAdminPublicKey: Invalid token: Problem verifying JWT token: token is missing$/ } },
    ]);

    table(ctx, 'admin/update-tutorial-creators', [
      {
        name: 'the super admin removes a creator from a list, and adds it back',
        body: () => asAdmin(superAdmin, { PublicKeyBase58Check: ctx().wk10.pk, IsWellKnown: true, IsRemoval: true }),
        check: async (r, c) => {
          assert.equal(r, undefined, '200 with an empty body');
          const shown = await c.n.ok('get-tutorial-creators', { ResponseLimit: 10 });
          assert.deepEqual(keysOf(shown['WellKnownProfileEntryResponses']), sorted(c.wk5));
          await c.n.ok('admin/update-tutorial-creators', await asAdmin(superAdmin, { PublicKeyBase58Check: c.wk10.pk, IsWellKnown: true }));
          assert.deepEqual(keysOf((await c.n.ok('get-tutorial-creators', { ResponseLimit: 10 }))['WellKnownProfileEntryResponses']), sorted(c.wk5, c.wk10));
        },
      },
      { name: 'a creator featured already (in the other list) is refused', body: (c) => asAdmin(superAdmin, { PublicKeyBase58Check: c.uc.pk, IsWellKnown: true }), error: { re: /^AdminUpdateTutorialCreator: cannot add creator, user already exists in up and coming index$/ } },
      { name: 'an admin who is not super admin is refused (403)', body: (c) => asAdmin(admin, { PublicKeyBase58Check: c.uc.pk, IsRemoval: true }), error: { status: 403, re: /^CheckAdminPublicKey: Not a superadmin$/ } },
      { name: 'a user who is not an admin is refused (403)', body: (c) => asAdmin(outsider, { PublicKeyBase58Check: c.uc.pk, IsRemoval: true }), error: { status: 403, re: /^CheckAdminPublicKey: Not a superadmin$/ } },
      {
        name: 'a JWT of another key is refused (403)',
        body: async (c) => ({ AdminPublicKey: superAdmin.pk, JWT: await jwt(outsider), PublicKeyBase58Check: c.uc.pk, IsRemoval: true }),
        error: { status: 403, re: /^CheckAdminPublicKey: Invalid token: JWT is valid for another public key/ },
      },
      { name: 'a missing AdminPublicKey is refused (401)', body: async (c) => ({ JWT: await jwt(superAdmin), PublicKeyBase58Check: c.uc.pk }), error: { status: 401, re: /^CheckAdminPublicKey: Missing AdminPublicKey param$/ } },
      { name: 'a malformed JWT is refused (401)', body: (c) => ({ AdminPublicKey: superAdmin.pk, JWT: 'a.b.c', PublicKeyBase58Check: c.uc.pk }), error: { status: 401, re: /^CheckAdminPublicKey: Invalid token: Problem verifying JWT token: / } },
      { name: 'a bad creator key is refused after the admin check', body: () => asAdmin(superAdmin, { PublicKeyBase58Check: 'tBCnotakey' }), error: { re: /PublicKeyBase58Check/ } },
    ]);

    table(ctx, 'start-or-skip-tutorial', [
      {
        name: 'start from not started, then skip, then start again (from skipped)',
        body: () => userBody(ctx().uc),
        check: async (r, c) => {
          assert.equal(r, undefined, '200 with an empty body');
          assert.equal(await statusOf(c, c.uc), 'TutorialStarted');
          await c.n.ok('start-or-skip-tutorial', await userBody(c.uc, { IsSkip: true }));
          assert.equal(await statusOf(c, c.uc), 'TutorialSkipped');
          await c.n.ok('start-or-skip-tutorial', await userBody(c.uc, { IsSkip: false }));
          assert.equal(await statusOf(c, c.uc), 'TutorialStarted');
        },
      },
      { name: 'skip from not started', body: () => userBody(ctx().wk20, { IsSkip: true }), check: async (_r, c) => assert.equal(await statusOf(c, c.wk20), 'TutorialSkipped') },
      { name: 'starting again while started is refused', body: () => userBody(ctx().uc), error: { re: /^StartOrSkipTutorial: Can only start tutorial from empty, skipped, or completed state$/ } },
      { name: 'no JWT is refused (401)', body: () => ({ PublicKeyBase58Check: ctx().wk5.pk }), error: { status: 401, re: /^StartOrSkipTutorial: Error validating JWT: Problem verifying JWT token: token is missing$/ } },
      { name: 'a JWT of another key is refused (403)', body: () => userBody(ctx().wk5, {}, outsider), error: { status: 403, re: /^StartOrSkipTutorial: Error validating JWT: JWT is valid for another public key/ } },
      {
        name: 'an expired JWT is refused (401)',
        body: async (c) => ({
          PublicKeyBase58Check: c.wk5.pk,
          JWT: await issueJwt(c.n.deps.crypto, Buffer.from(c.wk5.seedHex, 'hex'), { nowSeconds: Math.floor(Date.now() / 1000) - 3600 }),
        }),
        error: { status: 401, re: /^StartOrSkipTutorial: Error validating JWT: Problem verifying JWT token: Token is expired$/ },
      },
      { name: 'a malformed public key is refused (400)', body: () => ({ PublicKeyBase58Check: 'tBCnotakey', JWT: 'x.y.z' }), error: { re: /PublicKeyBase58Check/ } },
    ]);

    table(ctx, 'update-tutorial-status', [
      {
        name: 'sets each state of spec §3 in turn, with the purchased creator and the counter cleared',
        body: () => userBody(ctx().wk10, { TutorialStatus: 'InvestInOthersBuyComplete', CreatorPurchasedInTutorialPublicKey: ctx().wk5.pk, ClearCreatorCoinPurchasedInTutorial: true }),
        check: async (r, c) => {
          assert.equal(r, undefined, '200 with an empty body');
          const state = await getTutorialState(c.n.deps.store, c.wk10.pk33);
          assert.equal(state.status, 'InvestInOthersBuyComplete');
          assert.deepEqual(new Uint8Array(state.creatorPurchasedInTutorial ?? []), c.wk5.pk33, 'the purchased creator is stored');
          assert.equal(state.creatorCoinsPurchasedInTutorial, 0n);
          for (const status of ['InvestInOthersSellComplete', 'TutorialCreateProfileComplete', 'InvestInYourselfComplete', 'FollowCreatorsComplete', 'GiveADiamondComplete', 'TutorialComplete']) {
            await c.n.ok('update-tutorial-status', await userBody(c.wk10, { TutorialStatus: status }));
            assert.equal(await statusOf(c, c.wk10), status);
          }
          // From TutorialComplete the tutorial may start again.
          await c.n.ok('start-or-skip-tutorial', await userBody(c.wk10));
          assert.equal(await statusOf(c, c.wk10), 'TutorialStarted');
        },
      },
      { name: 'a status outside spec §3 is refused', body: () => userBody(ctx().wk5, { TutorialStatus: 'Done' }), error: { re: /^UpdateTutorialStatus: Invalid TutorialStatus "Done"; expected one of TutorialStarted, / } },
      { name: 'the empty status is refused', body: () => userBody(ctx().wk5, { TutorialStatus: '' }), error: { re: /^UpdateTutorialStatus: Invalid TutorialStatus ""/ } },
      { name: 'a missing status is refused', body: () => userBody(ctx().wk5), error: { re: /^TutorialStatus: is required$/ } },
      { name: 'a bad purchased-creator key is refused', body: () => userBody(ctx().wk5, { TutorialStatus: 'TutorialStarted', CreatorPurchasedInTutorialPublicKey: 'tBCnotakey' }), error: { re: /^UpdateTutorialStatus: Failed to decode public key bytes/ } },
      { name: 'a JWT of another key is refused (403)', body: () => userBody(ctx().wk5, { TutorialStatus: 'TutorialStarted' }, outsider), error: { status: 403, re: /^UpdateTutorialStatus: Error validating JWT: JWT is valid for another public key/ } },
      {
        name: 'a token whose signature is zero is refused (401)',
        body: async () => ({ ...(await userBody(ctx().wk5, { TutorialStatus: 'TutorialStarted' })), JWT: `${(await jwt(ctx().wk5)).split('.').slice(0, 2).join('.')}.${'A'.repeat(86)}` }),
        error: { status: 401, re: /^UpdateTutorialStatus: Error validating JWT: Problem verifying JWT token: signature is invalid$/ },
      },
      {
        // Changing s keeps r, so the signature still verifies under some recoverable key: the
        // token is then valid for that key only, which is how a token of another user is told.
        name: 'a token with a tampered signature is valid only for some other key (403)',
        body: async () => ({ ...(await userBody(ctx().wk5, { TutorialStatus: 'TutorialStarted' })), JWT: `${(await jwt(ctx().wk5)).slice(0, -6)}AAAAAA` }),
        error: { status: 403, re: /^UpdateTutorialStatus: Error validating JWT: JWT is valid for another public key/ },
      },
    ]);

    table(ctx, 'admin/reset-tutorial-status', [
      {
        name: 'an admin puts a user back to not started',
        body: () => asAdmin(admin, { PublicKeyBase58Check: ctx().wk20.pk }),
        check: async (r, c) => {
          assert.equal(r, undefined, '200 with an empty body');
          assert.equal(await statusOf(c, c.wk20), '');
        },
      },
      { name: 'a user who is not an admin is refused (403)', body: () => asAdmin(outsider, { PublicKeyBase58Check: ctx().wk20.pk }), error: { status: 403, re: /^CheckAdminPublicKey: Not an admin$/ } },
    ]);
  });
}

for (const store of TEST_STORES) suite(store);
