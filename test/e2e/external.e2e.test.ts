/**
 * The SDK routes that stand in front of outside services (issue 21's gaps; README "Media and
 * outside services"), on two real nodes (memory store): `plain`, configured with nothing, and
 * `wired`, whose --tiktok-url and --wyre-* options point at fake services this test serves on a
 * free port (with --external-timeout-ms 500, --max-image-bytes 4096 and --image-base-url).
 * - upload-image (through the SDK's uploadImage too) and the image GET: types read from the
 *   bytes, content addressing, the limits, the JWT refusals;
 * - get-full-tiktok-url: unconfigured 400 naming the option; configured, each answer of the
 *   shortener mapped (redirect, wrong place, 404, 5xx, silence);
 * - the Wyre routes: unconfigured 400 naming the options; configured, the signed payloads the
 *   fake receives and each answer of Wyre mapped; the SDK's admin aliases as admin routes;
 * - admin/reprocess-bitcoin-block: an admin's valid request answered 400 "nothing to reprocess".
 * Last, an upload round trip on the LMDB store and (with TEST_STORES) Redis.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { getFullTikTokURL, getSignedJWT, uploadImage } from 'deso-protocol';
import { adminTable } from '../helpers/adminTable.js';
import { keyPair, startChainNode, TEST_STORES, type ChainNode, type J, type KeyPair } from '../helpers/chainNode.js';
import { gif, jpeg, png, webp } from '../helpers/images.js';
import { assertDocumented } from '../helpers/openApiCheck.js';
import { routeTable } from '../helpers/routeTable.js';
import { getImage } from '../../server/media/images.js';
import { adminBody, sdkJwt as jwt } from '../helpers/adminBody.js';

// The SDK signs with the browser's window.crypto / btoa; Node has both on globalThis.
(globalThis as { window?: unknown }).window ??= globalThis;

const superAdmin = keyPair();
const admin = keyPair();
const outsider = keyPair();
const user = keyPair();
const other = keyPair();


const WYRE = { accountId: 'AC_TEST', apiKey: 'AK-test', secretKey: 'SK-test', btc: 'tb1qnodeaddress' };
const MAX_IMAGE = 4096;
const CDN = 'https://cdn.example/img';
const TIMEOUT_MS = 500;

// --- the fake outside services ----------------------------------------------------------------

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Fake {
  base: string;
  seen: Seen[];
  close(): Promise<void>;
}

/**
 * TikTok's shortener at /tiktok/<id> (the ID picks the answer) and Wyre's partner API at
 * /wyre/v3/orders/{quote/partner,reserve}, which checks the key and signature and answers by
 * SourceCurrency / country.
 */
