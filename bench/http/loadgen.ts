/**
 * Closed-loop HTTP/1.1 load generator on raw `node:net` keep-alive sockets (several times
 * cheaper per request than the node:http client). Each connection has one request in flight:
 * write the prebuilt request, read the full response (Content-Length or chunked), repeat.
 * Meant to run in its own process so it does not share the server's event loop:
 *
 *   node --import tsx bench/http/loadgen.ts --port 17001 --path /api/v0/get-app-state \
 *     --method POST --body '{}' --connections 32 --duration-ms 3000 --warmup-ms 500
 *
 * (`--bodies-file bodies.json` instead of `--body` sends a JSON array's bodies in turn;
 * `--requests-file mix.json` sends a JSON array of {path, method?, body?, label?} in turn, a
 * mixed workload over several routes, with latencies reported per label too; `--help` lists
 * every option, and an unknown one exits 2)
 *
 * prints one JSON line: { requests, errors, non2xx, reconnects, reqPerSec, p50ms, p99ms, maxMs, cpuPct, byLabel? }.
 * Only responses completed inside the measured window (after the warm-up) count.
 * @module
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { ResponseParser, type ParsedResponse } from './responseParser.js';
import { exitWithUsageError, runCommandLine, UsageError, type CommandSpec } from '../../server/cli.js';

export interface LoadOptions {
  port: number;
  host?: string;
  path?: string;
  method?: string;
  body?: string;
  /**
   * Several bodies sent in turn (request i carries bodies[i % n], counted across all
   * connections), so a read route is loaded over many keys rather than one. Overrides `body`.
   */
  bodies?: readonly string[];
  /**
   * Requests sent in turn (request i is requests[i % n]), each with its own path, method and
   * body: one run over several routes. Overrides `path`, `method`, `body` and `bodies`. When
   * any has a `label`, the result carries `byLabel` (unlabelled requests count as their path).
   */
  requests?: readonly LoadRequest[];
  /** Sent when a body is given. @default 'application/json' */
  contentType?: string;
  /** @default 32 */
  connections?: number;
  /** Measured window. @default 3000 */
  durationMs?: number;
  /** Load before the measured window, not counted. @default 500 */
  warmupMs?: number;
  /** Called when the measured window opens and closes (the bench samples server CPU there). */
  onMeasureStart?: () => void;
  onMeasureEnd?: () => void;
}

export interface LoadRequest {
  path: string;
  /** @default the run's `method`, else GET */
  method?: string;
  body?: string;
  label?: string;
}

/** One label's share of a mixed run (measured window only). */
export interface LabelResult {
  requests: number;
  non2xx: number;
  p50ms: number;
  p99ms: number;
  maxMs: number;
}

export interface LoadResult {
  /** 2xx and non-2xx responses completed in the measured window. */
  requests: number;
  /** Socket errors, malformed responses, connections closed mid-response (whole run). */
  errors: number;
  /** Responses with a status outside 200–299 in the measured window. */
  non2xx: number;
  /** Connections opened after the initial ones (server closed one, or an error), whole run. */
  reconnects: number;
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  maxMs: number;
  /** This process's CPU (user + system) during the window, % of one core. */
  cpuPct: number;
  /** Per label, when `requests` carried labels. */
  byLabel?: Record<string, LabelResult>;
}

class Latencies {
  private buf = new Float64Array(1 << 16);
  /** The label index of each sample (mixed runs). */
  private tags = new Uint16Array(1 << 16);
  length = 0;
  push(ns: number, tag = 0): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
      const nextTags = new Uint16Array(this.tags.length * 2);
      nextTags.set(this.tags);
      this.tags = nextTags;
    }
    this.tags[this.length] = tag;
    this.buf[this.length++] = ns;
  }
  /** Sorted copy of the samples (only those tagged `tag`, if given), in ms. */
  sortedMs(tag?: number): Float64Array {
    let out = this.buf.slice(0, this.length);
    if (tag !== undefined) out = out.filter((_, i) => this.tags[i] === tag);
    out.sort();
    for (let i = 0; i < out.length; i++) out[i]! /= 1e6;
    return out;
  }
}

