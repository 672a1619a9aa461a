/**
 * The chain-facing admin routes (spec §4.10; reference node-api.md §3) on a real node, once per
 * store: node-control, get-mempool-stats, get-global-params (admin and public),
 * update-global-params and swap-identity. Data comes from real transactions: the super admin
 * constructs, the param updater (`--param-updater-public-keys`) signs with the SDK and submits,
 * the node's miner mines. Every route: success at its level with its audit entry, 401 without a
 * JWT, 403 for a non-admin, and 403 for a plain admin on the super-admin routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { constructTxn } from '../../server/chain/construct.js';
import { encodeUvarint } from '../../server/chain/txn/varint.js';
import { adminTable } from '../helpers/adminTable.js';
import { keyPair, profileBody, startChainNode, type ChainNode, type J, type KeyPair, TEST_STORES } from '../helpers/chainNode.js';
import { minedTxnLocation } from '../../server/chain/state/minedTxns.js';
import { adminBody } from '../helpers/adminBody.js';

// The SDK signs with the browser's window.crypto / btoa; Node has both on globalThis.
(globalThis as { window?: unknown }).window ??= globalThis;

const FEE = { MinFeeRateNanosPerKB: 1000 };
const NEW_PROFILE_FEE = 12_345_678;

const superAdmin = keyPair();
const admin = keyPair();
const outsider = keyPair();
const updater = keyPair();

/** The reference's get-global-params fields. */
const GLOBAL_PARAMS_FIELDS = [
  'CreateNFTFeeNanos',
  'CreateProfileFeeNanos',
  'EpochDurationNumBlocks',
  'JailInactiveValidatorGracePeriodEpochs',
  'LeaderScheduleMaxNumValidators',
  'MaxCopiesPerNFT',
  'MinimumNetworkFeeNanosPerKB',
  'StakeLockupEpochDuration',
  'USDCentsPerBitcoin',
  'ValidatorJailEpochDuration',
  'ValidatorSetMaxNumValidators',
];
const TXN_RESPONSE_FIELDS = ['ChangeAmountNanos', 'FeeNanos', 'TotalInputNanos', 'Transaction', 'TransactionHex'];

interface Ctx {
  n: ChainNode;
  /** Has a profile (made before any fee change). */
  alice: KeyPair;
  aliceName: string;
  /** No profile until the swap gives it alice's. */
  bob: KeyPair;
  /** Creates a profile after the fee change. */
  carol: KeyPair;
  carolName: string;
  /** Signed transactions submitted while the miner is paused (mempool stats). */
  waiting: string[];
}

const ownProfile = (k: KeyPair, username: string): J => ({ ...FEE, ...profileBody(k.pk, username) });

async function setup(n: ChainNode): Promise<Ctx> {
  const tag = Date.now().toString(36).slice(-6);
  const [alice, bob, carol] = [keyPair(), keyPair(), keyPair()];
  for (const k of [updater, alice, bob, carol, outsider]) await n.fund(k.pk, 0.2 * 1e9);
  const aliceName = `al${tag}`;
  await n.submit((await n.ok('update-profile', ownProfile(alice, aliceName)))['TransactionHex'] as string, alice, 'sdk');
  return { n, alice, aliceName, bob, carol, carolName: `ca${tag}`, waiting: [] };
}

const extraDataKeys = (r: J): string[] => Object.keys((r['Transaction'] as J)['ExtraData'] ?? {}).sort();
const globalParams = async (c: Ctx): Promise<J> => c.n.ok('get-global-params', {});
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));


const table = adminTable<Ctx>({ superAdmin, admin, outsider, as: (_c, k, body) => adminBody(k, body) });

