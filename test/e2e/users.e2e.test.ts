/**
 * Users and profiles (spec §4.4; reference node-api.md §2.3) end to end, once on a memory-store
 * node and once on a Redis-backed node. Profiles, creator-coin buys, a DAO coin mint and ask,
 * posts, a comment and a derived-key authorization are made through the real write path
 * (construct → sign → submit-transaction → mined); node-local state (email, blocks) through
 * the JWT-protected routes. One table of cases per route; a walk over every profile with a
 * small page size returns each visible profile exactly once, in coin-value order.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getPost } from '../../server/chain/state/posts.js';
import { TxnType } from '../../server/chain/txn/metadata.js';
import { emptySpendingLimit, encodeSpendingLimit } from '../../server/chain/txn/spendingLimit.js';
import { issueJwt } from '../../server/identity/jwt.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { confirmEmailVerification, isCommentHidden, setMailer, type VerificationMail } from '../../server/social/userMetadata.js';
import { getPublicKey } from '../../wasm/secp256k1.js';
import { keyPair, profileBody, type ChainNode, type J, type KeyPair, TEST_STORES, suiteNode } from '../helpers/chainNode.js';
import { routeTable, type RouteCase } from '../helpers/routeTable.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const COIN = 10n ** 18n;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const PIC = `data:image/png;base64,${PNG.toString('base64')}`;
/** The regtest param updater the reference adds to ParamUpdaters. */
const REGTEST_PARAM_UPDATER = 'tBCKVERmG9nZpHTk2AVPqknWc1Mw9HHAnqrTpW1RnXpXMQ4PsQgnmV';
/** Not a public key; must never come back in an answer. */
const NOT_A_KEY = 'tBCnotAPublicKeyButMaybeASecret0000000000000000000000';
const PAGED = 8;

interface Ctx {
  n: ChainNode;
  tag: string;
  creator: KeyPair;
  alice: KeyPair;
  troll: KeyPair;
  hidden: KeyPair;
  /** Funded, no profile. */
  dave: KeyPair;
  owner: KeyPair;
  derived: KeyPair;
  paged: KeyPair[];
  names: { creator: string; troll: string; hidden: string; paged: string[] };
  commentHash: string;
  mails: VerificationMail[];
  /** Public keys of every profile a listing shows (all but the hidden one). */
  visible: string[];
}

const secretOf = (k: KeyPair): Uint8Array => new Uint8Array(Buffer.from(k.seedHex, 'hex'));
const jwtOf = (c: Ctx, k: KeyPair): Promise<string> => issueJwt(c.n.deps.crypto, secretOf(k));

/** Construct → sign → submit-transaction → wait until mined; a busy mempool ("retry") is retried. */
async function mined(n: ChainNode, path: string, body: J, signer: KeyPair): Promise<string> {
  const c = await n.ok(path, { ...FEE, ...body });
  const signed = await n.sign(c['TransactionHex'] as string, signer, 'sdk');
  for (let attempt = 0; ; attempt++) {
    const r = await n.post('submit-transaction', { TransactionHex: signed });
    if (r.status === 200) {
      await n.waitMined(r.json['TxnHashHex'] as string);
      return r.json['TxnHashHex'] as string;
    }
    const error = String(r.json['error']);
    assert.ok(attempt < 20 && /retry/.test(error), `submit-transaction of ${path}: ${error}`);
    await new Promise((resolve) => setTimeout(resolve, 10 * (attempt + 1)));
  }
}

const fund = (n: ChainNode, k: KeyPair, nanos: number): Promise<string> =>
  mined(n, 'send-deso', { SenderPublicKeyBase58Check: n.miner.pk, RecipientPublicKeyOrUsername: k.pk, AmountNanos: nanos }, n.miner);

const userProfile = (k: KeyPair, username: string, extra: J = {}): J => ({ ...profileBody(k.pk, username, `about ${username}`), ...extra });

const buy = (buyer: KeyPair, creator: KeyPair, nanos: number): J => ({
  UpdaterPublicKeyBase58Check: buyer.pk,
  CreatorPublicKeyBase58Check: creator.pk,
  OperationType: 'buy',
  DeSoToSellNanos: nanos,
});

const post = (k: KeyPair, body: string, parent = ''): J => ({ UpdaterPublicKeyBase58Check: k.pk, ParentStakeID: parent, BodyObj: { Body: body } });

