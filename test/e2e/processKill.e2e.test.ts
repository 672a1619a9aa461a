/**
 * A server process killed (issue 8, faults): two server processes on one port and one Redis,
 * clients pinned to each on keep-alive HTTP/1.1 connections and identity WebSockets, reading,
 * writing and using an identity session without pause. One process (the block producer) is
 * SIGKILLed mid-stream. Clients on the other process see no error at all; clients of the killed
 * one lose their connection and, reconnecting, reach a live process; the identity session made
 * on the killed process keeps working on the survivor and on the restarted child; the supervisor
 * restarts the child, which serves; every transaction acknowledged before or after the kill is
 * mined.
 *
 * Which process a connection is on: every HTTP answer carries `X-Node-Process`. A WebSocket is
 * opened on a connection whose first request was GET /api/v0/node-info (an upgrade may follow
 * keep-alive requests on one HTTP/1.1 connection), so it is on the process that answered that.
 *
 * "No error" means every answer is the right 200, writes included: writers on both processes
 * contend for the one mempool, and each process extends its replay with the other's admissions
 * (chain.ts extendReplay) so neither starves into a 503.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { signTx } from 'deso-protocol';
import WebSocket from 'ws';
import { RedisStore } from '../../server/store/redis.js';
import { keyPair, type KeyPair } from '../helpers/chainNode.js';
import { startNodeProcess, type NodeProcess } from '../helpers/nodeProcess.js';
import { startRedisServer, type RedisServer } from '../helpers/redisServer.js';
import { minedTxnLocation } from '../../server/chain/state/minedTxns.js';

type J = Record<string, any>;

const KEY_PREFIX = 'kill-test:';
const FEE = { MinFeeRateNanosPerKB: 1000 };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// --- a keep-alive HTTP/1.1 connection that stays on one socket ------------------------------

interface Reply {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  json: J | undefined;
}

/**
 * One TCP connection, one request at a time, never reopened: unlike an Agent, it cannot move
 * to another process behind the test's back. A lost connection rejects the request in flight
 * and every later one.
 */
class HttpConn {
  /** The process that answered on this connection. */
  processId = '';
  private buf: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | null = null;
  private lostWith: Error | null = null;

