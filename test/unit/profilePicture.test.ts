/**
 * get-single-profile-picture over the router, with pictures written straight into state (as a
 * chain from before the connect rule checked pictures may hold them): only the fixed raster
 * types are served, always with nosniff and a CSP, and stored text never becomes a header.
 * Also the `?fallback=` rule: a redirect goes to an http(s) URL or a path that stays a path
 * in every reading (issue 17, items 1 and 9).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import type { AppDeps } from '../../server/app.js';
import { EMPTY_CREATOR_COIN, putProfile } from '../../server/chain/state/profiles.js';
import { StateView } from '../../server/chain/state/view.js';
import { Router } from '../../server/http/router.js';
import type { OutgoingResponse } from '../../server/http/uws.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { userRoutes } from '../../server/routes/users.js';
import { decodeProfilePicture } from '../../server/social/users.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const SVG = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.cookie)"/>').toString('base64')}`;
/** The reproduction: a content type that carries two extra header lines. */
const INJECTED = 'data:image/png\r\nSet-Cookie: pwn=1; Path=/\r\nX-Injected: yes;base64,AAAA';
/** Stored pictures that must never be served. */
const BAD_PICS = [
  INJECTED,
  'data:image/png\nX-Injected: yes;base64,AAAA',
  'data:image/png\u0000;base64,AAAA',
  SVG,
  'data:image/svg+xml;charset=utf-8;base64,PHN2Zz4=',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'data:image/x-icon;base64,AAAA',
  'data:image/png;base64,AAA',
  'data:image/;base64,AAAA',
  'https://example.com/a.png',
];

let view: StateView;
let router: Router;
const log = pino({ level: 'silent' });

function storePic(pic: string): string {
  const pk = getPublicKey(new Uint8Array(randomBytes(32)), true);
  putProfile(view, { publicKey: pk, username: `u${randomBytes(4).toString('hex')}`, description: '', profilePic: pic, creatorBasisPoints: 0n, stakeMultipleBasisPoints: 12_500n, isHidden: false, extraData: [], creatorCoin: { ...EMPTY_CREATOR_COIN } }, undefined);
  return encodePublicKey(pk, 'testnet');
}

function get(pk: string, fallback?: string): Promise<OutgoingResponse> {
  return router.dispatch({
    method: 'GET',
    url: `/api/v0/get-single-profile-picture/${pk}`,
    query: fallback === undefined ? '' : new URLSearchParams({ fallback }).toString(),
    headers: {},
    remoteAddress: '127.0.0.1',
    body: null,
  });
}

const header = (out: OutgoingResponse, name: string): string | undefined => out.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** What every answer of the route must hold, whatever is stored. */
function assertSafe(out: OutgoingResponse, what: string): void {
  for (const [k, v] of out.headers) {
    assert.doesNotMatch(`${k}: ${v}`, /[\u0000-\u0008\u000a-\u001f\u007f]/, `${what}: no control byte in header ${k}`);
    assert.ok(!['set-cookie', 'x-injected'].includes(k.toLowerCase()), `${what}: no injected header ${k}`);
  }
  assert.equal(header(out, 'X-Content-Type-Options'), 'nosniff', `${what}: nosniff`);
  assert.equal(header(out, 'Content-Security-Policy'), "default-src 'none'; sandbox", `${what}: CSP`);
  const type = header(out, 'Content-Type') ?? '';
  if (out.status === 200) assert.match(type, /^image\/(png|jpeg|webp|gif)$/, `${what}: a fixed raster type`);
  assert.doesNotMatch(type, /svg|html/i, `${what}: never svg or html`);
}

beforeEach(() => {
  view = StateView.over(new MemoryStore());
  const deps = { config: { network: 'testnet' }, chain: { pendingView: async () => view } } as unknown as AppDeps;
  router = new Router([userRoutes(deps)], { network: 'testnet', corsOrigins: ['*'], log });
});

describe('decodeProfilePicture', () => {
  it('decodes the four raster types, with a content type from the fixed list', () => {
    for (const type of ['png', 'jpeg', 'webp', 'gif']) {
      assert.deepEqual(decodeProfilePicture(`data:image/${type};base64,${PNG.toString('base64')}`), { contentType: `image/${type}`, bytes: new Uint8Array(PNG) });
    }
  });

  it('refuses every other stored value with the reference text', () => {
    for (const pic of BAD_PICS) {
      assert.deepEqual(decodeProfilePicture(pic), { problem: '_getProfilePictureForPublicKey: profile picture is not base64 encoded image' }, JSON.stringify(pic));
    }
  });
});

