/**
 * The chain-facing admin routes (spec §4.10; reference node-api.md §3): node control and
 * mempool statistics (admin), the global params (read: admin and public; write: super admin)
 * and identity swaps (super admin). The two writes construct unsigned transactions like every
 * construction route; a param updater (`--param-updater-public-keys`) signs and submits them,
 * and the chain applies them (rules/globalParams.ts, rules/swapIdentity.ts).
 *
 * Differences from the reference, on purpose:
 * - update-global-params: an omitted int64 field leaves the param unchanged. The reference
 *   decodes it as 0 and so resets every param the request forgot (its quirk); here only −1 or
 *   an omitted field mean "unchanged", a value ≥ 0 that differs from the current one is set.
 * - Both writes refuse at construction what the chain would refuse at submission (an updater
 *   that is not a param updater, a value out of bounds, a balance short of the fee), with the
 *   chain's rule error, instead of building a transaction that can never be mined.
 * - node-control `connect_deso_node` / `disconnect_deso_node` answer 400: this node runs its
 *   own chain and has no peer networking. `update_miner` steers this process's built-in miner
 *   (an empty list pauses it); `get_info` reports the chain tip as header and block tip.
 * - reprocess-bitcoin-block (the SDK's adminReprocessBitcoinBlock) answers 400 to an admin's
 *   valid request: the reference re-read a Bitcoin block (from blockchain.info) to credit the
 *   BitcoinExchange transactions in it, and removed the route with its Bitcoin syncing (backend
 *   commit 7ee12f0, 2021; it answers 404 since). This chain connects no BitcoinExchange
 *   transaction, so no block, fetched from anywhere, could change anything.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { encodeGlobalParamValue, GLOBAL_PARAM_SPECS } from '../chain/rules/globalParams.js';
import type { StateView } from '../chain/state/view.js';
import { decodeTxn } from '../chain/txn/envelope.js';
import type { TxnMetadata } from '../chain/txn/metadata.js';
import { adminRoute } from './adminAuth.js';
import { badRequest } from '../http/errors.js';
import { empty, json, route, type Route } from '../http/route.js';
import { out, v, ValidationError, type Optional, type Schema } from '../schema.js';
import { encodePublicKey } from '../keys/index.js';
import { resolvePublicKeyOrUsername } from '../social/keyOrUsername.js';
import { txnString } from '../social/spendingLimitResponse.js';
import { BASIC_CONSTRUCTED, constructedResponse, constructFields, constructForRequest, type ConstructRequest } from './constructed.js';
import { decodeKeyOr400 } from './requestKeys.js';

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** A signed 64-bit integer: a JSON integer (safe range) or a decimal string. */
function int64(): Schema<bigint> {
  return {
    json: { oneOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]{1,19}$' }] },
    parse(value, path) {
      let n: bigint;
      if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
      else if (typeof value === 'string' && /^-?[0-9]{1,19}$/.test(value)) n = BigInt(value);
      else throw new ValidationError(path, 'a signed 64-bit integer (a decimal string beyond 2^53)', value);
      if (n < INT64_MIN || n > INT64_MAX) throw new ValidationError(path, 'a signed 64-bit integer', value);
      return n;
    },
  };
}

/**
 * One optional field per global param. int64 fields default to −1 ("unchanged"): the safe
 * reading of an omitted field (see the module comment); the others to 0 (also "unchanged").
 */
const paramFields: Record<string, Optional<bigint>> = Object.fromEntries(
  GLOBAL_PARAM_SPECS.map((s) => [s.apiName, s.request === 'int64' ? v.optional(int64(), -1n) : v.optional(s.signed ? int64() : v.uint64(), 0n)]),
);

/** The reference's requests carry no ExtraData map: only the fee fields of a constructor. */
const feeFields = { MinFeeRateNanosPerKB: constructFields.MinFeeRateNanosPerKB, TransactionFees: constructFields.TransactionFees };
type FeeFields = Pick<ConstructRequest['fields'], 'MinFeeRateNanosPerKB' | 'TransactionFees'>;

const updateGlobalParamsBody = v.object({
  UpdaterPublicKeyBase58Check: v.string({ maxLength: 200 }),
  ...paramFields,
  ...feeFields,
});

const swapIdentityBody = v.object({
  UpdaterPublicKeyBase58Check: v.string({ maxLength: 200 }),
  FromUsernameOrPublicKeyBase58Check: v.string({ maxLength: 200 }),
  ToUsernameOrPublicKeyBase58Check: v.string({ maxLength: 200 }),
  ...feeFields,
});