  private constructor(private readonly sock: Socket) {
    sock.setNoDelay(true);
    sock.on('data', this.onData);
    sock.on('error', (e) => this.fail(new Error(`connection error: ${e.message}`)));
    sock.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  static open(port: number): Promise<HttpConn> {
    return new Promise((resolve, reject) => {
      const sock = connect(port, '127.0.0.1');
      sock.once('error', reject);
      sock.once('connect', () => {
        sock.off('error', reject);
        resolve(new HttpConn(sock));
      });
    });
  }

  /** A new connection and the process it is on (from node-info and the header). */
  static async pinned(port: number): Promise<HttpConn> {
    const c = await HttpConn.open(port);
    try {
      const r = await c.request('GET', '/api/v0/node-info');
      if (r.status !== 200) throw new Error(`node-info answered ${r.status}: ${r.body.slice(0, 200)}`);
      const id = r.json?.['ProcessId'];
      if (typeof id !== 'string' || id !== r.headers['x-node-process']) {
        throw new Error(`node-info ProcessId ${String(id)} and X-Node-Process ${r.headers['x-node-process']} differ`);
      }
      c.processId = id;
      return c;
    } catch (err) {
      c.close();
      throw err;
    }
  }

  get alive(): boolean {
    return this.lostWith === null;
  }

  request(method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<Reply> {
    if (this.lostWith) return Promise.reject(this.lostWith);
    if (this.waiting) return Promise.reject(new Error('HttpConn: one request at a time'));
    const payload = body === undefined ? '' : JSON.stringify(body);
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      (body === undefined ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n`) +
      '\r\n';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`no answer to ${method} ${path} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting = { resolve, reject, timer };
      this.sock.write(head + payload);
    });
  }

  /** POST JSON to /api/v0/<route>. */
  post(route: string, body: unknown): Promise<Reply> {
    return this.request('POST', `/api/v0/${route}`, body);
  }

  close(): void {
    this.lostWith ??= new Error('closed by the test');
    this.sock.destroy();
  }

  /** Gives up the socket (to a WebSocket upgrade), with none of this object's listeners left. */
  detach(): Socket {
    for (const e of ['data', 'error', 'close'] as const) this.sock.removeAllListeners(e);
    this.lostWith = new Error('detached');
    return this.sock;
  }

  private readonly onData = (d: Buffer): void => {
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    const w = this.waiting;
    if (!w) return this.fail(new Error(`unexpected bytes from the server: ${JSON.stringify(this.buf.subarray(0, 100).toString())}`));
    const split = this.buf.indexOf('\r\n\r\n');
    if (split === -1) return;
    const lines = this.buf.subarray(0, split).toString('latin1').split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    if (headers['content-length'] === undefined) return this.fail(new Error(`answer without Content-Length: ${lines[0]}`));
    const end = split + 4 + Number(headers['content-length']);
    if (this.buf.length < end) return;
    const body = this.buf.subarray(split + 4, end).toString('utf8');
    this.buf = this.buf.subarray(end);
    this.waiting = null;
    clearTimeout(w.timer);
    let json: J | undefined;
    try {
      json = JSON.parse(body) as J;
    } catch {
      json = undefined;
    }
    if (headers['connection']?.toLowerCase() === 'close') this.lostWith = new Error(`the server closed the connection after ${lines[0]}`);
    w.resolve({ status, headers, body, json });
  };

  private fail(err: Error): void {
    this.lostWith ??= err;
    const w = this.waiting;
    this.waiting = null;
    if (w) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    this.sock.destroy();
  }
}

// --- an identity WebSocket on a known process -----------------------------------------------

class WsConn {
  private seq = 0;
  private readonly waiting = new Map<string, { resolve: (p: J) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private lostWith: Error | null = null;

  private constructor(
    private readonly ws: WebSocket,
    readonly processId: string,
    /** X-Node-Process of the 101 answer, when the node sends it. */
    readonly upgradeProcessId: string | undefined,
  ) {
    ws.on('message', (data) => {
      let env: J | undefined;
      try {
        env = JSON.parse(String(data)) as J;
      } catch {
        env = undefined;
      }
      const w = typeof env?.['id'] === 'string' ? this.waiting.get(env['id'] as string) : undefined;
      if (!w) return this.fail(new Error(`unexpected message: ${String(data).slice(0, 200)}`));
      this.waiting.delete(env!['id'] as string);
      clearTimeout(w.timer);
      w.resolve((env!['payload'] ?? {}) as J);
    });
    ws.on('close', (code) => this.fail(new Error(`socket closed (${code})`)));
  }

  /** Opens /api/v0/identity on a connection that first asked node-info which process it is on. */
  static async open(port: number): Promise<WsConn> {
    const http = await HttpConn.pinned(port);
    const sock = http.detach();
    return new Promise((resolve, reject) => {
      let upgradeProcessId: string | undefined;
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v0/identity`, { createConnection: () => sock });
      ws.on('error', () => undefined); // 'close' follows; the constructor's handler reports it
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error('WebSocket upgrade did not finish within 5 s'));
      }, 5_000);
      ws.once('upgrade', (res) => {
        const h = res.headers['x-node-process'];
        upgradeProcessId = typeof h === 'string' ? h : undefined;
      });
      ws.once('unexpected-response', (_req, res) => {
        clearTimeout(timer);
        ws.terminate();
        reject(new Error(`upgrade refused with HTTP ${res.statusCode}`));
      });
      ws.once('open', () => {
        clearTimeout(timer);
        resolve(new WsConn(ws, http.processId, upgradeProcessId));
      });
      ws.once('close', () => {
        clearTimeout(timer);
        reject(new Error('socket closed during the upgrade'));
      });
    });
  }

  get alive(): boolean {
    return this.lostWith === null;
  }

  /** One identity request; resolves with the reply's payload (which may be an {error}). */
  call(method: string, payload: J, timeoutMs = 10_000): Promise<J> {
    if (this.lostWith) return Promise.reject(this.lostWith);
    const id = `${method}-${++this.seq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`no answer to ${method} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ id, service: 'identity', method, payload }));
    });
  }

  close(): void {
    this.lostWith ??= new Error('closed by the test');
    this.ws.terminate();
  }

  private fail(err: Error): void {
    this.lostWith ??= err;
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    this.waiting.clear();
    this.ws.terminate();
  }
}

// --- client loops ---------------------------------------------------------------------------

interface Conn {
  readonly processId: string;
  readonly alive: boolean;
  close(): void;
}

interface Event {
  loop: string;
  processId: string;
  what: string;
  error: string;
  /** ms since the loops started. */
  atMs: number;
}

interface LoopResult {
  name: string;
  /** Processes of its connection, in order (a reconnect appends one). */
  processes: string[];
  ops: number;
  /** Requests answered correctly after the kill (on the connection open then). */
  opsAfterKill: number;
  /** A request that got a wrong answer, on a connection that stayed up. Never expected. */
  failures: Event[];
  /** The connection went away. Expected once per connection to the killed process, after the kill. */
  losses: Event[];
  /** A reconnect that did not work. Never expected. */
  reconnectFailures: Event[];
}

/**
 * Runs `step` back to back on a connection until stopped. A lost connection is recorded and,
 * once the killed process is gone (`clock.victimGone`), replaced by a fresh one, as a client would.
 */
function loop<C extends Conn>(
  name: string,
  first: C,
  open: () => Promise<C>,
  step: (c: C, i: number) => Promise<void>,
  clock: { t0: number; killedAt: number | null; victimGone: Promise<void> },
): { result: LoopResult; stop: () => Promise<LoopResult> } {
  const result: LoopResult = { name, processes: [first.processId], ops: 0, opsAfterKill: 0, failures: [], losses: [], reconnectFailures: [] };
  const now = (): number => Date.now() - clock.t0;
  let running = true;
  let conn = first;
  const done = (async () => {
    for (let i = 0; running; i++) {
      try {
        await step(conn, i);
        result.ops++;
        if (clock.killedAt !== null) result.opsAfterKill++;
      } catch (err) {
        const ev: Event = { loop: name, processId: conn.processId, what: `request ${i}`, error: (err as Error).message, atMs: now() };
        if (conn.alive) {
          result.failures.push(ev);
          await sleep(50);
          continue;
        }
        result.losses.push(ev);
        if (clock.killedAt === null) return; // lost before any kill: already a failure; stop here
        await clock.victimGone;
        try {
          conn = await open();
          result.processes.push(conn.processId);
        } catch (e) {
          result.reconnectFailures.push({ ...ev, what: 'reconnect', error: (e as Error).message, atMs: now() });
          return;
        }
      }
    }
  })();
  return {
    result,
    stop: async () => {
      running = false;
      await done;
      conn.close();
      return result;
    },
  };
}

// --- the node -------------------------------------------------------------------------------

interface NodeInfo {
  ProcessId: string;
  Processes: Array<{ ProcessId: string; Pid: number; StartedAtUnixMs: number; LastSeenUnixMs: number }>;
  BlockProducer: { ProcessId: string; Epoch: number } | null;
}

/**
 * The process is gone and reaped by the supervisor. Not just a zombie: the thread-group leader
 * of a process with worker threads turns zombie while its other threads may still hold the
 * sockets (the listening one included), so a connection made then can still be reset.
 */
function isReaped(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function expectOk(what: string, r: Reply, processId: string): J {
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.body.slice(0, 300)}`);
  if (r.headers['x-node-process'] !== processId) throw new Error(`${what}: answered by ${r.headers['x-node-process']} on a connection to ${processId}`);
  if (r.json === undefined) throw new Error(`${what}: body is not JSON: ${r.body.slice(0, 200)}`);
  return r.json;
}

/** The payload of a 200 identity answer over POST, or an error naming what came back. */
function identityOk(what: string, r: Reply, processId: string): J {
  const env = expectOk(what, r, processId);
  const p = env['payload'] as J | undefined;
  if (!p || 'error' in p) throw new Error(`${what}: ${JSON.stringify(env).slice(0, 300)}`);
  return p;
}

function wsOk(what: string, p: J): J {
  if ('error' in p || 'approvalRequired' in p) throw new Error(`${what}: ${JSON.stringify(p).slice(0, 300)}`);
  return p;
}

let redis: RedisServer;
let node: NodeProcess;
let store: RedisStore;
const opened: Conn[] = [];

before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  for (const c of opened) c.close();
  await store?.close();
  if (node) await node.stop();
  await redis?.stop();
});

describe('a server process killed under load', () => {
  it('leaves clients of the other process without errors and keeps sessions and acknowledged transactions', async (t) => {
    const miner = keyPair();
    node = await startNodeProcess({
      args: [
        '--processes', '2',
        '--redis', redis.url,
        '--redis-key-prefix', KEY_PREFIX,
        '--miner-public-key', miner.pk,
        // Block rewards to fund the test's keys; later blocks also carry the stream's writes.
        '--block-interval-seconds', '1',
      ],
      readyLine: /all server processes ready/,
    });
    store = await RedisStore.connect({ url: redis.url, keyPrefix: KEY_PREFIX });

    // --- which process dies: the block producer ----------------------------------------------
    const probe = await HttpConn.pinned(node.port);
    opened.push(probe);
    let info0: NodeInfo | undefined;
    for (let i = 0; i < 100 && (info0?.BlockProducer == null || info0.Processes.length < 2); i++) {
      if (i > 0) await sleep(100);
      info0 = expectOk('node-info', await probe.request('GET', '/api/v0/node-info'), probe.processId) as NodeInfo;
    }
    assert.ok(info0?.BlockProducer, `node-info names the block producer within 10 s: ${JSON.stringify(info0)}`);
    assert.equal(info0.Processes.length, 2, `two processes registered: ${JSON.stringify(info0.Processes)}`);
    const victim = info0.BlockProducer.ProcessId;
    const victimEntry = info0.Processes.find((p) => p.ProcessId === victim);
    assert.ok(victimEntry && Number.isInteger(victimEntry.Pid) && victimEntry.Pid > 0, `node-info lists the producer ${victim} with its Pid: ${JSON.stringify(info0.Processes)}`);
    const victimPid = victimEntry.Pid;
    const survivor = info0.Processes.find((p) => p.ProcessId !== victim)!.ProcessId;

    // --- connections pinned to each process ---------------------------------------------------
    // Per process: a writer, two readers and two identity sockets; a monitor on the survivor.
    const httpConns = new Map<string, HttpConn[]>([[victim, []], [survivor, []]]);
    const wantHttp = new Map([[victim, 3], [survivor, 4]]);
    for (let i = 0; i < 400 && [...httpConns].some(([p, cs]) => cs.length < wantHttp.get(p)!); i++) {
      const c = await HttpConn.pinned(node.port);
      opened.push(c);
      const list = httpConns.get(c.processId);
      assert.ok(list, `a connection reached one of the two processes (got ${c.processId})`);
      if (list.length < wantHttp.get(c.processId)!) list.push(c);
      else c.close();
    }
    const wsConns = new Map<string, WsConn[]>([[victim, []], [survivor, []]]);
    for (let i = 0; i < 400 && [...wsConns.values()].some((cs) => cs.length < 2); i++) {
      const c = await WsConn.open(node.port);
      opened.push(c);
      if (c.upgradeProcessId !== undefined) assert.equal(c.upgradeProcessId, c.processId, 'the 101 answer names the process the connection is on');
      const list = wsConns.get(c.processId)!;
      if (list.length < 2) list.push(c);
      else c.close();
    }
    for (const p of [victim, survivor]) {
      assert.equal(httpConns.get(p)!.length, wantHttp.get(p), `${wantHttp.get(p)} keep-alive connections pinned to ${p}`);
      assert.equal(wsConns.get(p)!.length, 2, `2 identity sockets on ${p}`);
    }
    const [victimWriter, ...victimReaders] = httpConns.get(victim)!;
    const [monitor, survivorWriter, ...survivorReaders] = httpConns.get(survivor)!;

    // --- keys, funds, and an identity session made on the process that will die --------------
    const writers = [keyPair(), keyPair()];
    const owner = keyPair(); // the identity session's key
    let funded = false;
    for (let i = 0; i < 200 && !funded; i++) {
      const u = expectOk('get-users-stateless', await probe.post('get-users-stateless', { PublicKeysBase58Check: [miner.pk], SkipForLeaderboard: true, IncludeBalance: true }), probe.processId);
      funded = Number(u['UserList']?.[0]?.['BalanceNanos'] ?? 0) >= 0.5e9;
      if (!funded) await sleep(100);
    }
    assert.ok(funded, 'the built-in miner earned a block reward within 20 s');
    const fundings: string[] = [];
    for (const k of [...writers, owner]) {
      const c = expectOk('send-deso', await probe.post('send-deso', { ...FEE, SenderPublicKeyBase58Check: miner.pk, RecipientPublicKeyOrUsername: k.pk, AmountNanos: 0.05e9 }), probe.processId);
      const s = expectOk('submit-transaction', await probe.post('submit-transaction', { TransactionHex: await signTx(c['TransactionHex'] as string, miner.seedHex) }), probe.processId);
      fundings.push(s['TxnHashHex'] as string);
    }
    for (const h of fundings) await waitMined([h], 20_000);

    const login = identityOk('login', await victimReaders[0]!.post('identity', { id: 'login', service: 'identity', method: 'login', payload: { seedHex: owner.seedHex, accessLevelRequest: 4 } }), victim);
    const session = { encryptedSeedHex: login['encryptedSeedHex'] as string, accessLevel: 4, accessLevelHmac: login['accessLevelHmac'] as string };
    assert.equal(login['publicKeyBase58Check'], owner.pk, 'the session is the owner key’s');
    // A transaction for the session to sign: deterministic signatures, so every answer is this one.
    const unsigned = expectOk('send-deso', await probe.post('send-deso', { ...FEE, SenderPublicKeyBase58Check: owner.pk, RecipientPublicKeyOrUsername: miner.pk, AmountNanos: 1000 }), probe.processId)['TransactionHex'] as string;
    const signedReference = identityOk('sign', await victimReaders[0]!.post('identity', { id: 'sign-ref', service: 'identity', method: 'sign', payload: { ...session, transactionHex: unsigned } }), victim)['signedTransactionHex'];
    assert.equal(typeof signedReference, 'string', 'the session signs on the process that made it');

    // --- steps ------------------------------------------------------------------------------
    const acknowledged: Array<{ hash: string; processId: string; afterKill: boolean }> = [];
    const clock = { t0: Date.now(), killedAt: null as number | null, victimGone: Promise.resolve() };
    let markGone!: () => void;
    clock.victimGone = new Promise<void>((r) => (markGone = r));

    const readStep = async (c: HttpConn, i: number): Promise<void> => {
      switch (i % 5) {
        case 0: {
          const info = expectOk('node-info', await c.request('GET', '/api/v0/node-info'), c.processId);
          if (info['ProcessId'] !== c.processId) throw new Error(`node-info ProcessId ${String(info['ProcessId'])} on a connection to ${c.processId}`);
          return;
        }
        case 1:
          if (typeof expectOk('get-app-state', await c.post('get-app-state', {}), c.processId)['BlockHeight'] !== 'number') throw new Error('get-app-state: no BlockHeight');
          return;
        case 2:
          expectOk('get-single-profile', await c.post('get-single-profile', { PublicKeyBase58Check: owner.pk, NoErrorOnMissing: true }), c.processId);
          return;
        case 3: {
          const u = expectOk('get-users-stateless', await c.post('get-users-stateless', { PublicKeysBase58Check: [owner.pk], SkipForLeaderboard: true, IncludeBalance: true }), c.processId);
          if (u['UserList']?.[0]?.['PublicKeyBase58Check'] !== owner.pk) throw new Error(`get-users-stateless: ${JSON.stringify(u).slice(0, 200)}`);
          return;
        }
        default: {
          const p = identityOk('identity jwt', await c.post('identity', { id: `jwt-${i}`, service: 'identity', method: 'jwt', payload: session }), c.processId);
          if (typeof p['jwt'] !== 'string' || (p['jwt'] as string).split('.').length !== 3) throw new Error(`identity jwt: ${JSON.stringify(p)}`);
        }
      }
    };
    const writeStep = (key: KeyPair) => async (c: HttpConn): Promise<void> => {
      const built = expectOk('send-deso', await c.post('send-deso', { ...FEE, SenderPublicKeyBase58Check: key.pk, RecipientPublicKeyOrUsername: keyPair().pk, AmountNanos: 1000 }), c.processId);
      const signed = await signTx(built['TransactionHex'] as string, key.seedHex);
      const r = await c.post('submit-transaction', { TransactionHex: signed });
      const s = expectOk('submit-transaction', r, c.processId);
      acknowledged.push({ hash: s['TxnHashHex'] as string, processId: c.processId, afterKill: clock.killedAt !== null });
    };
    const wsStep = async (c: WsConn, i: number): Promise<void> => {
      switch (i % 3) {
        case 0: {
          const p = wsOk('sign', await c.call('sign', { ...session, transactionHex: unsigned }));
          if (p['signedTransactionHex'] !== signedReference) throw new Error(`sign: ${JSON.stringify(p).slice(0, 200)}`);
          return;
        }
        case 1: {
          const p = wsOk('jwt', await c.call('jwt', session));
          if (typeof p['jwt'] !== 'string') throw new Error(`jwt: ${JSON.stringify(p)}`);
          return;
        }
        default: {
          const message = `message ${i} on ${c.processId}`;
          const enc = wsOk('encrypt', await c.call('encrypt', { ...session, recipientPublicKey: owner.pk, message }));
          const hex = enc['encryptedMessage'] as string;
          const dec = wsOk('decrypt', await c.call('decrypt', { ...session, encryptedMessages: [{ EncryptedHex: hex, PublicKey: owner.pk, IsSender: false, Legacy: false }] }));
          if (dec['decryptedHexes']?.[hex] !== message) throw new Error(`decrypt: ${JSON.stringify(dec).slice(0, 300)}`);
        }
      }
    };
    const reopenHttp = async (): Promise<HttpConn> => {
      const c = await HttpConn.pinned(node.port);
      opened.push(c);
      return c;
    };
    const reopenWs = async (): Promise<WsConn> => {
      const c = await WsConn.open(node.port);
      opened.push(c);
      return c;
    };

    // --- the stream, and the kill in the middle of it ------------------------------------------
    const loops = [
      loop('writer@victim', victimWriter!, reopenHttp, writeStep(writers[0]!), clock),
      loop('writer@survivor', survivorWriter!, reopenHttp, writeStep(writers[1]!), clock),
      ...victimReaders.map((c, i) => loop(`reader${i}@victim`, c, reopenHttp, readStep, clock)),
      ...survivorReaders.map((c, i) => loop(`reader${i}@survivor`, c, reopenHttp, readStep, clock)),
      ...wsConns.get(victim)!.map((c, i) => loop(`ws${i}@victim`, c, reopenWs, wsStep, clock)),
      ...wsConns.get(survivor)!.map((c, i) => loop(`ws${i}@survivor`, c, reopenWs, wsStep, clock)),
    ];
    // Every client is under way (a few answers each) before the kill, and after it.
    const everyLoop = (n: number, after: boolean) => (): boolean => loops.every((l) => (after ? l.result.opsAfterKill : l.result.ops) >= n);
    const progress = (): string => JSON.stringify(loops.map((l) => l.result), null, 1);
    await waitFor(everyLoop(5, false), 20_000, 'every client to get 5 answers before the kill', progress);
    const atKill = expectOk('node-info', await monitor!.request('GET', '/api/v0/node-info'), survivor) as NodeInfo;
    assert.equal(atKill.BlockProducer?.ProcessId, victim, 'the process about to be killed still holds the producer lease');
    clock.killedAt = Date.now() - clock.t0;
    process.kill(victimPid, 'SIGKILL');
    for (let i = 0; i < 200 && !isReaped(victimPid); i++) await sleep(25);
    assert.ok(isReaped(victimPid), `process ${victimPid} died of SIGKILL and was reaped`);
    markGone();

    // The supervisor restarts the slot: a third process registers. The producer lease moves.
    let restarted: NodeInfo['Processes'][number] | undefined;
    let producerAfter: NodeInfo['BlockProducer'] = null;
    const moved = (): boolean => producerAfter !== null && producerAfter.ProcessId !== victim;
    const monitorErrors: string[] = [];
    for (let i = 0; i < 200 && (restarted === undefined || !moved()); i++) {
      try {
        const info = expectOk('node-info', await monitor!.request('GET', '/api/v0/node-info'), survivor) as NodeInfo;
        restarted ??= info.Processes.find((p) => p.ProcessId !== victim && p.ProcessId !== survivor);
        producerAfter = info.BlockProducer;
      } catch (err) {
        monitorErrors.push((err as Error).message);
        if (!monitor!.alive) break;
      }
      if (restarted === undefined || !moved()) await sleep(100);
    }
    await waitFor(everyLoop(5, true), 20_000, 'every client to get 5 answers after the kill', progress);
    const results = await Promise.all(loops.map((l) => l.stop()));

    const summary = results.map((r) => `${r.name}: ${r.ops} ok (${r.opsAfterKill} after the kill), processes ${r.processes.join(' → ')}`).join('\n');
    const all = (k: 'failures' | 'losses' | 'reconnectFailures'): Event[] => results.flatMap((r) => r[k]);
    assert.deepEqual(monitorErrors, [], 'node-info on a survivor connection answered every time');
    assert.deepEqual(all('failures'), [], `no request failed on a connection that stayed up\n${summary}`);
    assert.deepEqual(all('reconnectFailures'), [], `every reconnect reached a live process\n${summary}`);
    assert.deepEqual(all('losses').filter((e) => e.processId !== victim), [], `no connection to the surviving process was lost\n${summary}`);
    for (const r of results) {
      const onVictim: boolean = r.processes[0] === victim;
      assert.equal(r.losses.length, onVictim ? 1 : 0, `${r.name}: ${onVictim ? 'its connection to the killed process was lost once' : 'never lost its connection'}\n${summary}`);
      for (const e of r.losses) assert.ok(clock.killedAt !== null && e.atMs >= clock.killedAt, `${r.name}: lost its connection only after the kill (at ${e.atMs} ms, kill at ${clock.killedAt} ms)`);
      if (onVictim) assert.notEqual(r.processes[1], victim, `${r.name}: reconnected to a live process`);
      assert.ok(r.ops - r.opsAfterKill > 0, `${r.name}: requests succeeded before the kill\n${summary}`);
      assert.ok(r.opsAfterKill > 0, `${r.name}: requests succeeded after the kill\n${summary}`);
    }

    // --- the restarted child serves, and the session made on the killed process works there --
    assert.ok(restarted, `a new process registered within 20 s of the kill: ${monitorErrors.join('; ')}`);
    assert.notEqual(restarted.Pid, victimPid, 'the restarted child is a new OS process');
    assert.ok(moved(), `the block-producer lease left the killed process within 20 s (now ${JSON.stringify(producerAfter)})`);
    assert.ok(producerAfter!.Epoch > info0.BlockProducer.Epoch, `the new producer holds a later epoch (${producerAfter!.Epoch} after ${info0.BlockProducer.Epoch})`);
    let onNew: HttpConn | undefined;
    for (let i = 0; i < 400 && onNew === undefined; i++) {
      const c = await HttpConn.pinned(node.port);
      opened.push(c);
      if (c.processId === restarted.ProcessId) onNew = c;
      else c.close();
    }
    assert.ok(onNew, `a fresh connection reached the restarted process ${restarted.ProcessId}`);
    expectOk('get-app-state', await onNew.post('get-app-state', {}), onNew.processId);
    const jwtOnNew = identityOk('identity jwt', await onNew.post('identity', { id: 'jwt-new', service: 'identity', method: 'jwt', payload: session }), onNew.processId);
    assert.equal(typeof jwtOnNew['jwt'], 'string', 'the session made on the killed process issues a jwt on the restarted one');
    const signOnNew = identityOk('identity sign', await onNew.post('identity', { id: 'sign-new', service: 'identity', method: 'sign', payload: { ...session, transactionHex: unsigned } }), onNew.processId);
    assert.equal(signOnNew['signedTransactionHex'], signedReference, 'and signs there as it did before');
    let wsOnNew: WsConn | undefined;
    for (let i = 0; i < 400 && wsOnNew === undefined; i++) {
      const c = await WsConn.open(node.port);
      opened.push(c);
      if (c.processId === restarted.ProcessId) wsOnNew = c;
      else c.close();
    }
    assert.ok(wsOnNew, `an identity socket reached the restarted process ${restarted.ProcessId}`);
    const wsSign = await wsOnNew.call('sign', { ...session, transactionHex: unsigned });
    assert.equal(wsSign['signedTransactionHex'], signedReference, `the session signs over a socket on the restarted process: ${JSON.stringify(wsSign)}`);

    // --- every acknowledged transaction is mined ---------------------------------------------
    const ackedBefore = acknowledged.filter((a) => !a.afterKill);
    const afterKill = acknowledged.filter((a) => a.afterKill);
    assert.ok(ackedBefore.some((a) => a.processId === victim), `the killed process acknowledged transactions before the kill (${ackedBefore.length} acknowledged before it in all)`);
    assert.ok(afterKill.length > 0, 'transactions were acknowledged after the kill');
    // The producer died: production moves to another process (lease handover or the restarted slot).
    const minedFrom = Date.now();
    await waitMined(acknowledged.map((a) => a.hash), 25_000);
    const minedAfterMs = Date.now() - minedFrom;

    // --- the node still stops cleanly, leaving no process behind ------------------------------
    for (const c of opened) c.close();
    const survivorPid = info0.Processes.find((p) => p.ProcessId === survivor)!.Pid;
    assert.equal(await node.stop(), 0, 'the supervisor and its children (the restarted one too) stop cleanly on SIGTERM');
    for (const pid of [survivorPid, restarted.Pid]) assert.ok(isReaped(pid), `server process ${pid} exited with the supervisor`);
    t.diagnostic(`killed ${victim} (pid ${victimPid}, the block producer, epoch ${info0.BlockProducer.Epoch}); survivor ${survivor}; restarted ${restarted.ProcessId}; producer now ${producerAfter!.ProcessId} (epoch ${producerAfter!.Epoch})`);
    for (const line of summary.split('\n')) t.diagnostic(line);
    t.diagnostic(`losses: ${all('losses').map((e) => `${e.loop} at ${e.atMs} ms: ${e.error}`).join('; ')} (kill at ${clock.killedAt} ms)`);
    t.diagnostic(`${ackedBefore.length} transactions acknowledged before the kill, ${afterKill.length} after; all mined ${minedAfterMs} ms after the stream stopped`);
  });
});

/** Polls `done` until it holds; fails after timeoutMs naming what it waited for. */
async function waitFor(done: () => boolean, timeoutMs: number, what: string, detail: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await sleep(25);
  assert.ok(done(), `waited ${timeoutMs / 1000} s for ${what}\n${detail()}`);
}

/** Waits until every hash is a mined transaction in the store; fails naming those that are not. */
async function waitMined(hashes: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let missing = hashes;
  while (missing.length > 0 && Date.now() < deadline) {
    const found = await Promise.all(missing.map((h) => minedTxnLocation(store, h)));
    missing = missing.filter((_, i) => found[i] === undefined);
    if (missing.length > 0) await sleep(100);
  }
  assert.deepEqual(missing, [], `all ${hashes.length} acknowledged transactions mined within ${timeoutMs / 1000} s; ${missing.length} are not`);
}
