/**
 * Baselines for bench/readRoutes.bench.ts: the benched read routes as a plain server
 * would write them, on a minimal uWebSockets.js app (`--kind uws`) or node:http
 * (`--kind node-http`), over the same Redis store.
 *
 * "The same lookups": each request parses its JSON body, decodes the keys, reads the same
 * store keys and indexes through the same state and shaping functions the node's routes call
 * (getProfile / profileRecordResponse, dmThreadPage / newMessageEntryResponse / profileEntryMap,
 * resolveCoin / pairOrders, PostReads with postsForPublicKey / singlePost, notifications) and
 * answers the same JSON. What a plain server does not have is the
 * node's own machinery: no router, no schema validation, no mempool overlay, and no state cache
 * — every request reads Redis through a fresh StateView (which only memoises within the one
 * request), as a stateless server in front of Redis would.
 *
 *   node --import tsx bench/http/readBaselines.ts --kind uws --port 17100 --redis redis://127.0.0.1:6390
 *
 * Prints `listening <port>` on stdout when ready; exits on SIGTERM/SIGINT.
 * @module
 */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../server/config.js';
import { chainKeys, type TipRecord } from '../../server/chain/state/keys.js';
import { groupId } from '../../server/chain/state/accessGroups.js';
import { getProfile, getProfileByUsername } from '../../server/chain/state/profiles.js';
import { StateView } from '../../server/chain/state/view.js';
import { stringifyJson } from '../../server/http/router.js';
import { loadUws } from '../../server/http/uws.js';
import { decodePublicKey } from '../../server/keys/index.js';
import { dmThreadPage, newMessageEntryResponse } from '../../server/social/messages.js';
import { pairOrders, resolveCoin } from '../../server/social/orderBook.js';
import { MAX_COMMENT_LIMIT, MAX_THREAD_LEVEL_LIMIT, PostReads, postsForPublicKey, singlePost } from '../../server/social/postReads.js';
import { notifications } from '../../server/social/notifications.js';
import { profileEntryMap, profileRecordResponse, type ProfileDeps } from '../../server/social/profileEntry.js';
import { openStore } from '../../server/store/index.js';

type J = Record<string, unknown>;
interface Answer {
  status: number;
  body: string;
}
type Lookup = (body: J) => Promise<Answer>;

const ok = (body: unknown): Answer => ({ status: 200, body: stringifyJson(body) + '\n' });
const fail = (status: number, error: string): Answer => ({ status, body: JSON.stringify({ error }) + '\n' });
const str = (x: unknown): string => (typeof x === 'string' ? x : '');
const int = (x: unknown): number => (typeof x === 'number' && Number.isInteger(x) ? x : 0);
const hash = (x: unknown): Uint8Array => {
  const h = str(x);
  if (!/^[0-9a-fA-F]{64}$/.test(h)) throw new Error('expected a 64-hex post hash');
  return Buffer.from(h, 'hex');
};