const nodeControlBody = v.object({
  Address: v.optional(v.string({ maxLength: 300 }), ''),
  MinerPublicKeys: v.optional(v.string({ maxLength: 100_000 }), ''),
  OperationType: v.optional(v.string({ maxLength: 100 }), ''),
});

const emptyBody = v.object({});

/** The reference's list, as Go prints a map[string]bool (keys sorted). */
const OPERATION_TYPES = ['connect_deso_node', 'disconnect_deso_node', 'get_info', 'update_miner'] as const;
const OPERATION_TYPES_TEXT = `map[${OPERATION_TYPES.map((t) => `${t}:true`).join(' ')}]`;

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

export const nodeControlResponse = out.orEmpty(
  out.named(
    'NodeControlInfo',
    out.object(
      {
        DeSoStatus: out.object({
          State: out.literal('FULLY_CURRENT', 'This node is the only source of its chain: always current'),
          LatestHeaderHeight: out.int(),
          LatestHeaderHash: out.hex(),
          LatestHeaderTstampSecs: out.int(),
          LatestBlockHeight: out.int(),
          LatestBlockHash: out.hex(),
          LatestBlockTstampSecs: out.int(),
          LatestTxIndexHeight: out.int(),
          HeadersRemaining: out.int(),
          BlocksRemaining: out.int(),
        }),
        DeSoOutboundPeers: out.array(out.freeObject('A peer (this node has none)'), 'Always empty: no peer networking'),
        DeSoInboundPeers: out.array(out.freeObject('A peer (this node has none)'), 'Always empty'),
        DeSoUnconnectedPeers: out.array(out.freeObject('A peer (this node has none)'), 'Always empty'),
        RemoteNodeConnections: out.array(out.freeObject('A connection (this node has none)'), 'Always empty'),
        MinerPublicKeys: out.array(out.publicKey(), 'The keys the built-in miner pays'),
      },
      'get_info answers this; update_miner answers an empty body',
    ),
  ),
);

export const mempoolStatsResponse = out.object({
  TransactionSummaryStats: out.record(out.object({ Count: out.int(), TotalBytes: out.int() }), 'By transaction type name'),
});

export const globalParamsResponseSchema = out.named(
  'GlobalParamsResponse',
  out.object({
    USDCentsPerBitcoin: out.uint64(),
    CreateProfileFeeNanos: out.uint64(),
    MinimumNetworkFeeNanosPerKB: out.uint64(),
    CreateNFTFeeNanos: out.uint64(),
    MaxCopiesPerNFT: out.uint64(),
    StakeLockupEpochDuration: out.uint64(),
    ValidatorJailEpochDuration: out.uint64(),
    LeaderScheduleMaxNumValidators: out.uint64(),
    ValidatorSetMaxNumValidators: out.uint64(),
    EpochDurationNumBlocks: out.uint64(),
    JailInactiveValidatorGracePeriodEpochs: out.uint64(),
  }),
);

/** update-global-params and swap-identity: the five basic fields (reference: no TxnHashHex). */
export const paramUpdaterTxnResponse = constructedResponse('ParamUpdaterTxnResponse', BASIC_CONSTRUCTED);

/** The response fields of update-global-params and swap-identity (reference: no TxnHashHex). */
function txnResponse(fields: { TotalInputNanos: bigint; ChangeAmountNanos: number; FeeNanos: bigint; Transaction: Record<string, unknown>; TransactionHex: string }) {
  const { TotalInputNanos, ChangeAmountNanos, FeeNanos, Transaction, TransactionHex } = fields;
  return json({ TotalInputNanos, ChangeAmountNanos, FeeNanos, Transaction, TransactionHex });
}

