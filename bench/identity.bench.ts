/**
 * The identity API's hot path: `decrypt` of one page of a DM thread (100 V2 messages), through
 * the whole service (session open, HMAC gate, key planning, one batched pool task), against
 * what a frontend does without the node: the official SDK's `decryptChatMessage` on each
 * message, measured in the same run. Also `jwt` through the service against the SDK's
 * `getSignedJWT`.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { decryptChatMessage, encryptChatMessage, getSignedJWT, keygen, publicKeyToBase58Check } from 'deso-protocol';
import { pino } from 'pino';
import { Bench } from 'tinybench';
import { CryptoPool } from '../server/crypto/pool.js';
import { IdentityService } from '../server/identity/service.js';
import { SessionStore } from '../server/identity/sessions.js';
import { openStore } from '../server/store/index.js';
import { printResults, ratioLine, roundOptions, runRounds } from './_shared.js';
import { absoluteFigure, type Figure } from './figures.js';

const BENCH_OPTIONS = roundOptions({ time: 2_000, warmupTime: 300 });
/** Messages per decrypt request: a page of a DM thread. */
const PAGE = 100;

export async function run(): Promise<Figure[]> {
  // The SDK base64-encodes JWTs with the browser's window.btoa.
  (globalThis as { window?: unknown }).window ??= globalThis;
  const log = pino({ level: 'silent' });
  const store = await openStore({});
  const crypto = new CryptoPool({ threads: 2 }, { metrics: null, log: null });
  const service = new IdentityService({ crypto, sessions: new SessionStore(store, new Uint8Array(randomBytes(32)), 3_600_000), network: 'mainnet', log });
  try {
    const me = keygen();
    const other = keygen();
    const otherPk = publicKeyToBase58Check(other.public, { network: 'mainnet' });
    const myPk = publicKeyToBase58Check(me.public, { network: 'mainnet' });
    const hexes = await Promise.all(Array.from({ length: PAGE }, (_, i) => encryptChatMessage(other.seedHex, myPk, `message ${i} ${'x'.repeat(80)}`)));
    const login = await service.handle({ id: 'l', method: 'login', payload: { seedHex: me.seedHex, accessLevelRequest: 2 } });
    const s = login.payload as { encryptedSeedHex: string; accessLevel: number; accessLevelHmac: string };
    const sessionValues = { encryptedSeedHex: s.encryptedSeedHex, accessLevel: s.accessLevel, accessLevelHmac: s.accessLevelHmac };
    const decryptPayload = { ...sessionValues, encryptedMessages: hexes.map((h) => ({ EncryptedHex: h, PublicKey: otherPk, IsSender: false, Legacy: false })) };

    // Warm the workers (tsx + WASM start) before measuring.
    await service.handle({ id: 'w', method: 'decrypt', payload: decryptPayload });

    let sink = 0;
    const bench = new Bench({ name: 'identity', ...BENCH_OPTIONS });
    bench
      .add(`identity decrypt (${PAGE} V2 messages, pool of 2)`, async () => {
        const r = await service.handle({ id: 'd', method: 'decrypt', payload: decryptPayload });
        sink += Object.keys(r.payload['decryptedHexes'] as object).length;
      })
      .add(`baseline: SDK decryptChatMessage × ${PAGE}`, async () => {
        for (const h of hexes) sink += (await decryptChatMessage(me.seedHex, otherPk, h)).length;
      })
      .add('identity jwt', async () => {
        const r = await service.handle({ id: 'j', method: 'jwt', payload: sessionValues });
        sink += (r.payload['jwt'] as string).length;
      })
      .add('baseline: SDK getSignedJWT', async () => {
        sink += (await getSignedJWT(me.seedHex, 'ES256', {})).length;
      });
    const rounds = await runRounds(bench);
    if (sink === 0) throw new Error('benchmark tasks produced nothing');
    printResults('identity service (in-process, crypto in the pool)', bench);
    const DECRYPT = `identity decrypt (${PAGE} V2 messages, pool of 2)`;
    return [
      ratioLine(`identity decrypt page/SDK`, 'identityDecryptVsSdk', rounds, DECRYPT, `baseline: SDK decryptChatMessage × ${PAGE}`),
      ratioLine('identity jwt/SDK getSignedJWT', 'identityJwtVsSdk', rounds, 'identity jwt', 'baseline: SDK getSignedJWT'),
      absoluteFigure('identityDecryptPagesPerSec', rounds.opsPerSec(DECRYPT), 'pages/s'),
      absoluteFigure('identityJwtPerSec', rounds.opsPerSec('identity jwt'), 'ops/s'),
    ];
  } finally {
    await crypto.close();
    await store.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
