/**
 * Hostile bodies (issue 17 items 2, 5 and 7), end to end once per store:
 * - `__proto__` / `constructor` / `prototype` as keys of client maps are 400s, and a record that
 *   already holds such a key (written before they were refused) no longer locks its user, nor
 *   the admin who blacklists them, out with "changing too often" 500s;
 * - a transaction's ExtraData key `__proto__` is answered as an ordinary key;
 * - the message read state takes public keys only, at most MAX_READ_STATE_CONTACTS of them, and
 *   get-users-stateless never reads it;
 * - JSON nested past 64 levels is refused before it is parsed, on HTTP and both sockets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signTx } from 'deso-protocol';
import { decodeTxn, encodeTxn } from '../../server/chain/txn/envelope.js';
import { issueJwt } from '../../server/identity/jwt.js';
import { MAX_READ_STATE_CONTACTS, moderationFlags, userMetadataKeys } from '../../server/social/userMetadata.js';
import type { Store } from '../../server/store/types.js';
import { keyPair, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { postJson } from '../helpers/http.js';
import { WsClient } from '../helpers/ws.js';

const FEE = { MinFeeRateNanosPerKB: 1000 };
const admin = keyPair();
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

function suite(store: 'memory' | 'redis'): void {
  describe(`hostile bodies (${store} store)`, () => {
    let n: ChainNode;
    const jwt = (k: KeyPair): Promise<string> => issueJwt(n.deps.crypto, new Uint8Array(Buffer.from(k.seedHex, 'hex')));
    /** POSTs JSON text as is (a JS object literal cannot hold an own "__proto__" key). */
    const postText = async (path: string, text: string): Promise<{ status: number; json: J }> => {
      const r = await postJson(n.url, `/api/v0/${path}`, text);
      return { status: r.status, json: r.json as J };
    };

    /** What a user and an admin must always be able to do with the user's metadata. */
    async function stillUsable(victim: KeyPair): Promise<void> {
      await n.ok('update-user-global-metadata', { UserPublicKeyBase58Check: victim.pk, JWT: await jwt(victim), Email: 'victim@example.com' });
      const pii = await n.post('delete-pii', { PublicKeyBase58Check: victim.pk, JWT: await jwt(victim) });
      assert.equal(pii.status, 200, `delete-pii: ${JSON.stringify(pii.json)}`);
      await n.ok('admin/update-user-global-metadata', { AdminPublicKey: admin.pk, JWT: await jwt(admin), UserPublicKeyBase58Check: victim.pk, IsBlacklistUpdate: true, RemoveEverywhere: true });
      assert.deepEqual(await moderationFlags(n.deps.store, victim.pk33), { isBlacklisted: true, isGraylisted: false });
      const meta = await n.ok('get-user-global-metadata', { UserPublicKeyBase58Check: victim.pk, JWT: await jwt(victim) });
      assert.equal(meta['Email'], '', 'delete-pii removed the email');
    }

    before(async () => {
      n = await startChainNode({ store, args: ['--admin-public-keys', admin.pk] });
    });
    after(async () => {
      await n?.close();
    });

    it('the reproduction: {"__proto__": 1} as read state is a 400; the user, delete-pii and the admin blacklist still work', async () => {
      const victim = keyPair();
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        const r = await postText('update-user-global-metadata', `{"UserPublicKeyBase58Check":"${victim.pk}","JWT":"${await jwt(victim)}","MessageReadStateUpdatesByContact":{"${key}":1}}`);
        assert.equal(r.status, 400, `${key}: ${JSON.stringify(r.json)}`);
        assert.match(r.json['error'] as string, new RegExp(`^MessageReadStateUpdatesByContact: the key "${key}" is not allowed`));
      }
      await stillUsable(victim);
    });

    it('a record that already holds a "__proto__" key (written before the schema refused it) locks nobody out', async () => {
      const victim = keyPair();
      // What the old node stored for the reproduction: msgpackr reads the key back as "__proto_".
      await n.deps.store.set(userMetadataKeys.record(victim.pk33), JSON.parse('{"email":"","messageReadStateByContact":{"__proto__":1}}'));
      await stillUsable(victim);
    });

    it('ExtraData maps of constructing routes refuse the same keys', async () => {
      const user = keyPair();
      const cases: Array<[string, string, string]> = [
        ['submit-post', 'PostExtraData', `{"UpdaterPublicKeyBase58Check":"${user.pk}","BodyObj":{"Body":"x"},"PostExtraData":{"__proto__":"x"}}`],
        ['buy-or-sell-creator-coin', 'ExtraData', `{"UpdaterPublicKeyBase58Check":"${user.pk}","CreatorPublicKeyBase58Check":"${admin.pk}","OperationType":"buy","DeSoToSellNanos":1,"ExtraData":{"constructor":"x"}}`],
        ['update-profile', 'ExtraData', `{"UpdaterPublicKeyBase58Check":"${user.pk}","NewUsername":"x","ExtraData":{"prototype":"x"}}`],
      ];
      for (const [path, field, text] of cases) {
        const r = await postText(path, text);
        assert.equal(r.status, 400, `${path}: ${JSON.stringify(r.json)}`);
        assert.match(r.json['error'] as string, new RegExp(`^${field}: the key "(__proto__|constructor|prototype)" is not allowed`), path);
      }
    });

    it('a signed transaction with ExtraData key "__proto__" is answered with it as an ordinary key', async () => {
      const user = keyPair();
      await n.fund(user.pk, 1e9);
      const username = `proto${Date.now().toString(36).slice(-6)}`;
      const c = await n.ok('update-profile', { UpdaterPublicKeyBase58Check: user.pk, NewUsername: username, NewCreatorBasisPoints: 1000, NewStakeMultipleBasisPoints: 12500, ...FEE });
      const env = decodeTxn(Buffer.from(c['TransactionHex'] as string, 'hex'));
      const withProto = encodeTxn({ ...env, extraData: [...env.extraData, [utf8('__proto__'), utf8('{"polluted":true}')]] });
      const s = await n.ok('submit-transaction', { TransactionHex: await signTx(Buffer.from(withProto).toString('hex'), user.seedHex) });
      await n.waitMined(s['TxnHashHex'] as string);
      const r = await postJson(n.url, '/api/v0/get-single-profile', { PublicKeyBase58Check: user.pk });
      assert.equal(r.status, 200, r.text);
      const extra = ((r.json as J)['Profile'] as J)['ExtraData'] as Record<string, unknown>;
      assert.ok(Object.hasOwn(extra, '__proto__'), `ExtraData answers the key: ${r.text.slice(0, 500)}`);
      assert.equal(extra['__proto__'], '{"polluted":true}');
      const users = await n.ok('get-users-stateless', { PublicKeysBase58Check: [user.pk] });
      assert.equal(((users['UserList'] as J[])[0]!['ProfileEntryResponse'] as J)['Username'], username);
    });

    it('read state keys must be public keys: the reproduction (1,000 keys of ~950 characters) is a 400', async () => {
      const u = keyPair();
      const updates = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`${i}`.padStart(950, 'x'), i]));
      const r = await n.post('update-user-global-metadata', { UserPublicKeyBase58Check: u.pk, JWT: await jwt(u), MessageReadStateUpdatesByContact: updates });
      assert.equal(r.status, 400, JSON.stringify(r.json).slice(0, 300));
      assert.match(r.json['error'] as string, /^UpdateUserGlobalMetadataRequest: MessageReadStateUpdatesByContact key: /);
      assert.ok(!(r.json['error'] as string).includes('xxxx'), 'the key is not echoed');
      assert.equal(await n.deps.store.get(userMetadataKeys.readState(u.pk33)), undefined, 'nothing was stored');
    });

    it(`read state holds at most ${MAX_READ_STATE_CONTACTS} contacts: past it a 400 naming the limit, the record bounded, get-users-stateless never reads it`, async () => {
      const u = keyPair();
      const contacts = Array.from({ length: MAX_READ_STATE_CONTACTS + 1 }, () => keyPair().pk);
      const update = async (keys: string[]): Promise<{ status: number; json: J }> =>
        n.post('update-user-global-metadata', { UserPublicKeyBase58Check: u.pk, JWT: await jwt(u), MessageReadStateUpdatesByContact: Object.fromEntries(keys.map((k, i) => [k, i])) });
      for (let i = 0; i < MAX_READ_STATE_CONTACTS; i += 1000) {
        const r = await update(contacts.slice(i, Math.min(i + 1000, MAX_READ_STATE_CONTACTS)));
        assert.equal(r.status, 200, JSON.stringify(r.json));
      }
      const refused = await update([contacts[MAX_READ_STATE_CONTACTS]!]);
      assert.equal(refused.status, 400);
      assert.equal(refused.json['error'], `UpdateUserGlobalMetadataRequest: MessageReadStateUpdatesByContact: a user's read state holds at most ${MAX_READ_STATE_CONTACTS} contacts`);
      assert.equal((await update(contacts.slice(0, 10))).status, 200, 'known contacts can still be updated');
      const stored = await n.deps.store.getStored<object>(userMetadataKeys.readState(u.pk33));
      assert.equal(Object.keys(stored!.value).length, MAX_READ_STATE_CONTACTS);
      assert.ok(stored!.bytes.length < 400_000, `the read state stays bounded (${stored!.bytes.length} bytes)`);

      const reads = spyOnReads(n.deps.store);
      try {
        const users = await n.ok('get-users-stateless', { PublicKeysBase58Check: Array.from({ length: 20 }, () => u.pk) });
        assert.equal((users['UserList'] as J[]).length, 20);
      } finally {
        reads.restore();
      }
      assert.deepEqual(reads.keys.filter((k) => k.startsWith('social:readstate:')), [], 'get-users-stateless decodes no read state');
      assert.ok(reads.keys.some((k) => k.startsWith('social:user:')), 'the spy saw the metadata reads');
    });

    it('JSON nested past 64 levels is refused before parsing: 400 on HTTP, an error frame on the identity and miner sockets', async () => {
      const depth = 500_000;
      const deep = `{"PublicKeysBase58Check":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const r = await postText('get-users-stateless', deep);
        best = Math.min(best, performance.now() - t0);
        assert.equal(r.status, 400);
        assert.equal(r.json['error'], 'request body refused: JSON nests arrays and objects more than 64 deep');
      }
      // Loose: JSON.parse of this body alone took 330-390 ms.
      assert.ok(best < 250, `a 1 MB deep body is refused fast (best of 3: ${best.toFixed(0)} ms)`);

      const ws = await WsClient.connect(`${n.url.replace(/^http/, 'ws')}/api/v0/identity`);
      try {
        ws.send(`{"id":"deep","service":"identity","method":"jwt","payload":${'['.repeat(depth)}${']'.repeat(depth)}}`);
        const reply = await ws.next(() => true, 'the identity answer');
        assert.match(((reply.json as J)['payload'] as J)['error'] as string, /more than 64 deep/);
        assert.ok(ws.isOpen, 'the identity socket stays open');
      } finally {
        await ws.close();
      }
      const miner = await WsClient.connect(`${n.url.replace(/^http/, 'ws')}/api/v0/miner`);
      try {
        // Miner frames are at most 64 KiB.
        miner.send(`{"id":1,"method":"subscribe","params":${'['.repeat(30_000)}${']'.repeat(30_000)}}`);
        const reply = (await miner.next(() => true, 'the miner answer')).json as J;
        assert.equal(reply['status'], 400);
        assert.equal(reply['error'], 'message refused: JSON nests arrays and objects more than 64 deep');
        assert.ok(miner.isOpen, 'the miner socket stays open');
      } finally {
        await miner.close();
      }
    });
  });
}

/** Records the keys of every value read from `store` until restored. */
function spyOnReads(store: Store): { keys: string[]; restore(): void } {
  const keys: string[] = [];
  const s = store as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const name of ['get', 'getStored', 'getMany']) {
    const original = s[name]!;
    originals.set(name, original);
    s[name] = (...args: unknown[]) => {
      const k = args[0];
      keys.push(...(Array.isArray(k) ? k.map(String) : [String(k)]));
      return original.apply(store, args);
    };
  }
  return {
    keys,
    restore() {
      for (const [name, original] of originals) s[name] = original;
    },
  };
}

for (const store of TEST_STORES) suite(store);