async function startFake(): Promise<Fake> {
  const seen: Seen[] = [];
  const hanging = new Set<() => void>();
  let base = '';
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const url = req.url!;
      const tiktok = /^\/tiktok\/([^/?]+)$/.exec(url);
      if (tiktok) {
        const redirect = (status: number, location: string): void => void res.writeHead(status, { Location: location }).end();
        switch (tiktok[1]) {
          case 'ZMgood123':
            return redirect(301, 'https://www.tiktok.com/@some.user/video/7123456789012345678?_r=1&_t=8');
          case 'ZMshort12':
            return redirect(302, 'https://m.tiktok.com/v/7000000000000000001.html');
          case 'ZMhome123':
            return redirect(302, 'https://www.tiktok.com/');
          case 'ZMevil123':
            return redirect(301, 'https://evil.example/@ab/video/123');
          case 'ZMfail123':
            return void res.writeHead(502).end('bad gateway');
          case 'ZMslow123':
            hanging.add(() => res.destroy());
            return;
          default:
            return void res.writeHead(404).end('not found');
        }
      }
      const wyre = /^\/wyre\/v3\/orders\/(quote\/partner|reserve)\?timestamp=(\d+)$/.exec(url);
      if (wyre && req.method === 'POST') {
        const signature = createHmac('sha256', WYRE.secretKey).update(`${base}${url}`).update(body).digest('hex');
        if (req.headers['x-api-key'] !== WYRE.apiKey || req.headers['x-api-signature'] !== signature) {
          return void res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"message":"bad signature"}');
        }
        const p = JSON.parse(body) as J;
        const answer = (status: number, value: unknown, type = 'application/json'): void =>
          void res.writeHead(status, { 'Content-Type': type }).end(typeof value === 'string' ? value : JSON.stringify(value));
        switch (p['sourceCurrency']) {
          case 'ERR':
            return answer(500, { message: 'internal' });
          case 'BIG':
            return answer(200, { pad: 'x'.repeat(300 * 1024) });
          case 'TXT':
            return answer(200, 'ok', 'text/plain');
          case 'KEY':
            return answer(403, { message: 'not your account' });
        }
        if (p['country'] === 'XX') return answer(400, { language: 'en', message: 'Country XX is not supported', type: 'ValidationException' });
        if (wyre[1] === 'reserve') return answer(200, { url: 'https://pay.sendwyre.com/purchase?reservation=RES1', reservation: 'RES1' });
        return answer(200, { sourceCurrency: p['sourceCurrency'], destCurrency: 'BTC', sourceAmount: Number(p['sourceAmount']), destAmount: 0.00042, fees: { USD: 2.5, BTC: 0 }, exchangeRate: 60000 });
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  return {
    base,
    seen,
    close: () =>
      new Promise((resolve) => {
        for (const end of hanging) end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// --- the nodes --------------------------------------------------------------------------------

interface Ctx {
  n: ChainNode;
  fake: Fake;
}

let plain: ChainNode | undefined;
let wired: ChainNode | undefined;
let fake: Fake | undefined;
const plainCtx = (): Ctx => ({ n: plain!, fake: fake! });
const wiredCtx = (): Ctx => ({ n: wired!, fake: fake! });

before(async () => {
  fake = await startFake();
  const admins = ['--super-admin-public-keys', superAdmin.pk, '--admin-public-keys', admin.pk];
  plain = await startChainNode({ store: 'memory', args: [...admins, '--miner', 'off'] });
  wired = await startChainNode({
    store: 'memory',
    args: [
      ...admins,
      '--miner', 'off',
      '--max-image-bytes', String(MAX_IMAGE),
      '--image-base-url', `${CDN}/`,
      '--tiktok-url', `${fake.base}/tiktok`,
      '--wyre-url', `${fake.base}/wyre`,
      '--wyre-account-id', WYRE.accountId,
      '--wyre-api-key', WYRE.apiKey,
      '--wyre-secret-key', WYRE.secretKey,
      '--buy-native-btc-address', WYRE.btc,
      '--external-timeout-ms', String(TIMEOUT_MS),
    ],
  });
});
after(async () => {
  await plain?.close();
  await wired?.close();
  await fake?.close();
});

// --- upload-image -----------------------------------------------------------------------------

interface Upload {
  fields: Record<string, string>;
  file?: { bytes: Buffer; type: string; name?: string };
}

async function postForm(url: string, u: Upload): Promise<{ status: number; json: J }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(u.fields)) form.append(k, v);
  if (u.file) form.append('file', new Blob([u.file.bytes], { type: u.file.type }), u.file.name ?? 'upload');
  const r = await fetch(`${url}/api/v0/upload-image`, { method: 'POST', body: form });
  return { status: r.status, json: (await r.json()) as J };
}

const signedBy = async (k: KeyPair, file?: Upload['file']): Promise<Upload> => ({ fields: { UserPublicKeyBase58Check: k.pk, JWT: await jwt(k) }, ...(file ? { file } : {}) });

interface UploadCase {
  name: string;
  ctx: () => Ctx;
  upload: () => Promise<Upload>;
  error?: { status?: number; re: RegExp };
  check?: (r: J, c: Ctx) => void | Promise<void>;
}

/** The image an ImageURL of `c.n` names, fetched from the node (the CDN prefix swapped for the node's own path). */
async function fetchImage(c: Ctx, imageUrl: string, headers: Record<string, string> = {}): Promise<Response> {
  const name = imageUrl.slice(imageUrl.lastIndexOf('/') + 1);
  return fetch(`${c.n.url}/api/v0/images/${name}`, { headers });
}

const HASHED = (ext: string): RegExp => new RegExp(`/([0-9a-f]{64})\\.${ext}$`);

function uploadTable(cases: UploadCase[]): void {
  describe('upload-image', () => {
    for (const tc of cases) {
      it(tc.name, async () => {
        const c = tc.ctx();
        const r = await postForm(c.n.url, await tc.upload());
        if (tc.error) {
          assert.equal(r.status, tc.error.status ?? 400, JSON.stringify(r.json));
          assert.match(r.json['error'] as string, tc.error.re);
          return;
        }
        assert.equal(r.status, 200, JSON.stringify(r.json));
        await assertDocumented(c.n.url, 'POST', 'upload-image', r.json);
        await tc.check?.(r.json, c);
      });
    }
  });
}

describe('the SDK’s uploadImage and the image GET', () => {
  it('stores a PNG under its SHA-256, answers its URL on this node (the request’s Host), and serves it back byte for byte', async () => {
    const bytes = png(3, 2, 7);
    const r = (await uploadImage(
      { UserPublicKeyBase58Check: user.pk, JWT: await jwt(user), file: new File([bytes], 'pic.png', { type: 'image/png' }) },
      { nodeURI: plain!.url },
    )) as J;
    const hash = (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex');
    assert.equal(r['ImageURL'], `${plain!.url}/api/v0/images/${hash}.png`);
    const got = await fetch(r['ImageURL'] as string);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'image/png');
    assert.equal(got.headers.get('etag'), `"${hash}"`);
    assert.equal(got.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(got.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), bytes);
    const again = await fetch(r['ImageURL'] as string, { headers: { 'if-none-match': `"${hash}"` } });
    assert.equal(again.status, 304);
    assert.equal((await again.arrayBuffer()).byteLength, 0);
  });

  it('GET images/{name}: an unknown hash or another extension is 404, a malformed name 400', async () => {
    const stored = (await postForm(plain!.url, await signedBy(user, { bytes: gif(2, 2), type: 'image/gif' }))).json['ImageURL'] as string;
    const hash = HASHED('gif').exec(stored)![1]!;
    for (const [name, status] of [[`${'ab'.repeat(32)}.png`, 404], [`${hash}.png`, 404], [`${hash}.gif`, 200], [`${hash.toUpperCase()}.gif`, 400], [`${hash}.svg`, 400], ['x', 400]] as const) {
      const r = await fetch(`${plain!.url}/api/v0/images/${name}`);
      assert.equal(r.status, status, name);
      if (status !== 200) assert.match(((await r.json()) as J)['error'] as string, status === 404 ? /^images: no such image$/ : /^images: the name must be/);
      else await r.body?.cancel();
    }
  });
});

uploadTable([
  {
    name: 'JPEG, GIF and WebP: the type comes from the bytes, whatever the part declares (here octet-stream)',
    ctx: plainCtx,
    upload: () => signedBy(user, { bytes: jpeg(640, 480), type: 'application/octet-stream', name: 'photo.png' }),
    check: async (r, c) => {
      assert.match(r['ImageURL'] as string, HASHED('jpeg'));
      assert.equal((await fetchImage(c, r['ImageURL'] as string)).headers.get('content-type'), 'image/jpeg');
      for (const [bytes, ext] of [[gif(10, 10), 'gif'], [webp(800, 600), 'webp']] as const) {
        const again = await postForm(c.n.url, await signedBy(user, { bytes, type: 'image/png' }));
        assert.match(again.json['ImageURL'] as string, HASHED(ext));
      }
    },
  },
  {
    name: 'the same bytes by another user: the same URL, stored once (the first uploader kept)',
    ctx: plainCtx,
    upload: async () => {
      await postForm(plain!.url, await signedBy(user, { bytes: png(5, 5, 1), type: 'image/png' }));
      return signedBy(other, { bytes: png(5, 5, 1), type: 'image/png' });
    },
    check: async (r, c) => {
      const hash = HASHED('png').exec(r['ImageURL'] as string)![1]!;
      assert.equal((await getImage(c.n.deps.store, hash))?.uploader, user.pk);
    },
  },
  {
    name: '--image-base-url prefixes the ImageURL (a trailing slash dropped); the node serves the name',
    ctx: wiredCtx,
    upload: () => signedBy(user, { bytes: png(2, 2, 3), type: 'image/png' }),
    check: async (r, c) => {
      assert.match(r['ImageURL'] as string, new RegExp(`^${CDN.replace(/\./g, '\\.')}/[0-9a-f]{64}\\.png$`));
      assert.equal((await fetchImage(c, r['ImageURL'] as string)).status, 200);
    },
  },
  {
    name: 'an SVG (even declared image/png) is refused',
    ctx: plainCtx,
    upload: () => signedBy(user, { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), type: 'image/png' }),
    error: { re: /^UploadImage: the file is not an image of an accepted type \(jpeg, png, gif, webp\)$/ },
  },
  {
    name: 'a side over 16383 pixels is refused (the reference’s bound)',
    ctx: plainCtx,
    upload: () => signedBy(user, { bytes: jpeg(20000, 100), type: 'image/jpeg' }),
    error: { re: /^UploadImage: the file is a jpeg of 20000x100 pixels; the most is 16383 on each side$/ },
  },
  {
    name: 'a file over --max-image-bytes whose request is within the route’s limit: 413 naming the option',
    ctx: wiredCtx,
    upload: () => signedBy(user, { bytes: Buffer.concat([png(1, 1), Buffer.alloc(MAX_IMAGE)]), type: 'image/png' }),
    error: { status: 413, re: /^UploadImage: File too large: \d+ bytes, the most is 4096 \(--max-image-bytes\)$/ },
  },
  {
    name: 'no file part',
    ctx: plainCtx,
    upload: () => signedBy(user),
    error: { re: /^UploadImage: Problem getting file from form data: the form has no file part named "file"$/ },
  },
  {
    name: 'no public key (the reference’s message)',
    ctx: plainCtx,
    upload: async () => ({ fields: { JWT: await jwt(user) }, file: { bytes: png(), type: 'image/png' } }),
    error: { re: /^UploadImage: No public key provided$/ },
  },
  {
    name: 'a malformed public key',
    ctx: plainCtx,
    upload: async () => ({ fields: { UserPublicKeyBase58Check: 'tBCnotakey', JWT: await jwt(user) }, file: { bytes: png(), type: 'image/png' } }),
    error: { re: /^UploadImage: Problem decoding public key: / },
  },
  {
    name: 'no JWT: 401',
    ctx: plainCtx,
    upload: async () => ({ fields: { UserPublicKeyBase58Check: user.pk }, file: { bytes: png(), type: 'image/png' } }),
    error: { status: 401, re: /^UploadImage: Invalid token: .*token is missing/ },
  },
  {
    name: 'a JWT of another key: 403',
    ctx: plainCtx,
    upload: async () => ({ fields: { UserPublicKeyBase58Check: user.pk, JWT: await jwt(other) }, file: { bytes: png(), type: 'image/png' } }),
    error: { status: 403, re: /^UploadImage: Invalid token: JWT is valid for another public key/ },
  },
]);

describe('upload-image: bodies that are no upload form', () => {
  it('JSON is 400 naming multipart/form-data; a malformed form 400; a declared body over the limit 413 unread', async () => {
    const n = wired!;
    await n.fails('upload-image', { UserPublicKeyBase58Check: user.pk }, /^Content-Type must be multipart\/form-data, got "application\/json"$/);
    const broken = await fetch(`${n.url}/api/v0/upload-image`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=zz' }, body: '--zz\r\nContent-Disposition: form-data; name="JWT"\r\n\r\nabc' });
    assert.equal(broken.status, 400);
    assert.match(((await broken.json()) as J)['error'] as string, /^multipart\/form-data body: a part is not closed by a delimiter line/);
    const big = Buffer.alloc(MAX_IMAGE + 64 * 1024 + 1);
    try {
      const r = await fetch(`${n.url}/api/v0/upload-image`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=zz' }, body: big });
      assert.equal(r.status, 413);
      assert.match(((await r.json()) as J)['error'] as string, /larger than the limit of 69632 bytes/);
    } catch (err) {
      // The node may close the connection before the client finished writing the body.
      assert.match(String((err as Error).cause ?? err), /ECONNRESET|EPIPE|other side closed|SocketError/);
    }
    // The route's limit is its own: other routes keep --max-body-bytes, and this one is not lowered to it.
    assert.equal(n.deps.config.maxBodyBytes, 1 << 20);
  });
});

// --- get-full-tiktok-url ----------------------------------------------------------------------

const table = routeTable<Ctx>();

describe('get-full-tiktok-url, the SDK’s getFullTikTokURL', () => {
  it('resolves through the configured shortener, asking it for /<ID>', async () => {
    const r = (await getFullTikTokURL({ TikTokShortVideoID: 'ZMgood123' }, { nodeURI: wired!.url })) as J;
    assert.deepEqual(r, { FullTikTokURL: 'https://www.tiktok.com/@some.user/video/7123456789012345678?_r=1&_t=8' });
    assert.ok(fake!.seen.some((s) => s.method === 'GET' && s.url === '/tiktok/ZMgood123'));
  });
});

table(plainCtx, 'get-full-tiktok-url', [
  {
    name: 'unconfigured: 400 naming --tiktok-url, and no call out',
    body: () => ({ TikTokShortVideoID: 'ZMgood123' }),
    error: { re: /^GetFullTikTokURL: This node does not resolve TikTok links: set --tiktok-url \(TIKTOK_URL\), e\.g\. https:\/\/vm\.tiktok\.com$/ },
  },
]);

table(wiredCtx, 'get-full-tiktok-url', [
  { name: 'a /v/<id>.html redirect, the ID with a trailing slash', body: () => ({ TikTokShortVideoID: 'ZMshort12/' }), check: (r) => assert.equal(r['FullTikTokURL'], 'https://m.tiktok.com/v/7000000000000000001.html') },
  { name: 'an ID that is not 6-12 letters and digits (no path may reach the shortener)', body: () => ({ TikTokShortVideoID: '../admin' }), error: { re: /^GetFullTikTokURL: TikTokShortVideoID must be 6 to 12 letters and digits/ } },
  { name: 'a redirect to TikTok’s home page (an unknown ID)', body: () => ({ TikTokShortVideoID: 'ZMhome123' }), error: { re: /^GetFullTikTokURL: destination url did not conform to tiktok full URL format: https:\/\/www\.tiktok\.com\/$/ } },
  { name: 'a video path on another host (the reference’s pattern would take it)', body: () => ({ TikTokShortVideoID: 'ZMevil123' }), error: { re: /did not conform to tiktok full URL format: https:\/\/evil\.example/ } },
  { name: 'a 404 from the shortener', body: () => ({ TikTokShortVideoID: 'ZMnone123' }), error: { re: /^GetFullTikTokURL: TikTok answered 404 without a redirect/ } },
  { name: 'a 5xx from the shortener: 503', body: () => ({ TikTokShortVideoID: 'ZMfail123' }), error: { status: 503, re: /^GetFullTikTokURL: TikTok answered 502; try again later$/ } },
  { name: 'a shortener that does not answer: 503 after --external-timeout-ms', body: () => ({ TikTokShortVideoID: 'ZMslow123' }), error: { status: 503, re: new RegExp(`^GetFullTikTokURL: TikTok did not answer within ${TIMEOUT_MS} ms$`) } },
]);

// --- Wyre -------------------------------------------------------------------------------------

const quoteBody = { SourceAmount: 25.5, Country: 'US', SourceCurrency: 'USD' };
const reserveBody = (): J => ({ SourceAmount: 100, Country: 'US', SourceCurrency: 'USD', ReferenceId: user.pk });
const NOT_CONFIGURED = (prefix: string): RegExp =>
  new RegExp(`^${prefix}: This node is not configured with Wyre: set --wyre-url \\(WYRE_URL\\), --wyre-account-id \\(WYRE_ACCOUNT_ID\\), --wyre-api-key \\(WYRE_API_KEY\\), --wyre-secret-key \\(WYRE_SECRET_KEY\\), --buy-native-btc-address \\(BUY_NATIVE_BTC_ADDRESS\\)$`);
const lastWyre = (path: string): J => {
  const s = [...fake!.seen].reverse().find((x) => x.url.startsWith(`/wyre/v3/orders/${path}?timestamp=`));
  assert.ok(s, `the fake Wyre received ${path}`);
  return JSON.parse(s.body) as J;
};

table(plainCtx, 'get-wyre-wallet-order-quotation', [
  { name: 'unconfigured: 400 naming every missing option', body: () => quoteBody, error: { re: NOT_CONFIGURED('GetWyreWalletOrderQuotation') } },
]);
table(plainCtx, 'get-wyre-wallet-order-reservation', [
  { name: 'unconfigured: 400 naming every missing option', body: reserveBody, error: { re: NOT_CONFIGURED('GetWyreWalletOrderReservation') } },
]);

table(wiredCtx, 'get-wyre-wallet-order-quotation', [
  {
    name: "Wyre's quote as Wyre answered it; Wyre got the reference's payload, signed with the node's keys",
    body: () => quoteBody,
    check: (r) => {
      assert.deepEqual(r, { sourceCurrency: 'USD', destCurrency: 'BTC', sourceAmount: 25.5, destAmount: 0.00042, fees: { USD: 2.5, BTC: 0 }, exchangeRate: 60000 });
      assert.deepEqual(lastWyre('quote/partner'), {
        sourceCurrency: 'USD',
        dest: `bitcoin:${WYRE.btc}`,
        destCurrency: 'BTC',
        amountIncludeFees: true,
        country: 'US',
        sourceAmount: '25.500000',
        walletType: 'DEBIT_CARD',
        accountId: WYRE.accountId,
      });
    },
  },
  { name: 'Wyre refuses the order: 400 with its message', body: () => ({ ...quoteBody, Country: 'XX' }), error: { re: /^GetWyreWalletOrderQuotation: Wyre refused the order \(400\): Country XX is not supported$/ } },
  { name: 'Wyre fails: 503', body: () => ({ ...quoteBody, SourceCurrency: 'ERR' }), error: { status: 503, re: /^GetWyreWalletOrderQuotation: Wyre answered 500: internal$/ } },
  { name: 'Wyre refuses the node’s keys: 503 for the operator', body: () => ({ ...quoteBody, SourceCurrency: 'KEY' }), error: { status: 503, re: /^GetWyreWalletOrderQuotation: Wyre refused this node's credentials \(403\)/ } },
  { name: 'an answer over 256 KiB is not read: 503', body: () => ({ ...quoteBody, SourceCurrency: 'BIG' }), error: { status: 503, re: /^GetWyreWalletOrderQuotation: Wyre answered more than 262144 bytes$/ } },
  { name: 'an answer that is not a JSON object: 503', body: () => ({ ...quoteBody, SourceCurrency: 'TXT' }), error: { status: 503, re: /^GetWyreWalletOrderQuotation: Wyre answered with something that is not a JSON object$/ } },
  { name: 'an amount of 0', body: () => ({ ...quoteBody, SourceAmount: 0 }), error: { re: /^SourceAmount: expected a number above 0/ } },
  { name: 'a country that is not two letters', body: () => ({ ...quoteBody, Country: 'USA' }), error: { re: /^Country: / } },
]);

table(wiredCtx, 'get-wyre-wallet-order-reservation', [
  {
    name: "the checkout reservation; the payload ties it to the buyer's key and the time, and redirects to https://<Host>/buy-deso",
    body: reserveBody,
    check: (r) => {
      assert.deepEqual(r, { url: 'https://pay.sendwyre.com/purchase?reservation=RES1', reservation: 'RES1' });
      const p = lastWyre('reserve');
      assert.match(p['referenceId'] as string, new RegExp(`^${user.pk}:\\d{19}$`));
      assert.deepEqual({ ...p, referenceId: '' }, {
        sourceCurrency: 'USD',
        dest: `bitcoin:${WYRE.btc}`,
        destCurrency: 'BTC',
        country: 'US',
        amount: '100.000000',
        referrerAccountId: WYRE.accountId,
        lockFields: ['dest', 'destCurrency'],
        redirectUrl: `https://${new URL(wired!.url).host}/buy-deso`,
        referenceId: '',
      });
    },
  },
  { name: 'a RedirectUrl of its own', body: () => ({ ...reserveBody(), RedirectUrl: 'https://app.example/after-buy' }), check: () => assert.equal(lastWyre('reserve')['redirectUrl'], 'https://app.example/after-buy') },
  { name: 'a RedirectUrl that is not http(s)', body: () => ({ ...reserveBody(), RedirectUrl: 'javascript:alert(1)' }), error: { re: /^GetWyreWalletOrderReservation: RedirectUrl must be an absolute http\(s\) URL$/ } },
  { name: 'a ReferenceId that is not a public key', body: () => ({ ...reserveBody(), ReferenceId: 'someone' }), error: { re: /^GetWyreWalletOrderReservation: Problem decoding ReferenceId as a public key of this network$/ } },
]);

const admins = adminTable<Ctx>({ superAdmin, admin, outsider, as: (_c, k, body) => adminBody(k, body) });

admins(wiredCtx, 'admin/get-wyre-wallet-order-quotation', 'admin', [
  { name: 'an admin gets the quote at the SDK’s path', body: () => adminBody(admin, quoteBody), check: (r) => assert.equal(r['destAmount'], 0.00042) },
  { name: 'bad input as on the public path', body: () => adminBody(admin, { ...quoteBody, SourceCurrency: 'DOLLARS' }), error: { re: /^SourceCurrency: / } },
], () => quoteBody);

admins(wiredCtx, 'admin/get-wyre-wallet-order-reservation', 'admin', [
  { name: 'a super admin reserves at the SDK’s path', body: () => adminBody(superAdmin, reserveBody()), check: (r) => assert.equal(r['reservation'], 'RES1') },
], reserveBody);

admins(plainCtx, 'admin/get-wyre-wallet-order-quotation', 'admin', [
  { name: 'unconfigured: 400 naming the options', body: () => adminBody(admin, quoteBody), error: { re: NOT_CONFIGURED('GetWyreWalletOrderQuotation') } },
], () => quoteBody);

admins(plainCtx, 'admin/get-wyre-wallet-orders-for-public-key', 'admin', [
  { name: 'by public key: none (this node takes no Wyre webhook)', body: () => adminBody(admin, { PublicKeyBase58Check: user.pk }), check: (r) => assert.deepEqual(r, { WyreWalletOrderMetadataResponses: [] }) },
  { name: 'a username without a profile (the reference’s message)', body: () => adminBody(admin, { Username: 'nobody_here' }), error: { re: /^GetWyreWalletOrdersForPublicKey: error getting profile entry for username nobody_here$/ } },
  { name: 'a malformed public key', body: () => adminBody(admin, { PublicKeyBase58Check: 'tBCxyz' }), error: { re: /^GetWyreWalletOrdersForPublicKey: error decoding public key: / } },
  { name: 'neither key nor username', body: () => adminBody(admin, {}), error: { re: /^GetWyreWalletOrdersForPublicKey: must provide either a public key or username$/ } },
], () => ({ PublicKeyBase58Check: user.pk }));

// --- reprocess-bitcoin-block ------------------------------------------------------------------

const HASH = '00000000000000000007878ec04bb2b2e12317804810f4c26033585b3f81ffaa';
admins(plainCtx, `admin/reprocess-bitcoin-block/${HASH}`, 'admin', [
  { name: 'a block hash: nothing to reprocess on this chain', body: () => adminBody(admin, {}), error: { re: /^ReprocessBitcoinBlock: this node has nothing to reprocess: its chain has no BitcoinExchange transactions/ } },
], () => ({}));

admins(plainCtx, 'admin/reprocess-bitcoin-block/700000', 'admin', [
  { name: 'a block height: the same answer', body: () => adminBody(superAdmin, {}), error: { re: /nothing to reprocess/ } },
], () => ({}));

admins(plainCtx, 'admin/reprocess-bitcoin-block/xyz', 'admin', [
  { name: 'neither a hash nor a height', body: () => adminBody(admin, {}), error: { re: /^ReprocessBitcoinBlock: the parameter after the slash must be a Bitcoin block hash \(64 hex characters\) or a block height$/ } },
], () => ({}));

// --- the image store on the durable stores ----------------------------------------------------

for (const store of ['lmdb', ...TEST_STORES.filter((s) => s === 'redis')] as const) {
  describe(`upload-image on the ${store} store`, () => {
    let n: ChainNode | undefined;
    before(async () => {
      n = await startChainNode({ store, args: ['--miner', 'off'] });
    });
    after(async () => {
      await n?.close();
    });

    it('a 3 MB image is stored once and served back byte for byte', async () => {
      const bytes = Buffer.concat([png(4, 4, 9), Buffer.alloc(3 << 20, 0xab)]);
      const first = await postForm(n!.url, await signedBy(user, { bytes, type: 'image/png' }));
      assert.equal(first.status, 200, JSON.stringify(first.json));
      const second = await postForm(n!.url, await signedBy(other, { bytes, type: 'image/png' }));
      assert.equal(second.json['ImageURL'], first.json['ImageURL']);
      const got = await fetch(first.json['ImageURL'] as string);
      assert.equal(got.status, 200);
      assert.ok(Buffer.from(await got.arrayBuffer()).equals(bytes));
    });
  });
}
