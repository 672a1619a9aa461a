/**
 * Admin routes over users (spec §4.10; reference node-api.md §3): moderation flags and user
 * global metadata, verification badges. End to end on a node with one super admin and one
 * admin, once per store: profiles are real update-profile transactions, everything else is
 * HTTP. Every route: success at its level (with its audit entry), 401 without a JWT, 403 for
 * a user who is not an admin (and for a plain admin on super-admin routes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueJwt } from '../../server/identity/jwt.js';
import { filterAuditLogs, moderationFlags, updateUserMetadata } from '../../server/social/userMetadata.js';
import { grantVerification, verificationKeys } from '../../server/social/verification.js';
import { adminTable } from '../helpers/adminTable.js';
import { keyPair, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };

/** Reference node-api.md §9: the UserMetadata fields, in struct order. */
const USER_METADATA_FIELDS = [
  'PublicKey',
  'RemoveEverywhere',
  'RemoveFromLeaderboard',
  'Email',
  'EmailVerified',
  'PhoneNumber',
  'PhoneNumberCountryCode',
  'MessageReadStateByContact',
  'NotificationLastSeenIndex',
  'SatoshisBurnedSoFar',
  'HasBurnedEnoughSatoshisToCreateProfile',
  'BlockedPublicKeys',
  'WhitelistPosts',
  'JumioInternalReference',
  'JumioFinishedTime',
  'JumioVerified',
  'JumioReturned',
  'JumioTransactionID',
  'JumioDocumentKey',
  'RedoJumio',
  'JumioStarterDeSoTxnHashHex',
  'JumioShouldCompProfileCreation',
  'MustCompleteTutorial',
  'IsFeaturedTutorialWellKnownCreator',
  'IsFeaturedTutorialUpAndComingCreator',
  'TutorialStatus',
  'CreatorPurchasedInTutorialPKID',
  'CreatorCoinsPurchasedInTutorial',
  'ReferralHashBase58Check',
  'ReferrerDeSoTxnHash',
  'UnreadNotifications',
  'LatestUnreadNotificationIndex',
];

const superAdmin = keyPair();
const admin = keyPair();
const outsider = keyPair();

interface Ctx {
  n: ChainNode;
  alice: KeyPair;
  bob: KeyPair;
  /** No profile. */
  carol: KeyPair;
  names: { alice: string; bob: string; superAdmin: string };
}

const jwt = (c: Ctx, k: KeyPair): Promise<string> => issueJwt(c.n.deps.crypto, new Uint8Array(Buffer.from(k.seedHex, 'hex')));
const as = async (c: Ctx, k: KeyPair, body: J): Promise<J> => ({ AdminPublicKey: k.pk, JWT: await jwt(c, k), ...body });

async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<void> {
  const c = await n.ok(path, { ...FEE, ...body });
  const signed = await n.sign(c['TransactionHex'] as string, signer, 'sdk');
  for (let attempt = 0; ; attempt++) {
    const r = await n.post('submit-transaction', { TransactionHex: signed });
    if (r.status === 200) return n.waitMined(r.json['TxnHashHex'] as string);
    assert.ok(attempt < 20 && /retry/.test(String(r.json['error'])), `submit-transaction of ${path}: ${String(r.json['error'])}`);
    await new Promise((resolve) => setTimeout(resolve, 10 * (attempt + 1)));
  }
}

async function createProfile(n: ChainNode, k: KeyPair, username: string): Promise<void> {
  await mined(n, 'send-deso', { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: k.pk, AmountNanos: 0.1 * 1e9 }, n.miner);
  await mined(
    n,
    'update-profile',
    { UpdaterPublicKeyBase58Check: k.pk, ProfilePublicKeyBase58Check: '', NewUsername: username, NewDescription: '', NewProfilePic: '', NewCreatorBasisPoints: 1000, NewStakeMultipleBasisPoints: 12500 },
    k,
  );
}

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36).slice(-6);
  const [alice, bob, carol] = [keyPair(), keyPair(), keyPair()];
  const names = { alice: `Al${tag}`, bob: `bo${tag}`, superAdmin: `sa${tag}` };
  await n.mineBlock(); // rewards that pay for the funding below
  await n.mineBlock();
  await Promise.all([createProfile(n, alice, names.alice), createProfile(n, bob, names.bob), createProfile(n, superAdmin, names.superAdmin)]);
  return { n, alice, bob, carol, names };
}

