/**
 * A TCP proxy a test controls, between a client and a server (a node and its Redis), for
 * network-fault tests. It forwards until cut, then either
 * - `blackhole`: keeps every connection open and forwards nothing, in either direction, as a
 *   cut link that silently drops packets does (nothing closes, nothing errors; new connections
 *   are accepted and held the same way), or
 * - `reset`: resets every connection, and each new one as it arrives;
 * and forwards again once restored: held bytes flow on (as TCP retransmits them after a cut),
 * reset connections stay gone.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export type CutMode = 'blackhole' | 'reset';

export interface TcpProxy {
  port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  cut(mode: CutMode): void;
  restore(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: CutMode | null = null;
  let accepted = 0;

  /** Ends a connection pair: with a reset (RST) for a cut, else a plain close. */
  const drop = (pair: Pair, reset: boolean): void => {
    pairs.delete(pair);
    for (const s of [pair.client, pair.upstream]) {
      if (reset && !s.destroyed && !s.connecting) s.resetAndDestroy();
      else s.destroy();
    }
  };

  const server: Server = createServer((client) => {
    accepted++;
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host ?? '127.0.0.1');
    const pair: Pair = { client, upstream };
    pairs.add(pair);
    // Plain writes, no pipe(): pipe() resumes a source on 'drain', which would undo a cut.
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => client.write(d));
    const end = (): void => {
      if (!pairs.has(pair)) return;
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.on('error', end);
      s.on('close', end);
    }
    if (mode === 'blackhole') {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    port,
    get accepted() {
      return accepted;
    },
    cut(m) {
      mode = m;
      for (const pair of [...pairs]) {
        if (m === 'reset') drop(pair, true);
        else {
          pair.client.pause();
          pair.upstream.pause();
        }
      }
    },
    restore() {
      mode = null;
      for (const pair of pairs) {
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    async close() {
      for (const pair of [...pairs]) drop(pair, false);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