export function lookups(deps: ProfileDeps): Record<string, Lookup> {
  const network = deps.config.network;
  const { store } = deps;
  /** One request's post reads: a fresh view, the tip (which posts count as in the mempool), the reader. */
  const postReads = async (b: J, addGlobalFeedBool: boolean): Promise<PostReads> => {
    const tip = await store.get<TipRecord>(chainKeys.tip);
    const reader = str(b['ReaderPublicKeyBase58Check']);
    return new PostReads({
      deps,
      state: StateView.over(store),
      tipHeight: tip?.height ?? 0n,
      mined: store,
      reader: reader === '' ? null : decodePublicKey(reader, network, 'ReaderPublicKeyBase58Check'),
      addGlobalFeedBool,
    });
  };
  return {
    '/api/v0/get-single-profile': async (b) => {
      const state = StateView.over(store);
      const pk = str(b['PublicKeyBase58Check']);
      const profile = pk !== '' ? await getProfile(state, decodePublicKey(pk, network, 'PublicKeyBase58Check')) : await getProfileByUsername(state, str(b['Username']));
      if (profile === undefined) return fail(404, 'GetSingleProfile: could not find profile');
      return ok({ Profile: await profileRecordResponse(deps, state, profile), IsBlacklisted: false, IsGraylisted: false });
    },
    '/api/v0/get-paginated-messages-for-dm-thread': async (b) => {
      const state = StateView.over(store);
      const user = groupId(decodePublicKey(str(b['UserGroupOwnerPublicKeyBase58Check']), network, 'UserGroupOwnerPublicKeyBase58Check'), new Uint8Array(0));
      const party = groupId(decodePublicKey(str(b['PartyGroupOwnerPublicKeyBase58Check']), network, 'PartyGroupOwnerPublicKeyBase58Check'), new Uint8Array(0));
      const before = BigInt(str(b['StartTimestampString']) || '0');
      const messages = await dmThreadPage(state, user, party, { before, limit: Number(b['MaxMessagesToFetch']) });
      return ok({
        ThreadMessages: messages.map((m) => newMessageEntryResponse(m, 'DM', network)),
        PublicKeyToProfileEntryResponse: await profileEntryMap(deps, state, [user.owner, party.owner]),
      });
    },
    '/api/v0/get-dao-coin-limit-orders': async (b) => {
      const state = StateView.over(store);
      const P = 'GetDAOCoinLimitOrders: ';
      const [c1, c2] = await Promise.all([
        resolveCoin(state, str(b['DAOCoin1CreatorPublicKeyBase58CheckOrUsername']), network, 'DAOCoin1CreatorPublicKeyBase58CheckOrUsername', P),
        resolveCoin(state, str(b['DAOCoin2CreatorPublicKeyBase58CheckOrUsername']), network, 'DAOCoin2CreatorPublicKeyBase58CheckOrUsername', P),
      ]);
      return ok({ Orders: await pairOrders(state, c1, c2, network) });
    },
    '/api/v0/get-posts-for-public-key': async (b) => {
      const reads = await postReads(b, true);
      const last = str(b['LastPostHashHex']);
      return ok(
        await postsForPublicKey(reads, {
          poster: decodePublicKey(str(b['PublicKeyBase58Check']), network, 'PublicKeyBase58Check'),
          lastPostHash: last === '' ? null : hash(last),
          numToFetch: int(b['NumToFetch']),
          mediaRequired: b['MediaRequired'] === true,
          onlyNFTs: false,
        }),
      );
    },
    '/api/v0/get-single-post': async (b) => {
      const reads = await postReads(b, b['AddGlobalFeedBool'] === true);
      const found = await singlePost(reads, {
        postHash: hash(b['PostHashHex']),
        fetchParents: b['FetchParents'] === true,
        commentOffset: int(b['CommentOffset']),
        commentLimit: Math.min(int(b['CommentLimit']), MAX_COMMENT_LIMIT),
        threadLevelLimit: Math.min(int(b['ThreadLevelLimit']), MAX_THREAD_LEVEL_LIMIT),
        threadLeafLimit: int(b['ThreadLeafLimit']),
        loadAuthorThread: b['LoadAuthorThread'] === true,
      });
      return ok({ PostFound: found });
    },
    '/api/v0/get-notifications': async (b) => {
      // No mempool here: the pending places are the mined state's, the next block empty.
      const chain = {
        pendingPlaces: async () => ({ view: StateView.over(store), height: ((await store.get<TipRecord>(chainKeys.tip))?.height ?? 0n) + 1n, txnAt: (): undefined => undefined }),
        mined: () => store,
      };
      const filtered = b['FilteredOutNotificationCategories'];
      return ok(
        await notifications(
          deps,
          chain,
          {
            publicKey: decodePublicKey(str(b['PublicKeyBase58Check']), network, 'PublicKeyBase58Check'),
            fetchStartIndex: int(b['FetchStartIndex']),
            numToFetch: int(b['NumToFetch']),
            filteredOut: typeof filtered === 'object' && filtered !== null ? (filtered as Record<string, boolean>) : {},
          },
        ),
      );
    },
  };
}

async function answer(routes: Record<string, Lookup>, url: string, raw: Buffer): Promise<Answer> {
  const lookup = routes[url];
  if (lookup === undefined) return fail(404, `no such route: ${url}`);
  try {
    return await lookup(JSON.parse(raw.toString('utf8')) as J);
  } catch (e) {
    return fail(400, (e as Error).message);
  }
}

async function serveUws(routes: Record<string, Lookup>, port: number): Promise<number> {
  const { uws } = loadUws(); // throws when no native binary loads
  const app = uws.App();
  for (const path of Object.keys(routes)) {
    app.post(path, (res, req) => {
      const url = req.getUrl();
      let aborted = false;
      const chunks: Buffer[] = [];
      res.onAborted(() => (aborted = true));
      res.onData((chunk, isLast) => {
        chunks.push(Buffer.from(chunk.slice(0)));
        if (!isLast) return;
        void answer(routes, url, Buffer.concat(chunks)).then((a) => {
          if (aborted) return;
          res.cork(() => {
            res.writeStatus(a.status === 200 ? '200 OK' : `${a.status} Error`).writeHeader('Content-Type', 'application/json').end(a.body);
          });
        });
      });
    });
  }
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', port, (socket) => (socket ? resolve(uws.us_socket_local_port(socket)) : reject(new Error(`readBaselines: cannot listen on ${port}`))));
  });
}

async function serveNodeHttp(routes: Record<string, Lookup>, port: number): Promise<number> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void answer(routes, req.url ?? '/', Buffer.concat(chunks)).then((a) => {
        res.writeHead(a.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(a.body) });
        res.end(a.body);
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : port;
}

function argValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? undefined : argv[i + 1];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const kind = argValue(argv, 'kind');
  const port = Number(argValue(argv, 'port') ?? '0');
  const redis = argValue(argv, 'redis');
  if ((kind !== 'uws' && kind !== 'node-http') || !Number.isInteger(port) || redis === undefined) {
    process.stderr.write('readBaselines: --kind uws|node-http --port <n> --redis <url> are required\n');
    process.exit(2);
  }
  const config = loadConfig(['--redis', redis, '--network', 'testnet'], {});
  const store = await openStore({ redisUrl: redis, keyPrefix: config.redisKeyPrefix });
  const routes = lookups({ config, store });
  const actual = kind === 'uws' ? await serveUws(routes, port) : await serveNodeHttp(routes, port);
  process.stdout.write(`listening ${actual}\n`);
  const stop = (): void => {
    store.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