const table = adminTable<Ctx>({ superAdmin, admin, outsider, as });

const profileOf = async (c: Ctx, username: string): Promise<J> => (await c.n.ok('get-single-profile', { Username: username }))['Profile'] as J;

function suite(store: 'memory' | 'redis'): void {
  describe(`admin user routes (${store} store)`, () => {
    let c: Ctx | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the setup ran');
      return c;
    };
    before(async () => {
      c = await setup(await startChainNode({ args: ['--super-admin-public-keys', superAdmin.pk, '--admin-public-keys', admin.pk], store }));
    });
    after(async () => {
      await c?.n.close();
    });

    table(
      ctx,
      'admin/update-user-global-metadata',
      'admin',
      [
        {
          name: 'an admin blacklists and graylists a user by username: 200 with an empty body, flags and audit logs written',
          body: (c) => as(c, admin, { Username: c.names.alice.toLowerCase(), IsBlacklistUpdate: true, RemoveEverywhere: true, RemoveFromLeaderboard: true }),
          check: async (r, c) => {
            assert.equal(r, undefined, 'empty body');
            assert.deepEqual(await moderationFlags(c.n.deps.store, c.alice.pk33), { isBlacklisted: true, isGraylisted: true });
            for (const list of ['blacklist', 'graylist'] as const) {
              const [entry] = await filterAuditLogs(c.n.deps.store, c.alice.pk33, list);
              assert.ok(entry, `a ${list} audit log entry`);
              assert.equal(entry.updater, admin.pk);
              assert.equal(entry.updatedUsername, c.names.alice);
              assert.equal(entry.isRemoval, false);
            }
          },
        },
        {
          name: 'by public key: taking the user off the blacklist keeps the graylist; the log lists the removal first',
          body: (c) => as(c, admin, { UserPublicKeyBase58Check: c.alice.pk, IsBlacklistUpdate: true, RemoveEverywhere: false, RemoveFromLeaderboard: true }),
          check: async (_r, c) => {
            assert.deepEqual(await moderationFlags(c.n.deps.store, c.alice.pk33), { isBlacklisted: false, isGraylisted: true });
            assert.deepEqual((await filterAuditLogs(c.n.deps.store, c.alice.pk33, 'blacklist')).map((e) => e.isRemoval), [true, false]);
          },
        },
        {
          name: 'a whitelist update sets WhitelistPosts and leaves the other lists alone; a user without a profile can be listed',
          body: (c) => as(c, admin, { UserPublicKeyBase58Check: c.carol.pk, IsWhitelistUpdate: true, WhitelistPosts: true }),
          check: async (_r, c) => {
            const m = (await c.n.ok('admin/get-user-global-metadata', await as(c, admin, { UserPublicKeyBase58Check: c.carol.pk })))['UserMetadata'] as J;
            assert.equal(m['WhitelistPosts'], true);
            assert.equal(m['RemoveEverywhere'], false);
            const [entry] = await filterAuditLogs(c.n.deps.store, c.carol.pk33, 'whitelist');
            assert.equal(entry?.updatedUsername, '', 'no profile, no username');
          },
        },
        {
          name: 'RemovePhoneNumberMetadata clears the phone number and nothing else',
          body: async (c) => {
            await updateUserMetadata(c.n.deps.store, c.bob.pk33, (m) => ({ ...m, phoneNumber: '+15555550100', phoneNumberCountryCode: 'US', email: 'bob@example.com' }));
            return as(c, admin, { Username: c.names.bob, RemovePhoneNumberMetadata: true });
          },
          check: async (_r, c) => {
            const m = (await c.n.ok('admin/get-user-global-metadata', await as(c, admin, { UserPublicKeyBase58Check: c.bob.pk })))['UserMetadata'] as J;
            assert.equal(m['PhoneNumber'], '');
            assert.equal(m['PhoneNumberCountryCode'], '');
            assert.equal(m['Email'], 'bob@example.com');
          },
        },
        { name: 'RemovePhoneNumberMetadata for a user without a phone number is refused', body: (c) => as(c, admin, { UserPublicKeyBase58Check: c.carol.pk, RemovePhoneNumberMetadata: true }), error: { re: /^AdminUpdateUserGlobalMetadata: User does not have a phone number$/ } },
        { name: 'a request that changes nothing is refused', body: (c) => as(c, admin, { UserPublicKeyBase58Check: c.bob.pk }), error: { re: /^AdminUpdateUserGlobalMetadata: nothing to update/ } },
        { name: 'neither key nor username is refused', body: (c) => as(c, admin, { IsBlacklistUpdate: true }), error: { re: /^AdminUpdateUserGlobalMetadataRequest: Must provide a valid username or public key\.$/ } },
        { name: 'an unknown username is refused', body: (c) => as(c, admin, { Username: 'nobody_has_this_name', IsBlacklistUpdate: true }), error: { re: /^AdminUpdateUserGlobalMetadata: Problem getting profile for username: nobody_has_this_name$/ } },
        {
          name: 'a malformed public key is refused without echoing it',
          body: (c) => as(c, admin, { UserPublicKeyBase58Check: 'tBCnotAKeyMaybeASecret', IsBlacklistUpdate: true }),
          error: { re: /^AdminUpdateUserGlobalMetadata: Problem decoding updater public key: (?!.*tBCnotAKeyMaybeASecret)/ },
        },
      ],
      (c) => ({ UserPublicKeyBase58Check: c.bob.pk, IsWhitelistUpdate: true }),
    );

    describe('get-single-profile after a blacklist update', () => {
      it('answers IsBlacklisted / IsGraylisted from the moderation flags, right after each change (no stale cached answer)', async () => {
        const c = ctx();
        const read = (): Promise<J> => c.n.ok('get-single-profile', { Username: c.names.alice });
        const before = await read();
        assert.equal(before['IsBlacklisted'], false, 'alice was taken off the blacklist');
        assert.equal(before['IsGraylisted'], true, 'alice stays graylisted');
        const update = async (removeEverywhere: boolean): Promise<void> => {
          await c.n.ok('admin/update-user-global-metadata', await as(c, admin, { UserPublicKeyBase58Check: c.alice.pk, IsBlacklistUpdate: true, RemoveEverywhere: removeEverywhere, RemoveFromLeaderboard: true }));
        };
        await update(true);
        assert.equal((await read())['IsBlacklisted'], true, 'the blacklisting shows at once, though the answer before it was cached');
        await update(false);
        assert.equal((await read())['IsBlacklisted'], false, 'and so does lifting it');
      });
    });

    table(
      ctx,
      'admin/get-all-user-global-metadata',
      'admin',
      [
        {
          name: 'every record, keyed by public key, with the usernames of those who have a profile',
          body: (c) => as(c, admin, {}),
          check: (r, c) => {
            const all = r['PubKeyToUserGlobalMetadata'] as Record<string, J>;
            for (const k of [c.alice, c.bob, c.carol]) assert.ok(all[k.pk], `${k.pk} has a record`);
            assert.deepEqual(Object.keys(all[c.alice.pk]!), USER_METADATA_FIELDS);
            assert.equal(all[c.alice.pk]!['RemoveFromLeaderboard'], true);
            assert.equal(all[c.carol.pk]!['WhitelistPosts'], true);
            const names = r['PubKeyToUsername'] as Record<string, string>;
            assert.equal(names[c.alice.pk], c.names.alice);
            assert.equal(names[c.bob.pk], c.names.bob);
            assert.equal(c.carol.pk in names, false, 'no profile, no username');
          },
        },
        { name: 'NumToFetch bounds the listing', body: (c) => as(c, admin, { NumToFetch: 1 }), check: (r) => assert.equal(Object.keys(r['PubKeyToUserGlobalMetadata'] as J).length, 1) },
        { name: 'NumToFetch above 1000 is refused', body: (c) => as(c, admin, { NumToFetch: 1001 }), error: { re: /^NumToFetch: / } },
      ],
      () => ({ NumToFetch: 1 }),
    );

    table(
      ctx,
      'admin/get-user-global-metadata',
      'admin',
      [
        {
          name: "a user's record (reference UserMetadata JSON) and profile",
          body: (c) => as(c, admin, { UserPublicKeyBase58Check: c.alice.pk }),
          check: (r, c) => {
            assert.deepEqual(Object.keys(r), ['UserMetadata', 'UserProfileEntryResponse']);
            const m = r['UserMetadata'] as J;
            assert.deepEqual(Object.keys(m), USER_METADATA_FIELDS);
            assert.deepEqual(new Uint8Array(Buffer.from(m['PublicKey'] as string, 'base64')), c.alice.pk33, 'PublicKey is the key in base64');
            assert.equal(m['RemoveEverywhere'], false);
            assert.equal(m['RemoveFromLeaderboard'], true);
            assert.equal(m['MessageReadStateByContact'], null, 'an empty map is null, as Go writes a nil map');
            assert.equal(r['UserProfileEntryResponse']['Username'], c.names.alice);
          },
        },
        {
          name: 'a key without a record or profile: the zero record and a null profile',
          body: (c) => as(c, admin, { UserPublicKeyBase58Check: keyPair().pk }),
          check: (r) => {
            assert.equal(r['UserMetadata']['RemoveEverywhere'], false);
            assert.equal(r['UserMetadata']['Email'], '');
            assert.equal(r['UserProfileEntryResponse'], null);
          },
        },
        { name: 'a malformed key is refused', body: (c) => as(c, admin, { UserPublicKeyBase58Check: 'tBCnope' }), error: { re: /^AdminGetUserGlobalMetadata: Problem userPublicKeyBase58Check: / } },
        { name: 'a missing key is refused', body: (c) => as(c, admin, {}), error: { re: /^UserPublicKeyBase58Check: is required$/ } },
      ],
      (c) => ({ UserPublicKeyBase58Check: c.bob.pk }),
    );

    table(
      ctx,
      'admin/grant-verification-badge',
      'superAdmin',
      [
        {
          name: 'the super admin verifies a username: IsVerified becomes true in the profile',
          body: (c) => as(c, superAdmin, { UsernameToVerify: c.names.alice }),
          check: async (r, c) => {
            assert.deepEqual(r, { Message: `Successfully added verification badge for: ${c.names.alice}` });
            assert.equal((await profileOf(c, c.names.alice))['IsVerified'], true);
            assert.equal((await profileOf(c, c.names.bob))['IsVerified'], false, 'only that profile');
          },
        },
        { name: 'a username with other characters is refused', body: (c) => as(c, superAdmin, { UsernameToVerify: 'no spaces!' }), error: { re: /^AdminGrantVerificationBadge: Must provide a valid username$/ } },
        { name: 'a username longer than 25 bytes is refused', body: (c) => as(c, superAdmin, { UsernameToVerify: 'a'.repeat(26) }), error: { re: /^AdminGrantVerificationBadge: Must provide a valid username$/ } },
        { name: 'an empty username is refused', body: (c) => as(c, superAdmin, {}), error: { re: /^AdminGrantVerificationBadge: Must provide a valid username$/ } },
        { name: 'a username without a profile is refused', body: (c) => as(c, superAdmin, { UsernameToVerify: 'nobody_has_this' }), error: { re: /^AdminGrantVerificationBadge: Username nobody_has_this has no associated underlying publickey\.$/ } },
      ],
      (c) => ({ UsernameToVerify: c.names.bob }),
    );

    table(
      ctx,
      'admin/remove-verification-badge',
      'superAdmin',
      [
        {
          name: 'the super admin removes the badge: IsVerified becomes false',
          body: (c) => as(c, superAdmin, { UsernameForWhomToRemoveVerification: c.names.alice.toUpperCase() }),
          check: async (r, c) => {
            assert.deepEqual(r, { Message: `Successfully removed verification badge for: ${c.names.alice.toUpperCase()}` });
            assert.equal((await profileOf(c, c.names.alice))['IsVerified'], false);
          },
        },
        { name: 'a username that was never verified is refused', body: (c) => as(c, superAdmin, { UsernameForWhomToRemoveVerification: c.names.bob }), error: { re: /^AdminRemoveVerificationBadge: bo\w+ was never verified on this node; nothing to remove$/ } },
        { name: 'an invalid username is refused', body: (c) => as(c, superAdmin, { UsernameForWhomToRemoveVerification: 'x-y' }), error: { re: /^AdminRemoveVerificationBadge: Must provide a valid username$/ } },
        { name: 'a username without a profile is refused', body: (c) => as(c, superAdmin, { UsernameForWhomToRemoveVerification: 'nobody_has_this' }), error: { re: /^AdminRemoveVerificationBadge: Username has no associated underlying publickey$/ } },
      ],
      (c) => ({ UsernameForWhomToRemoveVerification: c.names.alice }),
    );

    table(
      ctx,
      'admin/get-verified-users',
      'admin',
      [
        {
          name: 'lists every verified username in lower case, the removed one included',
          body: (c) => as(c, admin, {}),
          check: (r, c) => assert.deepEqual(r, { VerifiedUsers: [c.names.alice.toLowerCase()] }),
        },
      ],
      () => ({}),
    );

    table(
      ctx,
      'admin/get-username-verification-audit-logs',
      'superAdmin',
      [
        {
          name: 'the grant and the removal, newest first, with verifier and verified user',
          body: (c) => as(c, superAdmin, { Username: c.names.alice.toLowerCase() }),
          check: (r, c) => {
            const logs = r['VerificationAuditLogs'] as J[];
            assert.deepEqual(
              logs.map((l) => [l['IsRemoval'], l['VerifiedUsername']]),
              [
                [true, c.names.alice.toUpperCase()],
                [false, c.names.alice],
              ],
            );
            for (const l of logs) {
              assert.deepEqual(Object.keys(l), ['TimestampNanos', 'VerifierUsername', 'VerifierPublicKeyBase58Check', 'VerifiedUsername', 'VerifiedPublicKeyBase58Check', 'IsRemoval']);
              assert.equal(l['VerifierPublicKeyBase58Check'], superAdmin.pk);
              assert.equal(l['VerifierUsername'], c.names.superAdmin);
              assert.equal(l['VerifiedPublicKeyBase58Check'], c.alice.pk);
            }
            assert.ok((logs[0]!['TimestampNanos'] as number) >= (logs[1]!['TimestampNanos'] as number), 'newest first');
          },
        },
        { name: 'a username without logs: an empty list', body: (c) => as(c, superAdmin, { Username: c.names.bob }), check: (r) => assert.deepEqual(r, { VerificationAuditLogs: [] }) },
        { name: 'an invalid username is refused', body: (c) => as(c, superAdmin, { Username: '../x' }), error: { re: /^AdminGetUsernameVerificationAuditLogs: Must provide a valid username$/ } },
      ],
      (c) => ({ Username: c.names.alice }),
    );

    table(
      ctx,
      'admin/get-username-verification-audit-log',
      'superAdmin',
      [
        {
          name: "the SDK's singular spelling answers what the plural route answers",
          body: (c) => as(c, superAdmin, { Username: c.names.alice }),
          check: async (r, c) => {
            const plural = await c.n.ok('admin/get-username-verification-audit-logs', await as(c, superAdmin, { Username: c.names.alice }));
            assert.equal((r['VerificationAuditLogs'] as J[]).length, 2);
            assert.deepEqual(r, plural);
          },
        },
        { name: 'an invalid username is refused with the same text', body: (c) => as(c, superAdmin, { Username: '../x' }), error: { re: /^AdminGetUsernameVerificationAuditLogs: Must provide a valid username$/ } },
      ],
      (c) => ({ Username: c.names.alice }),
    );

    table(
      ctx,
      'admin/get-user-admin-data',
      'superAdmin',
      [
        {
          name: 'alice after the cases above: badge granted then removed, blacklisted then taken off, graylisted, each with who did it',
          body: (c) => as(c, superAdmin, { UserPublicKeyBase58Check: c.alice.pk }),
          check: (r, c) =>
            assert.deepEqual(r, {
              Username: c.names.alice,
              IsVerified: false,
              LastVerifierPublicKey: superAdmin.pk,
              LastVerifyRemoverPublicKey: superAdmin.pk,
              IsWhitelisted: false,
              LastWhitelisterPublicKey: '',
              LastWhitelistRemoverPublicKey: '',
              IsGraylisted: true,
              LastGraylisterPublicKey: admin.pk,
              LastGraylistRemoverPublicKey: '',
              IsBlacklisted: false,
              LastBlacklisterPublicKey: admin.pk,
              LastBlacklistRemoverPublicKey: admin.pk,
              PhoneNumber: '',
              Email: '',
              ReferralHashBase58Check: '',
              JumioStarterDeSoTxnHashBase58Check: '',
              ReferrerDeSoTxnHashBase58Check: '',
            }),
        },
        {
          name: 'bob: his email (the phone number was cleared above), nothing else',
          body: (c) => as(c, superAdmin, { UserPublicKeyBase58Check: c.bob.pk }),
          check: (r, c) => {
            assert.equal(r['Username'], c.names.bob);
            assert.equal(r['Email'], 'bob@example.com');
            assert.equal(r['PhoneNumber'], '');
            assert.deepEqual([r['IsVerified'], r['IsWhitelisted'], r['IsGraylisted'], r['IsBlacklisted']], [false, false, false, false]);
          },
        },
        {
          name: 'carol has no profile: no username, but her whitelisting and who did it show',
          body: (c) => as(c, superAdmin, { UserPublicKeyBase58Check: c.carol.pk }),
          check: (r) => {
            assert.equal(r['Username'], '');
            assert.equal(r['IsWhitelisted'], true);
            assert.equal(r['LastWhitelisterPublicKey'], admin.pk);
          },
        },
        {
          name: 'a malformed key is refused without echoing it',
          body: (c) => as(c, superAdmin, { UserPublicKeyBase58Check: 'tBCnotAKeyMaybeASecret' }),
          error: { re: /^AdminGetUserAdminData: Failed decoding user public key: (?!.*tBCnotAKeyMaybeASecret)/ },
        },
        { name: 'a missing key is refused', body: (c) => as(c, superAdmin, {}), error: { re: /^UserPublicKeyBase58Check: is required$/ } },
      ],
      (c) => ({ UserPublicKeyBase58Check: c.bob.pk }),
    );

    describe('grantVerification', () => {
      it('moves a username to its new holder: the previous holder loses the badge, the new one gets it', async () => {
        const c = ctx();
        const store = c.n.deps.store;
        const [p, q] = [keyPair(), keyPair()];
        const change = { username: 'Moved_Name', verifier: superAdmin.pk, verifierUsername: '', nowNanos: 1n };
        await grantVerification(store, { ...change, publicKey: p.pk33 });
        assert.equal(await store.get(verificationKeys.verified(p.pk33)), 'moved_name');
        await grantVerification(store, { ...change, publicKey: q.pk33, nowNanos: 2n });
        assert.equal(await store.get(verificationKeys.verified(p.pk33)), undefined, 'the previous holder is no longer verified');
        assert.equal(await store.get(verificationKeys.verified(q.pk33)), 'moved_name');
        assert.equal(await store.get(verificationKeys.username('moved_name')), Buffer.from(q.pk33).toString('hex'));
      });
    });
  });
}

for (const store of TEST_STORES) suite(store);