export function adminChainRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;

  /** 400 unless `pk` is a param updater of this chain (the chain would refuse the transaction). */
  const requireParamUpdater = (pk: Uint8Array, prefix: string): void => {
    if (!deps.config.paramUpdaterPublicKeys.includes(encodePublicKey(pk, network))) {
      throw badRequest(`${prefix}UpdaterPublicKeyBase58Check ${encodePublicKey(pk, network)} is not a param updater of this node (--param-updater-public-keys); the chain would reject its transaction`);
    }
  };

  /**
   * Builds the unsigned transaction and connects it on the pending state as the updater would
   * (a broken rule is a RuleError: the routes' `errorPrefixes` word it as the reference does).
   */
  const construct = async (updater: Uint8Array, metadata: TxnMetadata, extraData: Array<[Uint8Array, Uint8Array]>, body: FeeFields, pending: StateView) => {
    const { constructed, fields } = await constructForRequest(deps, { publicKey: updater, metadata, extraData, fields: { ...body, ExtraData: {} } });
    await deps.chain.simulate(constructed.bytes, updater, pending);
    return fields;
  };

  const globalParamsResponse = async () => {
    const gp = await deps.chain.globalParams();
    return json({
      USDCentsPerBitcoin: gp.usdCentsPerBitcoin,
      CreateProfileFeeNanos: gp.createProfileFeeNanos,
      MinimumNetworkFeeNanosPerKB: gp.minimumNetworkFeeNanosPerKB,
      CreateNFTFeeNanos: gp.createNFTFeeNanos,
      MaxCopiesPerNFT: gp.maxCopiesPerNFT,
      StakeLockupEpochDuration: gp.stakeLockupEpochDuration,
      ValidatorJailEpochDuration: gp.validatorJailEpochDuration,
      LeaderScheduleMaxNumValidators: gp.leaderScheduleMaxNumValidators,
      ValidatorSetMaxNumValidators: gp.validatorSetMaxNumValidators,
      EpochDurationNumBlocks: gp.epochDurationNumBlocks,
      JailInactiveValidatorGracePeriodEpochs: gp.jailInactiveValidatorGracePeriodEpochs,
    });
  };

  /** A side of a swap, as public key or username (social/keyOrUsername.ts), with the reference's wording. */
  const keyOrUsername = async (pending: StateView, s: string, field: string): Promise<Uint8Array> => {
    if (s.length === 0) throw badRequest(`SwapIdentity: ${field} is empty; give a username or a public key`);
    return resolvePublicKeyOrUsername(pending, s, network, field, 'getPublicKeyFromUsernameOrPublicKeyString: ');
  };

  return [
    adminRoute(deps, {
      path: '/admin/node-control',
      summary: 'Node status (get_info) and the built-in miner (update_miner); this node has no peers to connect',
      level: 'admin',
      body: nodeControlBody,
      response: nodeControlResponse,
      // update_miner on a node without a built-in miner (400), or one shutting down (503).
      errorPrefixes: { 'MINER_*': 'NodeControlRequest: ' },
      async handle({ body }) {
        const op = body.OperationType;
        if (!(OPERATION_TYPES as readonly string[]).includes(op)) {
          throw badRequest(`NodeControlRequest: OperationType ${op} is not allowed. Allowed types are: ${OPERATION_TYPES_TEXT}`);
        }
        if (op === 'connect_deso_node' || op === 'disconnect_deso_node') {
          throw badRequest(`NodeControlRequest: ${op} is not available: this node runs its own chain and has no peer networking (no DeSo peers to connect or disconnect)`);
        }
        if (op === 'get_info') {
          const miner = await deps.producer.status();
          const tip = await deps.chain.tip();
          const height = Number(tip.height);
          const tstamp = Number(tip.tstampSecs);
          return json({
            DeSoStatus: {
              // The node is the only source of its chain: it is always current.
              State: 'FULLY_CURRENT',
              LatestHeaderHeight: height,
              LatestHeaderHash: tip.hashHex,
              LatestHeaderTstampSecs: tstamp,
              LatestBlockHeight: height,
              LatestBlockHash: tip.hashHex,
              LatestBlockTstampSecs: tstamp,
              // Every mined transaction is indexed (chain:txn) when its block connects.
              LatestTxIndexHeight: height,
              HeadersRemaining: 0,
              BlocksRemaining: 0,
            },
            DeSoOutboundPeers: [],
            DeSoInboundPeers: [],
            DeSoUnconnectedPeers: [],
            RemoteNodeConnections: [],
            // The node's built-in miner runs on the cluster's block producer, whichever process that is.
            MinerPublicKeys: miner.rewardPublicKeys.map((k) => encodePublicKey(k, network)),
          });
        }
        // update_miner
        const list = body.MinerPublicKeys.trim();
        const keys = list === '' ? [] : list.split(',').map((s, i) => decodeKeyOr400(s.trim(), network, `MinerPublicKeys[${i}]`, 'NodeControlRequest: Problem decoding miner public key'));
        // For the whole node: the producer of the moment applies it, and any later one.
        await deps.producer.setMiner(keys.length === 0 ? 'pause' : keys);
        return empty();
      },
    }),
    adminRoute(deps, {
      path: '/admin/get-mempool-stats',
      summary: 'Count and bytes of the mempool transactions, by transaction type',
      level: 'admin',
      body: emptyBody,
      response: mempoolStatsResponse,
      async handle() {
        const stats: Record<string, { Count: number; TotalBytes: number }> = {};
        for (const m of await deps.chain.mempool()) {
          const name = txnString(decodeTxn(m.bytes).txnType);
          const s = (stats[name] ??= { Count: 0, TotalBytes: 0 });
          s.Count++;
          s.TotalBytes += m.bytes.length;
        }
        return json({ TransactionSummaryStats: stats });
      },
    }),
    adminRoute(deps, {
      path: '/admin/reprocess-bitcoin-block/:BlockHashHexOrBlockHeight',
      summary: 'The reference’s re-read of a Bitcoin block for BitcoinExchange transactions: this chain has none, so a valid request is answered 400 saying so',
      level: 'admin',
      body: emptyBody,
      response: out.object({ Message: out.string('The reference’s answer ("Requested block … for reprocessing"); never sent by this node') }),
      async handle({ params }) {
        const P = 'ReprocessBitcoinBlock: ';
        const which = params['BlockHashHexOrBlockHeight'] ?? '';
        // The reference's reading: 64 hex characters are a block hash, anything else a height.
        if (!/^[0-9a-fA-F]{64}$/.test(which) && !/^[0-9]{1,10}$/.test(which)) {
          throw badRequest(`${P}the parameter after the slash must be a Bitcoin block hash (64 hex characters) or a block height`);
        }
        throw badRequest(
          `${P}this node has nothing to reprocess: its chain has no BitcoinExchange transactions (no native coin is bought by burning bitcoin) and it follows no Bitcoin chain; the reference node dropped this route with its Bitcoin syncing`,
        );
      },
    }),
    adminRoute(deps, {
      path: '/admin/get-global-params',
      summary: 'The global params in force for the next block (tip plus mempool)',
      level: 'admin',
      body: emptyBody,
      response: globalParamsResponseSchema,
      handle: globalParamsResponse,
    }),
    route({
      method: 'POST',
      path: '/get-global-params',
      summary: 'The global params in force for the next block (tip plus mempool); public',
      body: emptyBody,
      response: globalParamsResponseSchema,
      handle: globalParamsResponse,
    }),
    adminRoute(deps, {
      path: '/admin/update-global-params',
      summary: 'Construct an UPDATE_GLOBAL_PARAMS transaction for a param updater to sign: values ≥ 0 (−1 or omitted = unchanged)',
      level: 'superAdmin',
      body: updateGlobalParamsBody,
      response: paramUpdaterTxnResponse,
      errorPrefixes: { 'RuleError*': 'UpdateGlobalParams: Problem creating transaction: ' },
      async handle({ body }) {
        const P = 'UpdateGlobalParams: ';
        const updater = decodeKeyOr400(body.UpdaterPublicKeyBase58Check, network, 'UpdaterPublicKeyBase58Check', `${P}Problem decoding updater base58 public key`);
        requireParamUpdater(updater, P);
        const pending = await deps.chain.pendingView();
        const current = await deps.chain.globalParams(pending);
        const values = body as unknown as Record<string, bigint>;
        const extraData: Array<[Uint8Array, Uint8Array]> = [];
        for (const spec of GLOBAL_PARAM_SPECS) {
          const value = values[spec.apiName]!;
          // The reference's rule: int64 fields from 0, the others from 1; only changes travel.
          const given = spec.request === 'int64' ? value >= 0n : value > 0n;
          if (given && value !== current[spec.field]) extraData.push([utf8(spec.extraDataKey), encodeGlobalParamValue(spec, value)]);
        }
        const fields = await construct(updater, { type: 'UPDATE_GLOBAL_PARAMS' }, extraData, body, pending);
        return txnResponse(fields);
      },
    }),
    adminRoute(deps, {
      path: '/admin/swap-identity',
      summary: 'Construct a SWAP_IDENTITY transaction for a param updater to sign: From and To trade profiles and coins',
      level: 'superAdmin',
      body: swapIdentityBody,
      response: paramUpdaterTxnResponse,
      errorPrefixes: { 'RuleError*': 'SwapIdentity: Problem creating transaction: ' },
      async handle({ body }) {
        const P = 'SwapIdentity: ';
        const updater = decodeKeyOr400(body.UpdaterPublicKeyBase58Check, network, 'UpdaterPublicKeyBase58Check', `${P}Problem decoding updater base58 public key`);
        requireParamUpdater(updater, P);
        const pending = await deps.chain.pendingView();
        const from = await keyOrUsername(pending, body.FromUsernameOrPublicKeyBase58Check, 'FromUsernameOrPublicKeyBase58Check');
        const to = await keyOrUsername(pending, body.ToUsernameOrPublicKeyBase58Check, 'ToUsernameOrPublicKeyBase58Check');
        const fields = await construct(updater, { type: 'SWAP_IDENTITY', fromPublicKey: from, toPublicKey: to }, [], body, pending);
        return txnResponse(fields);
      },
    }),
  ];
}