function suite(store: 'memory' | 'redis'): void {
  describe(`admin chain routes (${store} store)`, () => {
    let c: Ctx | undefined;
    const ctx = (): Ctx => {
      assert.ok(c, 'the setup ran');
      return c;
    };

    before(async () => {
      const args = ['--super-admin-public-keys', superAdmin.pk, '--admin-public-keys', admin.pk, '--param-updater-public-keys', updater.pk];
      c = await setup(await startChainNode({ args, store }));
    });
    after(async () => {
      await c?.n.close();
    });

    table(ctx, 'admin/get-global-params', 'admin', [
      {
        name: 'an admin reads the params in force: the node\'s defaults before any update; the public route answers the same',
        body: () => adminBody(admin, {}),
        check: async (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), GLOBAL_PARAMS_FIELDS);
          assert.equal(r['CreateProfileFeeNanos'], 0, '--create-profile-fee-nanos (default 0)');
          assert.equal(r['MinimumNetworkFeeNanosPerKB'], 0);
          assert.equal(r['StakeLockupEpochDuration'], 3, 'core\'s default');
          assert.deepEqual(await globalParams(c), r, 'POST get-global-params (public) agrees');
        },
      },
    ], () => ({}));

    table(ctx, 'admin/update-global-params', 'superAdmin', [
      {
        name: 'the super admin constructs an update only of the given fields; the param updater signs and submits it; the new values are in force',
        body: () => adminBody(superAdmin, { ...FEE, UpdaterPublicKeyBase58Check: updater.pk, CreateProfileFeeNanos: NEW_PROFILE_FEE, MaxCopiesPerNFT: 25 }),
        check: async (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), TXN_RESPONSE_FIELDS);
          assert.equal((r['Transaction'] as J)['TxnTypeJSON'], 13, 'UPDATE_GLOBAL_PARAMS');
          assert.deepEqual(extraDataKeys(r), ['CreateProfileFeeNanos', 'MaxCopiesPerNFT'], 'omitted fields are not sent (left unchanged)');
          assert.ok((r['FeeNanos'] as number) > 0, 'a fee at the requested rate');
          await c.n.submit(r['TransactionHex'] as string, updater, 'sdk');
          const gp = await globalParams(c);
          assert.equal(gp['CreateProfileFeeNanos'], NEW_PROFILE_FEE);
          assert.equal(gp['MaxCopiesPerNFT'], 25);
          assert.equal(gp['USDCentsPerBitcoin'], 0, 'untouched');
          assert.equal((await c.n.ok('get-app-state', {}))['CreateProfileFeeNanos'], NEW_PROFILE_FEE, 'get-app-state serves the fee in force');
        },
      },
      {
        name: '−1 and omitted fields stay unchanged, an unchanged value is not sent',
        body: () => adminBody(superAdmin, { ...FEE, UpdaterPublicKeyBase58Check: updater.pk, CreateProfileFeeNanos: NEW_PROFILE_FEE, MaxCopiesPerNFT: -1, USDCentsPerBitcoin: 2_500_000 }),
        check: async (r, c) => {
          assert.deepEqual(extraDataKeys(r), ['USDCentsPerBitcoin']);
          await c.n.submit(r['TransactionHex'] as string, updater, 'sdk');
          const gp = await globalParams(c);
          assert.deepEqual([gp['USDCentsPerBitcoin'], gp['CreateProfileFeeNanos'], gp['MaxCopiesPerNFT']], [2_500_000, NEW_PROFILE_FEE, 25]);
        },
      },
      {
        name: 'an updater that is not a param updater is refused at construction',
        body: () => adminBody(superAdmin, { ...FEE, UpdaterPublicKeyBase58Check: outsider.pk, CreateProfileFeeNanos: 1 }),
        error: { re: /^UpdateGlobalParams: UpdaterPublicKeyBase58Check tBC\w+ is not a param updater of this node \(--param-updater-public-keys\)/ },
      },
      {
        name: 'a value out of core\'s bounds is refused with the chain\'s rule error',
        body: () => adminBody(superAdmin, { ...FEE, UpdaterPublicKeyBase58Check: updater.pk, MaxCopiesPerNFT: 0 }),
        error: { re: /^UpdateGlobalParams: Problem creating transaction: RuleErrorMaxCopiesPerNFTTooLow: / },
      },
      {
        name: 'a malformed updater key is refused',
        body: () => adminBody(superAdmin, { UpdaterPublicKeyBase58Check: 'tBCnope' }),
        error: { re: /^UpdateGlobalParams: Problem decoding updater base58 public key: / },
      },
      {
        name: 'a field that is not an integer is refused',
        body: () => adminBody(superAdmin, { UpdaterPublicKeyBase58Check: updater.pk, CreateProfileFeeNanos: 'lots' }),
        error: { re: /^CreateProfileFeeNanos: / },
      },
    ], () => ({ UpdaterPublicKeyBase58Check: updater.pk, CreateProfileFeeNanos: 1 }));

    describe('global params on the chain', () => {
      it('a profile created after the update is charged the new CreateProfileFeeNanos', async () => {
        const c = ctx();
        const before = await c.n.deps.chain.balance(c.carol.pk33);
        const built = await c.n.ok('update-profile', ownProfile(c.carol, c.carolName));
        await c.n.submit(built['TransactionHex'] as string, c.carol, 'sdk');
        const after = await c.n.deps.chain.balance(c.carol.pk33);
        assert.equal(before - after, BigInt(built['FeeNanos'] as number) + BigInt(NEW_PROFILE_FEE), 'network fee plus the on-chain profile fee');
      });

      it('an UPDATE_GLOBAL_PARAMS signed by a key that is not a param updater is rejected by submit-transaction', async () => {
        const c = ctx();
        const tip = await c.n.deps.chain.tip();
        const built = constructTxn({
          publicKey: outsider.pk33,
          metadata: { type: 'UPDATE_GLOBAL_PARAMS' },
          extraData: [[new TextEncoder().encode('CreateProfileFeeNanos'), encodeUvarint(1n)]],
          minFeeRateNanosPerKB: 1000n,
          networkMinFeeRateNanosPerKB: 0n,
          tipHeight: tip.height,
          maxNonceExpirationBlockHeightOffset: 86_400n,
        });
        const signed = await c.n.sign(Buffer.from(built.bytes).toString('hex'), outsider, 'sdk');
        await c.n.fails('submit-transaction', { TransactionHex: signed }, /^SubmitTransaction: Problem processing transaction: RuleErrorUserNotAuthorizedToUpdateGlobalParams: /);
        assert.equal((await globalParams(c))['CreateProfileFeeNanos'], NEW_PROFILE_FEE, 'unchanged');
      });
    });

    table(ctx, 'admin/swap-identity', 'superAdmin', [
      {
        name: 'alice\'s profile moves to bob (From by username, To by public key) once the param updater\'s transaction is mined',
        body: (c) => adminBody(superAdmin, { ...FEE, UpdaterPublicKeyBase58Check: updater.pk, FromUsernameOrPublicKeyBase58Check: c.aliceName, ToUsernameOrPublicKeyBase58Check: c.bob.pk }),
        check: async (r, c) => {
          assert.deepEqual(Object.keys(r).sort(), TXN_RESPONSE_FIELDS);
          assert.equal((r['Transaction'] as J)['TxnTypeJSON'], 12, 'SWAP_IDENTITY');
          await c.n.submit(r['TransactionHex'] as string, updater, 'sdk');
          const moved = (await c.n.ok('get-single-profile', { Username: c.aliceName }))['Profile'] as J;
          assert.equal(moved['PublicKeyBase58Check'], c.bob.pk, 'the username now belongs to bob');
          await c.n.fails('get-single-profile', { PublicKeyBase58Check: c.alice.pk }, /^GetSingleProfile: could not find profile/, 404);
        },
      },
      {
        name: 'an unknown username is refused',
        body: (c) => adminBody(superAdmin, { ...FEE, UpdaterPublicKeyBase58Check: updater.pk, FromUsernameOrPublicKeyBase58Check: 'nosuchuser', ToUsernameOrPublicKeyBase58Check: c.bob.pk }),
        error: { re: /^getPublicKeyFromUsernameOrPublicKeyString: Profile with username nosuchuser does not exist$/ },
      },
      {
        name: 'a public key with a bad checksum is refused',
        body: (c) => adminBody(superAdmin, { ...FEE, UpdaterPublicKeyBase58Check: updater.pk, FromUsernameOrPublicKeyBase58Check: `${c.alice.pk.slice(0, -1)}${c.alice.pk.endsWith('a') ? 'b' : 'a'}`, ToUsernameOrPublicKeyBase58Check: c.bob.pk }),
        error: { re: /^getPublicKeyFromUsernameOrPublicKeyString: / },
      },
      {
        name: 'an updater that is not a param updater is refused',
        body: (c) => adminBody(superAdmin, { ...FEE, UpdaterPublicKeyBase58Check: outsider.pk, FromUsernameOrPublicKeyBase58Check: c.bob.pk, ToUsernameOrPublicKeyBase58Check: c.alice.pk }),
        error: { re: /^SwapIdentity: UpdaterPublicKeyBase58Check tBC\w+ is not a param updater of this node/ },
      },
    ], (c) => ({ UpdaterPublicKeyBase58Check: updater.pk, FromUsernameOrPublicKeyBase58Check: c.alice.pk, ToUsernameOrPublicKeyBase58Check: c.bob.pk }));

    table(ctx, 'admin/get-mempool-stats', 'admin', [
      {
        name: 'an empty mempool: no types',
        body: () => adminBody(admin, {}),
        check: (r) => assert.deepEqual(r, { TransactionSummaryStats: {} }),
      },
      {
        name: 'with the miner paused, the waiting transactions by type: count and bytes',
        body: async (c) => {
          await c.n.deps.producer.setMiner('pause');
          for (const k of [c.alice, c.bob]) {
            const t = await c.n.ok('send-deso', { ...FEE, SenderPublicKeyBase58Check: k.pk, RecipientPublicKeyOrUsername: c.carol.pk, AmountNanos: 1000 });
            const signed = await c.n.sign(t['TransactionHex'] as string, k, 'sdk');
            await c.n.ok('submit-transaction', { TransactionHex: signed });
            c.waiting.push(signed);
          }
          return adminBody(admin, {});
        },
        check: async (r, c) => {
          const bytes = c.waiting.reduce((sum, h) => sum + h.length / 2, 0);
          assert.deepEqual(r, { TransactionSummaryStats: { BASIC_TRANSFER: { Count: 2, TotalBytes: bytes } } });
          await c.n.deps.producer.setMiner('resume');
          for (const h of await c.n.deps.chain.mempool()) await c.n.waitMined(h.hashHex);
        },
      },
    ], () => ({}));

    table(ctx, 'admin/node-control', 'admin', [
      {
        name: 'get_info: the chain tip as header and block tip, no peers, the built-in miner\'s reward key',
        body: () => adminBody(admin, { OperationType: 'get_info' }),
        check: async (r, c) => {
          const tip = await c.n.deps.chain.tip();
          const s = r['DeSoStatus'] as J;
          assert.equal(s['State'], 'FULLY_CURRENT');
          assert.equal(s['LatestBlockHeight'], Number(tip.height));
          assert.equal(s['LatestBlockHash'], tip.hashHex);
          assert.equal(s['LatestBlockTstampSecs'], Number(tip.tstampSecs));
          assert.deepEqual([s['LatestHeaderHeight'], s['LatestHeaderHash'], s['LatestHeaderTstampSecs']], [s['LatestBlockHeight'], s['LatestBlockHash'], s['LatestBlockTstampSecs']], 'the header tip is the block tip');
          assert.deepEqual([s['HeadersRemaining'], s['BlocksRemaining']], [0, 0]);
          for (const k of ['DeSoOutboundPeers', 'DeSoInboundPeers', 'DeSoUnconnectedPeers', 'RemoteNodeConnections']) assert.deepEqual(r[k], [], `${k}: no peers`);
          assert.deepEqual(r['MinerPublicKeys'], [c.n.miner.pk]);
        },
      },
      {
        name: 'update_miner with no keys stops the miner: transactions wait; with keys it mines again and pays them',
        body: () => adminBody(admin, { OperationType: 'update_miner', MinerPublicKeys: '' }),
        check: async (r, c) => {
          assert.equal(r, undefined, '200 with an empty body');
          const info = await c.n.ok('admin/node-control', await adminBody(admin, { OperationType: 'get_info' }));
          assert.deepEqual(info['MinerPublicKeys'], [], 'no miner keys while stopped');
          const t = await c.n.ok('send-deso', { ...FEE, SenderPublicKeyBase58Check: c.carol.pk, RecipientPublicKeyOrUsername: c.alice.pk, AmountNanos: 1000 });
          const sent = await c.n.ok('submit-transaction', { TransactionHex: await c.n.sign(t['TransactionHex'] as string, c.carol, 'sdk') });
          const hash = sent['TxnHashHex'] as string;
          await sleep(600); // several of the miner's 20 ms batching delays
          assert.equal(await minedTxnLocation(c.n.deps.store, hash), undefined, 'not mined while the miner is stopped');
          const [k1, k2] = [keyPair(), keyPair()];
          await c.n.ok('admin/node-control', await adminBody(admin, { OperationType: 'update_miner', MinerPublicKeys: `${k1.pk},${k2.pk}` }));
          await c.n.waitMined(hash);
          const info2 = await c.n.ok('admin/node-control', await adminBody(admin, { OperationType: 'get_info' }));
          assert.deepEqual(info2['MinerPublicKeys'], [k1.pk, k2.pk]);
          const rewards = (await c.n.deps.chain.balance(k1.pk33)) + (await c.n.deps.chain.balance(k2.pk33));
          assert.ok(rewards > 0n, 'the new keys received the block reward');
          await c.n.ok('admin/node-control', await adminBody(admin, { OperationType: 'update_miner', MinerPublicKeys: c.n.miner.pk }));
        },
      },
      {
        name: 'connect_deso_node is refused: this node has no peer networking',
        body: () => adminBody(admin, { OperationType: 'connect_deso_node', Address: '127.0.0.1:17000' }),
        error: { re: /^NodeControlRequest: connect_deso_node is not available: this node runs its own chain and has no peer networking/ },
      },
      {
        name: 'disconnect_deso_node is refused as well',
        body: () => adminBody(admin, { OperationType: 'disconnect_deso_node', Address: '127.0.0.1:17000' }),
        error: { re: /^NodeControlRequest: disconnect_deso_node is not available/ },
      },
      {
        name: 'an unknown operation is refused with the reference\'s text',
        body: () => adminBody(admin, { OperationType: 'reboot' }),
        error: { re: /^NodeControlRequest: OperationType reboot is not allowed\. Allowed types are: map\[connect_deso_node:true disconnect_deso_node:true get_info:true update_miner:true\]$/ },
      },
      {
        name: 'a malformed miner key is refused (the miner keeps running)',
        body: () => adminBody(admin, { OperationType: 'update_miner', MinerPublicKeys: 'tBCnope' }),
        error: { re: /^NodeControlRequest: Problem decoding miner public key: / },
      },
    ], () => ({ OperationType: 'get_info' }));
  });
}

for (const store of TEST_STORES) suite(store);