describe('GET get-single-profile-picture', () => {
  it('serves a stored png with nosniff and a CSP', async () => {
    const out = await get(storePic(`data:image/png;base64,${PNG.toString('base64')}`));
    assert.equal(out.status, 200);
    assert.equal(header(out, 'Content-Type'), 'image/png');
    assert.deepEqual(Buffer.from(out.body as Uint8Array), PNG);
    assertSafe(out, 'png');
  });

  it('never sends an injected header or an svg from a stored picture: 404, or 302 to the fallback', async () => {
    for (const pic of BAD_PICS) {
      const pk = storePic(pic);
      const missing = await get(pk);
      assert.equal(missing.status, 404, JSON.stringify(pic));
      assert.deepEqual(JSON.parse(String(missing.body)), { error: 'GetSingleProfilePicture: Profile Picture not found: _getProfilePictureForPublicKey: profile picture is not base64 encoded image' });
      assertSafe(missing, `${JSON.stringify(pic)} without fallback`);
      const redirected = await get(pk, 'https://example.com/default.png');
      assert.equal(redirected.status, 302, JSON.stringify(pic));
      assert.equal(header(redirected, 'Location'), 'https://example.com/default.png');
      assertSafe(redirected, `${JSON.stringify(pic)} with fallback`);
    }
  });
});

describe('?fallback= redirects', () => {
  /** [fallback as the query carries it once decoded, Location or null for a 400]. */
  const cases: Array<[string, string | null]> = [
    ['/images/default.png', '/images/default.png'],
    ['/a%2Fb.png', '/a%2Fb.png'],
    ['https://example.com/default.png', 'https://example.com/default.png'],
    ['http://example.com/a%20b.png?x=1', 'http://example.com/a%20b.png?x=1'],
    // The shapes: ?fallback=/%5Cevil.example and ?fallback=/%09/evil.example.
    ['/\\evil.example', null],
    ['/\t/evil.example', null],
    // The same, percent-encoded once more (and more).
    ['/%5Cevil.example', null],
    ['/%5cevil.example', null],
    ['/%09/evil.example', null],
    ['/%252F%252Fevil.example', null],
    ['/%2525255Cevil.example', null],
    ['//evil.example', null],
    ['/%2F/evil.example', null],
    ['/%2f%2fevil.example', null],
    // Control bytes and whitespace, raw or encoded.
    ['/\r\nSet-Cookie: pwn=1', null],
    ['/%0d%0aSet-Cookie:%20pwn=1', null],
    ['/x\u0000', null],
    ['/x%00', null],
    ['/x\u007f', null],
    ['/ /evil.example', null],
    ['/%20/evil.example', null],
    ['/\u00a0/evil.example', null],
    ['/%C2%A0/evil.example', null],
    ['/%zz', null],
    // Not http(s), or not a clean absolute URL.
    ['javascript:alert(1)', null],
    ['data:text/html,<script>alert(1)</script>', null],
    ['https:\\\\evil.example', null],
    [' https://evil.example', null],
    ['https://example.com/\r\nX-Injected: yes', null],
    ['evil.example', null],
  ];

  it('redirects to a clean path or http(s) URL, and refuses every bypass shape with 400', async () => {
    const pk = storePic('');
    for (const [fallback, location] of cases) {
      const out = await get(pk, fallback);
      if (location === null) {
        assert.equal(out.status, 400, `${JSON.stringify(fallback)} is refused (got Location ${JSON.stringify(header(out, 'Location'))})`);
        assert.deepEqual(JSON.parse(String(out.body)), { error: 'GetSingleProfilePicture: fallback must be an http(s) URL or a path on this host' });
        assert.equal(header(out, 'Location'), undefined);
      } else {
        assert.equal(out.status, 302, JSON.stringify(fallback));
        assert.equal(header(out, 'Location'), location);
        assertSafe(out, JSON.stringify(fallback));
      }
    }
  });
});