/** Identity login with derive: true for `owner`, then authorize-derived-key signed by the owner, mined. */
async function authorizeDerivedKey(n: ChainNode, owner: KeyPair): Promise<KeyPair> {
  const limit = emptySpendingLimit();
  limit.globalDESOLimit = 100_000n;
  limit.transactionCounts.set(TxnType.BASIC_TRANSFER, 3n);
  const limitHex = Buffer.from(encodeSpendingLimit(limit)).toString('hex');
  const secret = new Uint8Array(randomBytes(32));
  const r = await n.ok('identity', {
    id: `login-${Math.random()}`,
    service: 'identity',
    method: 'login',
    payload: { seedHex: owner.seedHex, derive: true, derivedSeedHex: Buffer.from(secret).toString('hex'), transactionSpendingLimitHex: limitHex, accessLevelRequest: 4 },
  });
  const p = r['payload'] as J;
  const derivedPk33 = getPublicKey(secret, true);
  const derived: KeyPair = { seedHex: Buffer.from(secret).toString('hex'), pk: encodePublicKey(derivedPk33, 'testnet'), pk33: derivedPk33 };
  await mined(
    n,
    'authorize-derived-key',
    {
      OwnerPublicKeyBase58Check: owner.pk,
      DerivedPublicKeyBase58Check: derived.pk,
      ExpirationBlock: p['expirationBlock'],
      AccessSignature: p['accessSignature'],
      TransactionSpendingLimitHex: limitHex,
      Memo: 'e2e app',
    },
    owner,
  );
  return derived;
}

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36).slice(-5);
  const [creator, alice, troll, hidden, dave, owner] = [keyPair(), keyPair(), keyPair(), keyPair(), keyPair(), keyPair()];
  const paged = Array.from({ length: PAGED }, () => keyPair());
  const names = { creator: `Cre${tag}`, troll: `trl${tag}`, hidden: `hid${tag}`, paged: paged.map((_, i) => `pg${i}${tag}`) };
  const mails: VerificationMail[] = [];
  setMailer(n.deps, { sendVerificationEmail: async (m) => void mails.push(m) });

  // The first fund mines the blocks that pay for the rest; the rest go in parallel.
  await n.fund(creator.pk, 0.4 * 1e9);
  await Promise.all([alice, troll, hidden, dave, owner, ...paged].map((k) => fund(n, k, 0.1 * 1e9)));

  await Promise.all([
    mined(n, 'update-profile', userProfile(creator, names.creator, { NewProfilePic: PIC, ExtraData: { Website: 'https://example.com' } }), creator),
    mined(n, 'update-profile', userProfile(troll, names.troll), troll),
    mined(n, 'update-profile', userProfile(hidden, names.hidden), hidden),
    ...paged.map((k, i) => mined(n, 'update-profile', userProfile(k, names.paged[i]!), k)),
  ]);
  // IsHidden is only taken from an update of an existing profile.
  await mined(n, 'update-profile', userProfile(hidden, names.hidden, { IsHidden: true }), hidden);
  // Creator coins: distinct values so the coin-value order is known; the creator's is the largest.
  await Promise.all([
    mined(n, 'buy-or-sell-creator-coin', buy(alice, creator, 50_000_000), alice),
    mined(n, 'buy-or-sell-creator-coin', buy(creator, creator, 10_000_000), creator),
    ...paged.map((k, i) => mined(n, 'buy-or-sell-creator-coin', buy(k, k, 1_000_000 * (i + 1)), k)),
  ]);
  await mined(n, 'dao-coin', { UpdaterPublicKeyBase58Check: creator.pk, ProfilePublicKeyBase58CheckOrUsername: creator.pk, OperationType: 'mint', CoinsToMintNanos: `0x${(1000n * COIN).toString(16)}` }, creator);
  await mined(
    n,
    'create-dao-coin-limit-order',
    { TransactorPublicKeyBase58Check: creator.pk, BuyingDAOCoinCreatorPublicKeyBase58Check: 'DESO', SellingDAOCoinCreatorPublicKeyBase58Check: creator.pk, Price: '0.02', Quantity: '5', OperationType: 'ASK', FillType: 'GOOD_TILL_CANCELLED' },
    creator,
  );
  // Posts: the creator's first, then paged[0]'s later; the troll comments on the creator's post.
  const creatorPost = await mined(n, 'submit-post', post(creator, 'hello from the creator'), creator);
  await mined(n, 'submit-post', post(paged[0]!, 'a later post'), paged[0]!);
  const commentHash = await mined(n, 'submit-post', post(troll, 'first!', creatorPost), troll);
  const derived = await authorizeDerivedKey(n, owner);

  const visible = [creator, troll, ...paged].map((k) => k.pk);
  return { n, tag, creator, alice, troll, hidden, dave, owner, derived, paged, names, commentHash, mails, visible };
}

type Case = RouteCase<Ctx>;

const table = routeTable<Ctx>((message) => assert.ok(!message.includes(NOT_A_KEY), 'the error does not echo what was sent as a key'));

interface GetCase {
  name: string;
  path: (c: Ctx) => string;
  status: number;
  check?: (r: Response, c: Ctx) => void | Promise<void>;
}

function getTable(ctx: () => Ctx, route: string, cases: GetCase[]): void {
  describe(`GET ${route}`, () => {
    for (const tc of cases) {
      it(tc.name, async () => {
        const c = ctx();
        const r = await fetch(`${c.n.url}/api/v0/${tc.path(c)}`, { redirect: 'manual' });
        assert.equal(r.status, tc.status, `status of ${tc.name}`);
        await tc.check?.(r, c);
      });
    }
  });
}