/** Nearest-rank percentile (q in 0..1) of ascending samples; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function buildRequest(o: {
  host: string;
  port: number;
  path: string;
  method: string;
  body?: string | undefined;
  contentType: string;
}): Buffer {
  let head = `${o.method} ${o.path} HTTP/1.1\r\nHost: ${o.host}:${o.port}\r\nAccept: */*\r\n`;
  const body = o.body === undefined ? undefined : Buffer.from(o.body, 'utf8');
  if (body !== undefined) head += `Content-Type: ${o.contentType}\r\nContent-Length: ${body.length}\r\n`;
  head += '\r\n';
  const h = Buffer.from(head, 'latin1');
  return body === undefined ? h : Buffer.concat([h, body]);
}

export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const host = opts.host ?? '127.0.0.1';
  const connections = opts.connections ?? 32;
  const durationMs = opts.durationMs ?? 3000;
  const warmupMs = opts.warmupMs ?? 500;
  const bodies: ReadonlyArray<string | undefined> = opts.bodies !== undefined && opts.bodies.length > 0 ? opts.bodies : [opts.body];
  const requestList: readonly LoadRequest[] =
    opts.requests !== undefined && opts.requests.length > 0 ? opts.requests : bodies.map((body) => ({ path: opts.path ?? '/', body }));
  const labelled = opts.requests?.some((r) => r.label !== undefined) === true;
  const labels: string[] = [];
  /** Label index of each prebuilt request. */
  const tagOf = requestList.map((r) => {
    const label = r.label ?? r.path;
    const i = labels.indexOf(label);
    return i === -1 ? labels.push(label) - 1 : i;
  });
  if (labels.length > 0xffff) throw new Error('loadgen: more than 65535 labels');
  // Prebuilt, so the generator's own cost per request stays one socket write.
  const prebuilt = requestList.map((r) =>
    buildRequest({
      host,
      port: opts.port,
      path: r.path,
      method: (r.method ?? opts.method ?? 'GET').toUpperCase(),
      body: r.body,
      contentType: opts.contentType ?? 'application/json',
    }),
  );
  let nextRequest = 0;
  /** Per label: requests and non-2xx in the measured window (mixed runs). */
  const labelCounts = labels.map(() => ({ requests: 0, non2xx: 0 }));

  const latencies = new Latencies();
  let requests = 0;
  let errors = 0;
  let non2xx = 0;
  let reconnects = -connections;
  /** 0 warm-up, 1 measuring, 2 stopping. */
  let phase = 0;
  let open = 0;
  let finish: (() => void) | undefined;
  const allClosed = new Promise<void>((resolve) => (finish = resolve));

  const startConnection = (): void => {
    const socket: Socket = connect({ port: opts.port, host, noDelay: true });
    open++;
    reconnects++;
    let inFlight = false;
    let sentAt = 0n;
    let sentTag = 0;
    let failed = false;
    const parser = new ResponseParser(false, (r) => complete(r));

    const send = (): void => {
      inFlight = true;
      parser.expect();
      sentAt = process.hrtime.bigint();
      sentTag = tagOf[nextRequest]!;
      socket.write(prebuilt[nextRequest]!);
      nextRequest = nextRequest + 1 === prebuilt.length ? 0 : nextRequest + 1;
    };

    const fail = (): void => {
      if (failed) return;
      failed = true;
      errors++;
      socket.destroy();
    };

    const complete = ({ status, closeAfter }: ParsedResponse): void => {
      inFlight = false;
      if (phase === 1) {
        latencies.push(Number(process.hrtime.bigint() - sentAt), sentTag);
        requests++;
        const bad = status < 200 || status > 299;
        if (bad) non2xx++;
        if (labelled) {
          const c = labelCounts[sentTag]!;
          c.requests++;
          if (bad) c.non2xx++;
        }
      }
      if (phase === 2) socket.end();
      else if (closeAfter) socket.end(); // 'close' reconnects
      else send();
    };

    socket.on('connect', send);
    socket.on('error', fail);
    socket.on('close', () => {
      open--;
      if (inFlight && !failed) errors++;
      if (phase !== 2 && !failed) {
        startConnection();
      } else if (phase !== 2) {
        // Back off after a failure so a dead server does not turn this into a busy loop.
        setTimeout(() => (phase !== 2 ? startConnection() : open === 0 && finish?.()), 10);
      } else if (open === 0) {
        finish?.();
      }
    });

    socket.on('data', (chunk: Buffer) => {
      if (!parser.feed(chunk)) fail();
    });
  };

  return new Promise<LoadResult>((resolve) => {
    for (let i = 0; i < connections; i++) startConnection();
    let t0 = 0n;
    let cpu0: NodeJS.CpuUsage;
    setTimeout(() => {
      phase = 1;
      t0 = process.hrtime.bigint();
      cpu0 = process.cpuUsage();
      opts.onMeasureStart?.();
      setTimeout(() => {
        phase = 2;
        const elapsedNs = Number(process.hrtime.bigint() - t0);
        const cpu = process.cpuUsage(cpu0);
        opts.onMeasureEnd?.();
        const sorted = latencies.sortedMs();
        const result: LoadResult = {
          requests,
          errors,
          non2xx,
          reconnects: 0,
          reqPerSec: requests / (elapsedNs / 1e9),
          p50ms: percentile(sorted, 0.5),
          p99ms: percentile(sorted, 0.99),
          maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
          cpuPct: ((cpu.user + cpu.system) / 1e3 / (elapsedNs / 1e6)) * 100,
        };
        if (labelled) {
          result.byLabel = {};
          labels.forEach((label, tag) => {
            const own = latencies.sortedMs(tag);
            result.byLabel![label] = {
              ...labelCounts[tag]!,
              p50ms: percentile(own, 0.5),
              p99ms: percentile(own, 0.99),
              maxMs: own.length ? own[own.length - 1]! : NaN,
            };
          });
        }
        // Let in-flight requests finish so the servers see clean closes, but do not wait long.
        const hardStop = setTimeout(() => finish?.(), 2000);
        void allClosed.then(() => {
          clearTimeout(hardStop);
          result.errors = errors;
          result.reconnects = reconnects;
          resolve(result);
        });
        if (open === 0) finish?.();
      }, durationMs);
    }, warmupMs);
  });
}

/** `--requests-file f.json`: a JSON array of {path, method?, body?, label?} (object bodies are stringified). */
function requestsFile(path: string | undefined): LoadRequest[] | undefined {
  if (path === undefined) return undefined;
  const list = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (!Array.isArray(list) || list.length === 0) throw new Error(`--requests-file ${path} must hold a non-empty JSON array`);
  return list.map((r: { path?: unknown; method?: unknown; body?: unknown; label?: unknown }, i) => {
    if (typeof r?.path !== 'string') throw new Error(`--requests-file ${path}: entry ${i} has no string "path"`);
    return {
      path: r.path,
      ...(typeof r.method === 'string' ? { method: r.method } : {}),
      ...(r.body !== undefined ? { body: typeof r.body === 'string' ? r.body : JSON.stringify(r.body) } : {}),
      ...(typeof r.label === 'string' ? { label: r.label } : {}),
    };
  });
}

/** `--bodies-file f.json`: a JSON array of request bodies (objects are stringified). */
function bodiesFile(path: string | undefined): string[] | undefined {
  if (path === undefined) return undefined;
  const list = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (!Array.isArray(list) || list.length === 0) throw new Error(`--bodies-file ${path} must hold a non-empty JSON array`);
  return list.map((b) => (typeof b === 'string' ? b : JSON.stringify(b)));
}

export const LOADGEN_COMMAND: CommandSpec = {
  name: 'loadgen',
  usage: 'node --import tsx bench/http/loadgen.ts --port N [options]',
  summary:
    'A closed-loop HTTP/1.1 load generator on keep-alive sockets: each connection has one request in flight. ' +
    'Prints one JSON line: requests, errors, non2xx, reconnects, reqPerSec, p50ms, p99ms, maxMs, cpuPct (this process), ' +
    'byLabel (--requests-file with labels); only responses completed in the measured window count. ' +
    'Writes "loadgen: measure-start" and "loadgen: measure-end" to stderr as the window opens and closes.',
  flags: [
    { name: 'port', value: 'N', required: true, doc: 'Port of the server under test.' },
    { name: 'host', value: 'address', default: '127.0.0.1', doc: 'Host of the server under test.' },
    { name: 'path', value: 'path', default: '/', doc: 'Request path (with its query).' },
    { name: 'method', value: 'METHOD', default: 'GET', doc: 'Request method.' },
    { name: 'body', value: 'text', doc: 'Request body (sent with Content-Type and Content-Length).' },
    { name: 'bodies-file', value: 'file.json', doc: "A JSON array of bodies sent in turn across all connections (objects are stringified); overrides --body." },
    {
      name: 'requests-file',
      value: 'file.json',
      doc: 'A JSON array of {path, method?, body?, label?} sent in turn: a mixed workload, with latencies per label too; overrides --path, --method, --body and --bodies-file.',
    },
    { name: 'content-type', value: 'type', default: 'application/json', doc: 'Content-Type of requests with a body.' },
    { name: 'connections', value: 'N', default: '32', doc: 'Connections, each with one request in flight.' },
    { name: 'duration-ms', value: 'N', default: '3000', doc: 'Measured window.' },
    { name: 'warmup-ms', value: 'N', default: '500', doc: 'Load before the measured window, not counted.' },
  ],
};

/** The options of a command line; throws UsageError on a bad value. */
export function loadOptionsOf(values: Record<string, string | boolean | undefined>): LoadOptions {
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const int = (name: string, min: number): number => {
    const raw = text(name)!;
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`);
    return n;
  };
  if (text('port') === undefined) throw new UsageError('--port is required');
  let bodies: string[] | undefined;
  let requests: LoadRequest[] | undefined;
  try {
    bodies = bodiesFile(text('bodies-file'));
    requests = requestsFile(text('requests-file'));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const port = int('port', 1);
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  return {
    port,
    host: text('host'),
    path: text('path'),
    method: text('method'),
    body: text('body'),
    bodies,
    requests,
    contentType: text('content-type'),
    connections: int('connections', 1),
    durationMs: int('duration-ms', 1),
    warmupMs: int('warmup-ms', 0),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = runCommandLine(LOADGEN_COMMAND);
  let opts: LoadOptions;
  try {
    opts = loadOptionsOf(values);
  } catch (err) {
    if (err instanceof UsageError) exitWithUsageError(LOADGEN_COMMAND.name, err.message);
    throw err;
  }
  const result = await runLoad({
    ...opts,
    onMeasureStart: () => process.stderr.write('loadgen: measure-start\n'),
    onMeasureEnd: () => process.stderr.write('loadgen: measure-end\n'),
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