const usersOf = (r: J): J[] => r['UserList'] as J[];
const profilesOf = (r: J): J[] => r['ProfilesFound'] as J[];
const keysOf = (r: J): string[] => profilesOf(r).map((p) => p['PublicKeyBase58Check'] as string);
const lockedOf = (p: J): number => (p['CoinEntry'] as J)['NativeLockedNanos'] as number;

function suite(store: 'memory' | 'redis'): void {
  describe(`users and profiles (${store} store)`, () => {
    const ctx = suiteNode(store, setup);

    // JWT-protected writes first: the reads below see their effects.
    table(ctx, 'update-user-global-metadata', [
      {
        name: 'a new Email is stored unverified and a verification mail goes to the mailer; the mailed code verifies it',
        body: async (c) => ({ UserPublicKeyBase58Check: c.alice.pk, JWT: await jwtOf(c, c.alice), Email: 'alice@example.com' }),
        check: async (r, c) => {
          assert.deepEqual(r, {});
          const mail = c.mails.find((m) => m.publicKeyBase58Check === c.alice.pk);
          assert.ok(mail, 'a verification mail was sent');
          assert.equal(mail.to, 'alice@example.com');
          const meta = await c.n.post('get-user-global-metadata', { UserPublicKeyBase58Check: c.alice.pk, JWT: await jwtOf(c, c.alice) });
          assert.deepEqual(meta.json, { Email: 'alice@example.com', PhoneNumber: '' });
          assert.equal(await confirmEmailVerification(c.n.deps.store, c.alice.pk33, mail.code), true, 'the mailed code is accepted');
        },
      },
      {
        name: 'MessageReadStateUpdatesByContact alone is an update; the same Email again sends no mail',
        body: async (c) => ({ UserPublicKeyBase58Check: c.alice.pk, JWT: await jwtOf(c, c.alice), Email: 'alice@example.com', MessageReadStateUpdatesByContact: { [c.creator.pk]: 3 } }),
        check: (r, c) => {
          assert.deepEqual(r, {});
          assert.equal(c.mails.filter((m) => m.publicKeyBase58Check === c.alice.pk).length, 1, 'still one mail');
        },
      },
      { name: 'no public key', body: () => ({ JWT: 'x', Email: 'a@b.co' }), error: { re: /^UpdateUserGlobalMetadataRequest: Must provide a valid public key\.$/ } },
      { name: 'nothing to update', body: async (c) => ({ UserPublicKeyBase58Check: c.alice.pk, JWT: await jwtOf(c, c.alice) }), error: { re: /^UpdateUserGlobalMetadataRequest: Must provide something to update\.$/ } },
      {
        name: 'a JWT signed by another owner key is refused (403)',
        body: async (c) => ({ UserPublicKeyBase58Check: c.alice.pk, JWT: await jwtOf(c, c.troll), Email: 'x@example.com' }),
        error: { status: 403, re: /^UpdateUserGlobalMetadataRequest: Invalid token: JWT is valid for another public key, not for / },
      },
      {
        name: "another owner's authorized derived key: authentic but not authorized for this key (403)",
        body: async (c) => ({ UserPublicKeyBase58Check: c.alice.pk, JWT: await issueJwt(c.n.deps.crypto, secretOf(c.derived), { derivedPublicKeyBase58Check: c.derived.pk }), Email: 'x@example.com' }),
        error: { status: 403, re: /^UpdateUserGlobalMetadataRequest: Invalid token: Derived key is not authorized/ },
      },
      { name: 'not an email address', body: async (c) => ({ UserPublicKeyBase58Check: c.dave.pk, JWT: await jwtOf(c, c.dave), Email: 'not an email' }), error: { re: /^UpdateUserGlobalMetadataRequest: Email is not a valid email address/ } },
    ]);

    // A user of its own (no profile needed: email is node-local), so the reads below are untouched.
    const mailer = keyPair();
    const mailsTo = (c: Ctx): VerificationMail[] => c.mails.filter((m) => m.publicKeyBase58Check === mailer.pk);
    const emailVerified = async (c: Ctx): Promise<boolean> => (await c.n.deps.store.get<{ emailVerified: boolean }>(`social:user:${Buffer.from(mailer.pk33).toString('hex')}`))?.emailVerified ?? false;

    table(ctx, 'resend-verify-email', [
      { name: 'a user without an email address is refused', body: async (c) => ({ PublicKey: mailer.pk, JWT: await jwtOf(c, mailer) }), error: { re: /^ResendVerifyEmail: Email missing$/ } },
      {
        name: 'mails a new code for the unverified address; the first code stops working',
        body: async (c) => {
          await c.n.ok('update-user-global-metadata', { UserPublicKeyBase58Check: mailer.pk, JWT: await jwtOf(c, mailer), Email: 'mailer@example.com' });
          assert.equal(mailsTo(c).length, 1, 'the first mail');
          return { PublicKey: mailer.pk, JWT: await jwtOf(c, mailer) };
        },
        check: async (r, c) => {
          assert.equal(r, undefined, 'an empty body');
          const [first, second] = mailsTo(c);
          assert.ok(first && second, 'a second mail');
          assert.equal(second.to, 'mailer@example.com');
          assert.notEqual(second.code, first.code);
          await c.n.fails('verify-email', { PublicKey: mailer.pk, EmailHash: first.code }, /^VerifyEmail: Invalid hash$/);
          assert.equal(await emailVerified(c), false);
        },
      },
      { name: 'a JWT of another key is refused (403)', body: async (c) => ({ PublicKey: mailer.pk, JWT: await jwtOf(c, c.troll) }), error: { status: 403, re: /^ResendVerifyEmail: Invalid token: JWT is valid for another public key/ } },
      { name: 'no JWT is refused (401)', body: () => ({ PublicKey: mailer.pk }), error: { status: 401, re: /^ResendVerifyEmail: Invalid token: / } },
      { name: 'a malformed key is refused without echoing it', body: () => ({ PublicKey: 'tBCnotAKeyMaybeASecret', JWT: 'x' }), error: { re: /^ResendVerifyEmail: Invalid public key: (?!.*tBCnotAKeyMaybeASecret)/ } },
    ]);

    table(ctx, 'verify-email', [
      { name: 'a wrong code is refused, without echoing it', body: () => ({ PublicKey: mailer.pk, EmailHash: 'guessedCode123' }), error: { re: /^VerifyEmail: Invalid hash$/ } },
      { name: 'an empty code is refused', body: () => ({ PublicKey: mailer.pk }), error: { re: /^VerifyEmail: Invalid hash$/ } },
      {
        name: 'the latest mailed code verifies the address (no JWT: the code is the proof); it works once',
        body: (c) => ({ PublicKey: mailer.pk, EmailHash: mailsTo(c).at(-1)!.code }),
        check: async (r, c) => {
          assert.equal(r, undefined, 'an empty body');
          assert.equal(await emailVerified(c), true);
          await c.n.fails('verify-email', { PublicKey: mailer.pk, EmailHash: mailsTo(c).at(-1)!.code }, /^VerifyEmail: Invalid hash$/);
          await c.n.fails('resend-verify-email', { PublicKey: mailer.pk, JWT: await jwtOf(c, mailer) }, /^ResendVerifyEmail: Email is already verified$/);
        },
      },
      { name: 'a malformed key is refused', body: () => ({ PublicKey: 'tBCnope', EmailHash: 'x' }), error: { re: /^VerifyEmail: Invalid public key: / } },
    ]);

    table(ctx, 'block-public-key', [
      {
        name: 'the creator blocks the troll and dave: the answer is the full blocked set; blocking twice is harmless',
        body: async (c) => {
          await c.n.ok('block-public-key', { PublicKeyBase58Check: c.creator.pk, BlockPublicKeyBase58Check: c.dave.pk, JWT: await jwtOf(c, c.creator) });
          await c.n.ok('block-public-key', { PublicKeyBase58Check: c.creator.pk, BlockPublicKeyBase58Check: c.troll.pk, JWT: await jwtOf(c, c.creator) });
          return { PublicKeyBase58Check: c.creator.pk, BlockPublicKeyBase58Check: c.troll.pk, JWT: await jwtOf(c, c.creator) };
        },
        check: (r, c) => assert.deepEqual(r, { BlockedPublicKeys: Object.fromEntries([c.dave.pk, c.troll.pk].sort().map((k) => [k, {}])) }),
      },
      {
        name: 'Unblock removes one key',
        body: async (c) => ({ PublicKeyBase58Check: c.creator.pk, BlockPublicKeyBase58Check: c.dave.pk, Unblock: true, JWT: await jwtOf(c, c.creator) }),
        check: (r, c) => assert.deepEqual(r, { BlockedPublicKeys: { [c.troll.pk]: {} } }),
      },
      { name: 'a bad blocker key (not echoed)', body: () => ({ PublicKeyBase58Check: NOT_A_KEY, BlockPublicKeyBase58Check: NOT_A_KEY, JWT: 'x' }), error: { re: /^BlockPublicKey: Problem decoding user public key: / } },
      { name: 'a bad JWT', body: (c) => ({ PublicKeyBase58Check: c.creator.pk, BlockPublicKeyBase58Check: c.dave.pk, JWT: 'a.b.c' }), error: { status: 401, re: /^BlockPublicKey: Invalid token: Problem verifying JWT token: / } },
      {
        name: 'a bad key to block',
        body: async (c) => ({ PublicKeyBase58Check: c.creator.pk, BlockPublicKeyBase58Check: NOT_A_KEY, JWT: await jwtOf(c, c.creator) }),
        error: { re: /^BlockPublicKey: Problem decoding public key to block: / },
      },
    ]);

    describe('blocked users’ comments on the blocker’s posts (isCommentHidden)', () => {
      it("the troll's mined comment on the creator's post is hidden while the creator blocks the troll", async () => {
        const c = ctx();
        const comment = await getPost(c.n.deps.store, new Uint8Array(Buffer.from(c.commentHash, 'hex')));
        assert.ok(comment, 'the comment is in chain state');
        const parent = await getPost(c.n.deps.store, comment.parentStakeId);
        assert.ok(parent, 'its parent post is in chain state');
        assert.equal(await isCommentHidden(c.n.deps.store, parent.posterPublicKey, comment.posterPublicKey), true);
        assert.equal(await isCommentHidden(c.n.deps.store, c.troll.pk33, c.creator.pk33), false, 'the block is one way');
      });
    });

    table(ctx, 'get-users-stateless', [
      {
        name: 'full users: profile, balance, holdings with profiles, holder count, node-local flags, fee rate and param updaters',
        body: (c) => ({ PublicKeysBase58Check: [c.creator.pk, c.alice.pk, c.dave.pk] }),
        check: (r, c) => {
          assert.equal(r['DefaultFeeRateNanosPerKB'], 1000);
          assert.equal((r['ParamUpdaters'] as J)[REGTEST_PARAM_UPDATER], true, 'the regtest param updater');
          const [cr, al, dv] = usersOf(r) as [J, J, J];
          assert.equal(cr['PublicKeyBase58Check'], c.creator.pk);
          const p = cr['ProfileEntryResponse'] as J;
          assert.equal(p['Username'], c.names.creator);
          assert.equal(p['BestExchangeRateNativePerDAOCoin'], 0.02, 'the best ask of the DAO coin');
          assert.ok((cr['BalanceNanos'] as number) > 0, 'balance');
          assert.equal(cr['UsersWhoHODLYouCount'], 2, 'alice and the creator');
          assert.deepEqual(cr['BlockedPubKeys'], { [c.troll.pk]: {} });
          assert.equal(cr['CanCreateProfile'], true);
          assert.deepEqual(cr['PublicKeysBase58CheckFollowedByUser'], []);
          const held = al['UsersYouHODL'] as J[];
          assert.equal(held.length, 1);
          assert.equal(held[0]!['CreatorPublicKeyBase58Check'], c.creator.pk);
          assert.equal(held[0]!['HODLerPublicKeyBase58Check'], c.alice.pk);
          assert.equal(held[0]!['HasPurchased'], true);
          assert.equal(held[0]!['NetBalanceInMempool'], 0, 'mined');
          assert.equal(held[0]!['BalanceNanosUint256'], `0x${BigInt(held[0]!['BalanceNanos'] as number).toString(16)}`);
          assert.equal((held[0]!['ProfileEntryResponse'] as J)['Username'], c.names.creator);
          assert.equal(al['HasEmail'], true);
          assert.equal(al['EmailVerified'], true, 'verified through the mailed code');
          assert.equal(al['ProfileEntryResponse'], null, 'alice has no profile');
          assert.equal(dv['ProfileEntryResponse'], null);
          for (const u of usersOf(r)) for (const f of ['IsAdmin', 'IsSuperAdmin', 'IsBlacklisted', 'IsGraylisted', 'JumioVerified']) assert.equal(u[f], false, f);
        },
      },
      {
        name: 'SkipForLeaderBoard: only the key and the profile',
        body: (c) => ({ PublicKeysBase58Check: [c.creator.pk], SkipForLeaderBoard: true }),
        check: (r, c) => {
          const [u] = usersOf(r) as [J];
          assert.equal((u['ProfileEntryResponse'] as J)['PublicKeyBase58Check'], c.creator.pk);
          assert.equal(u['BalanceNanos'], 0);
          assert.equal(u['UsersYouHODL'], null);
          assert.equal(u['BlockedPubKeys'], null);
        },
      },
      {
        name: 'a key that does not decode keeps its place, empty and not echoed',
        body: (c) => ({ PublicKeysBase58Check: [NOT_A_KEY, c.creator.pk] }),
        check: (r, c) => {
          const [bad, good] = usersOf(r) as [J, J];
          assert.equal(bad['PublicKeyBase58Check'], '');
          assert.equal(bad['ProfileEntryResponse'], null);
          assert.equal(good['PublicKeyBase58Check'], c.creator.pk);
          assert.ok(!JSON.stringify(r).includes(NOT_A_KEY), 'not echoed');
        },
      },
      {
        name: 'with ReaderPublicKeyBase58Check, users the reader blocked are left out',
        body: (c) => ({ PublicKeysBase58Check: [c.troll.pk, c.alice.pk], ReaderPublicKeyBase58Check: c.creator.pk }),
        check: (r, c) => assert.deepEqual(usersOf(r).map((u) => u['PublicKeyBase58Check']), [c.alice.pk]),
      },
      { name: 'no PublicKeysBase58Check', body: () => ({}), error: { re: /PublicKeysBase58Check/ } },
      { name: 'PublicKeysBase58Check not an array', body: () => ({ PublicKeysBase58Check: 'x' }), error: { re: /PublicKeysBase58Check/ } },
    ]);

    table(ctx, 'get-profiles', [
      {
        name: 'default: visible profiles by coin value, highest first; the hidden profile is left out',
        body: () => ({ NumToFetch: 50 }),
        check: (r, c) => {
          const keys = keysOf(r);
          assert.equal(keys[0], c.creator.pk, 'the creator has the most locked');
          assert.deepEqual([...keys].sort(), [...c.visible].sort());
          assert.ok(!keys.includes(c.hidden.pk), 'hidden');
          const locked = profilesOf(r).map(lockedOf);
          assert.deepEqual(locked, [...locked].sort((a, b) => b - a), 'coin-value order');
          assert.equal(r['NextPublicKey'], null);
        },
      },
      {
        name: 'the reader does not see users they blocked',
        body: (c) => ({ NumToFetch: 50, ReaderPublicKeyBase58Check: c.creator.pk }),
        check: (r, c) => assert.ok(!keysOf(r).includes(c.troll.pk) && keysOf(r).includes(c.creator.pk), 'troll left out'),
      },
      {
        name: 'paging by Username starts after that profile',
        body: (c) => ({ Username: c.names.creator.toUpperCase(), NumToFetch: 3 }),
        check: (r, c) => {
          assert.equal(profilesOf(r).length, 3);
          assert.ok(!keysOf(r).includes(c.creator.pk), 'the start profile is not repeated');
          assert.equal(r['NextPublicKey'], keysOf(r)[2], 'the next page starts after the last one');
        },
      },
      {
        name: 'UsernamePrefix: matching profiles only (any case), no NextPublicKey',
        body: (c) => ({ UsernamePrefix: `PG`, NumToFetch: 50 }),
        check: (r, c) => {
          const mine = profilesOf(r).filter((p) => (p['Username'] as string).endsWith(c.tag));
          assert.equal(mine.length, PAGED);
          for (const p of profilesOf(r)) assert.match(p['Username'] as string, /^pg/i);
          assert.equal(r['NextPublicKey'], null);
        },
      },
      {
        name: 'NumToFetch 1: that profile with its posts (poster profile embedded) and its holders, creator first',
        body: (c) => ({ PublicKeyBase58Check: c.creator.pk, NumToFetch: 1, FetchUsersThatHODL: true }),
        check: (r, c) => {
          const [p] = profilesOf(r) as [J];
          assert.equal(p['PublicKeyBase58Check'], c.creator.pk);
          const posts = p['Posts'] as J[];
          assert.deepEqual(posts.map((x) => x['Body']), ['hello from the creator'], 'top-level posts only');
          assert.equal((posts[0]!['ProfileEntryResponse'] as J)['Username'], c.names.creator);
          const holders = (p['UsersThatHODL'] as J[]).map((h) => h['HODLerPublicKeyBase58Check']);
          assert.deepEqual(holders, [c.creator.pk, c.alice.pk], 'the creator first although alice holds more');
        },
      },
      {
        name: 'OrderBy newest_last_post: the page sorted by latest post',
        body: () => ({ NumToFetch: 50, OrderBy: 'newest_last_post' }),
        check: (r, c) => assert.deepEqual(keysOf(r).slice(0, 2), [c.paged[0]!.pk, c.creator.pk]),
      },
      {
        name: 'OrderBy newest_last_comment: the commenter first',
        body: () => ({ NumToFetch: 50, OrderBy: 'newest_last_comment' }),
        check: (r, c) => assert.equal(keysOf(r)[0], c.troll.pk),
      },
      {
        name: 'OrderBy influencer_coin_price: by locked native',
        body: () => ({ NumToFetch: 50, OrderBy: 'influencer_coin_price' }),
        check: (r) => {
          const locked = profilesOf(r).map(lockedOf);
          assert.deepEqual(locked, [...locked].sort((a, b) => b - a));
        },
      },
      { name: 'NumToFetch must be below 100', body: () => ({ NumToFetch: 100 }), error: { re: /^GetProfiles: Max value for NumToFetch exceeded$/ } },
      { name: 'an unknown OrderBy', body: () => ({ OrderBy: 'random' }), error: { re: /^GetProfiles: OrderBy must be one of/ } },
      { name: 'an unknown ModerationType', body: () => ({ ModerationType: 'strict' }), error: { re: /^GetProfiles: ModerationType/ } },
      { name: 'an unknown Username', body: () => ({ Username: 'nobody_at_all' }), error: { re: /^GetProfiles: Problem getting profile for username: <nil> : nobody_at_all$/ } },
      { name: 'a bad start key (not echoed)', body: () => ({ PublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetProfiles: Problem decoding user public key: / } },
      { name: 'NumToFetch 1 of a hidden profile', body: (c) => ({ PublicKeyBase58Check: c.hidden.pk, NumToFetch: 1 }), error: { re: /^GetProfiles: Could not find profile for pub key/ } },
    ]);

    describe('get-profiles paging walk', () => {
      for (const size of [2, 3]) {
        it(`NumToFetch ${size}: every visible profile exactly once, in coin-value order`, async () => {
          const c = ctx();
          const seen: J[] = [];
          let next: string | null = null;
          for (let page = 0; page < 20; page++) {
            const r: J = await c.n.ok('get-profiles', { NumToFetch: size, ...(next === null ? {} : { PublicKeyBase58Check: next }) });
            assert.ok(profilesOf(r).length <= size, 'at most NumToFetch');
            seen.push(...profilesOf(r));
            next = r['NextPublicKey'] as string | null;
            if (next === null) break;
          }
          assert.equal(next, null, 'the walk ended');
          const keys = seen.map((p) => p['PublicKeyBase58Check'] as string);
          assert.equal(new Set(keys).size, keys.length, 'no profile twice');
          assert.deepEqual([...keys].sort(), [...c.visible].sort(), 'every visible profile');
          const locked = seen.map(lockedOf);
          assert.deepEqual(locked, [...locked].sort((a, b) => b - a), 'in order across pages');
        });
      }
    });

    table(ctx, 'get-single-profile', [
      {
        name: 'by public key: the profile, not black- or graylisted',
        body: (c) => ({ PublicKeyBase58Check: c.creator.pk }),
        check: (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), ['IsBlacklisted', 'IsGraylisted', 'Profile']);
          const p = r['Profile'] as J;
          assert.equal(p['PublicKeyBase58Check'], c.creator.pk);
          assert.deepEqual(p['ExtraData'], { Website: 'https://example.com' });
          assert.equal((p['DAOCoinEntry'] as J)['CoinsInCirculationNanos'], `0x${(1000n * COIN).toString(16)}`);
        },
      },
      { name: 'by username, any case', body: (c) => ({ Username: c.names.creator.toLowerCase() }), check: (r, c) => assert.equal((r['Profile'] as J)['PublicKeyBase58Check'], c.creator.pk) },
      { name: 'a hidden profile is still served', body: (c) => ({ PublicKeyBase58Check: c.hidden.pk }), check: (r) => assert.equal((r['Profile'] as J)['IsHidden'], true) },
      { name: 'missing with NoErrorOnMissing: Profile null', body: (c) => ({ PublicKeyBase58Check: c.dave.pk, NoErrorOnMissing: true }), check: (r) => assert.equal(r['Profile'], null) },
      { name: 'missing: 404', body: () => ({ Username: 'nobody_at_all' }), error: { status: 404, re: /^GetSingleProfile: could not find profile for username or public key: nobody_at_all, $/ } },
      { name: 'a bad key (not echoed)', body: () => ({ PublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetSingleProfile: Problem decoding user public key: / } },
      { name: 'neither key nor username', body: () => ({}), error: { re: /^GetSingleProfile: PublicKeyBase58Check or Username is required$/ } },
    ]);

    getTable(ctx, 'get-single-profile-picture/{key}', [
      {
        name: 'the stored data-URL image, decoded, with its content type',
        path: (c) => `get-single-profile-picture/${c.creator.pk}`,
        status: 200,
        check: async (r) => {
          assert.equal(r.headers.get('content-type'), 'image/png');
          assert.deepEqual(Buffer.from(await r.arrayBuffer()), PNG);
        },
      },
      {
        name: 'no picture with ?fallback=: 302 to the fallback',
        path: (c) => `get-single-profile-picture/${c.troll.pk}?fallback=${encodeURIComponent('https://example.com/default.png')}`,
        status: 302,
        check: (r) => assert.equal(r.headers.get('location'), 'https://example.com/default.png'),
      },
      {
        name: 'no profile and no fallback: 404',
        path: (c) => `get-single-profile-picture/${c.dave.pk}`,
        status: 404,
        check: async (r) => assert.deepEqual(await r.json(), { error: 'GetSingleProfilePicture: Profile Picture not found: _getProfilePictureForPublicKey: Profile not found' }),
      },
      { name: 'a bad key: 400', path: () => `get-single-profile-picture/${NOT_A_KEY}`, status: 400, check: async (r) => assert.ok(!(await r.text()).includes(NOT_A_KEY), 'not echoed') },
      { name: 'a fallback that is not http(s): 400', path: (c) => `get-single-profile-picture/${c.troll.pk}?fallback=javascript:alert(1)`, status: 400 },
    ]);

    getTable(ctx, 'get-user-metadata/{key}', [
      {
        name: "the user's node-local flags",
        path: (c) => `get-user-metadata/${c.alice.pk}`,
        status: 200,
        check: async (r) => {
          assert.deepEqual(await r.json(), { HasPhoneNumber: false, CanCreateProfile: true, BlockedPubKeys: {}, HasEmail: true, EmailVerified: true, JumioFinishedTime: 0, JumioVerified: false, JumioReturned: false });
        },
      },
      { name: 'the blocker sees its blocked keys', path: (c) => `get-user-metadata/${c.creator.pk}`, status: 200, check: async (r, c) => assert.deepEqual(((await r.json()) as J)['BlockedPubKeys'], { [c.troll.pk]: {} }) },
      { name: 'a bad key: 400', path: () => `get-user-metadata/${NOT_A_KEY}`, status: 400, check: async (r) => assert.match(((await r.json()) as J)['error'] as string, /^GetUserMetadata: error decoding public key: /) },
    ]);

    table(ctx, 'get-user-derived-keys', [
      {
        name: 'the authorized derived key with its expiration, validity, remaining limit and memo',
        body: (c) => ({ PublicKeyBase58Check: c.owner.pk }),
        check: (r, c) => {
          const keys = r['DerivedKeys'] as J;
          assert.deepEqual(Object.keys(keys), [c.derived.pk]);
          const k = keys[c.derived.pk] as J;
          assert.equal(k['OwnerPublicKeyBase58Check'], c.owner.pk);
          assert.equal(k['DerivedPublicKeyBase58Check'], c.derived.pk);
          assert.equal(k['IsValid'], true);
          assert.equal(typeof k['ExpirationBlock'], 'number');
          assert.equal(k['Memo'], 'e2e app');
          const limit = k['TransactionSpendingLimit'] as J;
          assert.deepEqual(limit['TransactionCountLimitMap'], { BASIC_TRANSFER: 3 });
          assert.equal(limit['GlobalDESOLimit'], 100_000);
          assert.equal(limit['IsUnlimited'], false);
        },
      },
      { name: 'a key without derived keys: an empty map', body: (c) => ({ PublicKeyBase58Check: c.dave.pk }), check: (r) => assert.deepEqual(r, { DerivedKeys: {} }) },
      { name: 'a bad key (not echoed)', body: () => ({ PublicKeyBase58Check: NOT_A_KEY }), error: { re: /^GetUserDerivedKeys: Problem decoding user public key: / } },
      { name: 'no key', body: () => ({}), error: { re: /PublicKeyBase58Check/ } },
    ]);

    table(ctx, 'get-user-global-metadata', [
      { name: "the user's email and phone", body: async (c) => ({ UserPublicKeyBase58Check: c.alice.pk, JWT: await jwtOf(c, c.alice) }), check: (r) => assert.deepEqual(r, { Email: 'alice@example.com', PhoneNumber: '' }) },
      { name: 'no public key', body: () => ({ JWT: 'x' }), error: { re: /^GetUserGlobalMetadataRequest: Must provide a valid public key\.$/ } },
      {
        name: "another user's JWT (the reference's update prefix)",
        body: async (c) => ({ UserPublicKeyBase58Check: c.alice.pk, JWT: await jwtOf(c, c.creator) }),
        error: { status: 403, re: /^UpdateUserGlobalMetadataRequest: Invalid token: JWT is valid for another public key, not for / },
      },
    ]);

    table(ctx, 'delete-pii', [
      {
        name: 'removes email and phone: 200 with an empty body',
        body: async (c) => ({ PublicKeyBase58Check: c.alice.pk, JWT: await jwtOf(c, c.alice) }),
        check: (r) => assert.equal(r, undefined, 'empty body (no JSON)'),
      },
      { name: 'no public key', body: () => ({ JWT: 'x' }), error: { re: /^DeletePII: PublicKeyBase58Check required$/ } },
      { name: 'a bad JWT', body: (c) => ({ PublicKeyBase58Check: c.alice.pk, JWT: 'nope' }), error: { status: 401, re: /^DeletePII: error validating JWT: Problem verifying JWT token: / } },
    ]);

    describe('after delete-pii', () => {
      it('the email is gone', async () => {
        const c = ctx();
        assert.deepEqual(await c.n.ok('get-user-global-metadata', { UserPublicKeyBase58Check: c.alice.pk, JWT: await jwtOf(c, c.alice) }), { Email: '', PhoneNumber: '' });
        const [u] = usersOf(await c.n.ok('get-users-stateless', { PublicKeysBase58Check: [c.alice.pk] })) as [J];
        assert.equal(u['HasEmail'], false);
        assert.equal(u['EmailVerified'], false);
      });
    });

    table(ctx, 'delete-identities', [
      { name: 'answers {} (this node sets no seed-info cookies)', body: () => ({}), check: (r) => assert.deepEqual(r, {}) },
      { name: 'a body that is not JSON', body: () => 'nope' as unknown as J, error: { re: /malformed JSON/ } },
    ]);
  });
}

for (const store of TEST_STORES) suite(store);
