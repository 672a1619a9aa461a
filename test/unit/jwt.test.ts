import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { toErrorReply } from '../../server/http/errors.js';
import { JwtError } from '../../server/identity/jwt.js';
import {
  DEFAULT_JWT_LIFETIME_SECONDS,
  issueJwt,
  JwtVerifier,
  MAX_JWT_CHARS,
  MAX_JWT_REMAINING_SECONDS,
  NO_DERIVED_KEYS,
  type DerivedKeyAuthorizer,
} from '../../server/identity/jwt.js';
import { encodePublicKey, isKeyError } from '../../server/keys/index.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

/** The parts of shared/vectors/sdk-vectors.json used here (identity-and-crypto.md §4, §9). */
interface JwtVector {
  signerSeedHex: string;
  signerPublicKeyBase58Check: string;
  ownerPublicKeyBase58CheckForContext?: string;
  jwt: string;
  headerJson: string;
  payloadJson: string;
  payload: { derivedPublicKeyBase58Check?: string; iat: number; exp: number };
  signingInputSha256Hex: string;
  verifyingPublicKeyCompressedHex: string;
  producedBy: string;
}
interface SdkVectors {
  jwt: JwtVector[];
  derivedKeyAuthorization: {
    ownerSeedHex: string;
    ownerPublicKeyBase58Check: string;
    derivedSeedHex: string;
    derivedPublicKeyBase58Check: string;
    fullDerivePayload: { jwt: string; derivedJwt: string };
  };
}

const V = readSharedVectors<SdkVectors>('sdk-vectors.json');
const DKA = V.derivedKeyAuthorization;
const crypto = new InlineCrypto();
after(() => crypto.close());

const ALLOW_ALL: DerivedKeyAuthorizer = { isAuthorized: async () => true };
const T0 = 1_700_000_000;

function verifier(now: number, derivedKeyAuthorizer: DerivedKeyAuthorizer = NO_DERIVED_KEYS): JwtVerifier {
  return new JwtVerifier(crypto, { network: 'mainnet', derivedKeyAuthorizer, nowSeconds: () => now });
}

/** Asserts a JwtError answered with this status whose message matches; never a plain crash. */
async function rejects(p: Promise<unknown>, status: number, message: RegExp | string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof JwtError, `expected JwtError, got ${String(e)}`);
    assert.equal(toErrorReply(e).status, status, e.message);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');

/** A token over any header/payload text, signed with noble (prehash: SHA-256 done here). */
function craft(headerJson: string, payloadJson: string, secretKey: Uint8Array): string {
  const input = `${b64(headerJson)}.${b64(payloadJson)}`;
  const sig = secp256k1.sign(sha256(Buffer.from(input, 'latin1')), secretKey, { prehash: false });
  return `${input}.${Buffer.from(sig).toString('base64url')}`;
}

const ES256 = '{"alg":"ES256","typ":"JWT"}';
const skA = hexToBytes(DKA.ownerSeedHex);
const skB = hexToBytes('11'.repeat(32));
const pubA = encodePublicKey(secp256k1.getPublicKey(skA), 'mainnet');
const pubB = encodePublicKey(secp256k1.getPublicKey(skB), 'mainnet');
const skDerived = hexToBytes(DKA.derivedSeedHex);

describe('JWT: SDK vectors (identity-and-crypto.md §4.1)', () => {
  for (const [i, v] of V.jwt.entries()) {
    const owner = v.ownerPublicKeyBase58CheckForContext ?? v.signerPublicKeyBase58Check;
    const isEs256k = v.headerJson.includes('"ES256K"');
    const name = `jwt[${i}] ${v.producedBy.slice(0, 60)}`;

    it(`${name}: signing input hash and verifying key match the vector`, () => {
      const [h, p] = v.jwt.split('.') as [string, string];
      assert.equal(Buffer.from(h, 'base64url').toString(), v.headerJson);
      assert.equal(Buffer.from(p, 'base64url').toString(), v.payloadJson);
      assert.equal(bytesToHex(sha256(Buffer.from(`${h}.${p}`))), v.signingInputSha256Hex);
      assert.equal(bytesToHex(secp256k1.getPublicKey(hexToBytes(v.signerSeedHex))), v.verifyingPublicKeyCompressedHex);
    });

    if (isEs256k) {
      // golang-jwt v4 has no ES256K (node-api.md §1.1): the reference node refuses these.
      it(`${name}: ES256K is refused as the reference node refuses it`, async () => {
        await rejects(verifier(v.payload.iat).verify(owner, v.jwt), 401, 'Problem verifying JWT token: signing method (alg) is unavailable.');
      });
    } else {
      const authorizer = v.payload.derivedPublicKeyBase58Check === undefined ? NO_DERIVED_KEYS : ALLOW_ALL;
      it(`${name}: verifies with the clock at iat`, async () => {
        await verifier(v.payload.iat, authorizer).verify(owner, v.jwt);
      });
      it(`${name}: is expired at real time and at exp`, async () => {
        const expired = 'Problem verifying JWT token: Token is expired';
        await rejects(new JwtVerifier(crypto, { network: 'mainnet', derivedKeyAuthorizer: authorizer }).verify(owner, v.jwt), 401, expired);
        await rejects(verifier(v.payload.exp, authorizer).verify(owner, v.jwt), 401, expired);
        await verifier(v.payload.exp - 1, authorizer).verify(owner, v.jwt);
      });
    }
  }

  it('derived-key-signed SDK token (identity.jwt()) is refused with NO_DERIVED_KEYS: 403', async () => {
    const v = V.jwt[3]!;
    await rejects(verifier(T0).verify(DKA.ownerPublicKeyBase58Check, v.jwt), 403, 'Derived key is not authorized');
  });

  it('the authorizer is asked about (owner, derived) as 33-byte keys', async () => {
    const seen: string[] = [];
    const spy: DerivedKeyAuthorizer = {
      isAuthorized: async (owner, derived) => {
        seen.push(`${encodePublicKey(owner, 'mainnet')}/${encodePublicKey(derived, 'mainnet')}`);
        return true;
      },
    };
    await verifier(T0, spy).verify(DKA.ownerPublicKeyBase58Check, V.jwt[1]!.jwt);
    assert.deepEqual(seen, [`${DKA.ownerPublicKeyBase58Check}/${DKA.derivedPublicKeyBase58Check}`]);
  });
});

describe('JWT: SDK derive payload (derivedKeyAuthorization.fullDerivePayload)', () => {
  const { jwt, derivedJwt } = DKA.fullDerivePayload;

  it('owner jwt verifies for the owner', async () => {
    await verifier(T0).verify(DKA.ownerPublicKeyBase58Check, jwt);
  });

  // The SDK's derivedJwt is signed by the OWNER but claims the derived key (identity-and-crypto.md
  // §4.1, §7 item 2). A verifier that honours the claim checks it against the derived key, so it
  // can never pass, whatever the authorizer says; the reference node refuses it too.
  it('SDK derivedJwt (owner-signed, derived claim) is refused with NO_DERIVED_KEYS', async () => {
    await rejects(verifier(T0).verify(DKA.ownerPublicKeyBase58Check, derivedJwt), 401, 'Problem verifying JWT token: signature is invalid');
  });

  it('SDK derivedJwt is refused even when the derived key is authorized', async () => {
    await rejects(verifier(T0, ALLOW_ALL).verify(DKA.ownerPublicKeyBase58Check, derivedJwt), 401, 'Problem verifying JWT token: signature is invalid');
  });

  it('the same claims signed by the derived key (as the frame does) pass once authorized', async () => {
    const frameStyle = await issueJwt(crypto, skDerived, { nowSeconds: T0, derivedPublicKeyBase58Check: DKA.derivedPublicKeyBase58Check });
    await rejects(verifier(T0).verify(DKA.ownerPublicKeyBase58Check, frameStyle), 403, 'Derived key is not authorized');
    await verifier(T0, ALLOW_ALL).verify(DKA.ownerPublicKeyBase58Check, frameStyle);
  });
});

describe('JWT: issue → verify', () => {
  it('owner token: SDK header/payload text, 600 s lifetime, expires at iat+600', async () => {
    const token = await issueJwt(crypto, skA, { nowSeconds: T0 });
    const [h, p, s] = token.split('.') as [string, string, string];
    assert.equal(Buffer.from(h, 'base64url').toString(), V.jwt[0]!.headerJson);
    assert.equal(Buffer.from(p, 'base64url').toString(), `{"iat":${T0},"exp":${T0 + 600}}`);
    assert.equal(DEFAULT_JWT_LIFETIME_SECONDS, 600);
    assert.equal(s.length, 86, 'signature is 64 bytes, unpadded base64url');
    await verifier(T0).verify(pubA, token);
    await verifier(T0 + 599).verify(pubA, token);
    await rejects(verifier(T0 + 600).verify(pubA, token), 401, 'Problem verifying JWT token: Token is expired');
  });

  it('derived token: payload text byte-equal to the SDK vector (same claim order)', async () => {
    const v = V.jwt[1]!;
    const token = await issueJwt(crypto, skDerived, {
      nowSeconds: v.payload.iat,
      lifetimeSeconds: v.payload.exp - v.payload.iat,
      derivedPublicKeyBase58Check: DKA.derivedPublicKeyBase58Check,
    });
    const [h, p] = token.split('.');
    assert.equal(`${h}.${p}`, v.jwt.split('.').slice(0, 2).join('.'), 'header.payload identical to the SDK token');
    await verifier(v.payload.iat, ALLOW_ALL).verify(DKA.ownerPublicKeyBase58Check, token);
  });

  it('issued tokens verify with @noble/curves and are low-S', async () => {
    for (const sk of [skA, skB, skDerived]) {
      const token = await issueJwt(crypto, sk);
      const [h, p, s] = token.split('.') as [string, string, string];
      const sig = Buffer.from(s, 'base64url');
      const hash = sha256(Buffer.from(`${h}.${p}`));
      assert.ok(secp256k1.verify(sig, hash, secp256k1.getPublicKey(sk), { prehash: false, lowS: true }), 'noble verifies the issued token');
    }
  });

  it('defaults iat to the current second', async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await issueJwt(crypto, skA);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number };
    assert.ok(claims.iat >= before && claims.iat <= before + 2, `iat ${claims.iat} near ${before}`);
    assert.equal(claims.exp - claims.iat, 600);
  });

  it('refuses bad options and a zero secret key', async () => {
    await assert.rejects(issueJwt(crypto, skA, { nowSeconds: 1.5 }), RangeError);
    await assert.rejects(issueJwt(crypto, skA, { lifetimeSeconds: 0 }), RangeError);
    await assert.rejects(issueJwt(crypto, skA, { derivedPublicKeyBase58Check: '' }), RangeError);
    await assert.rejects(issueJwt(crypto, new Uint8Array(32)), RangeError);
  });

  it('accepts high-S signatures (the frame does not normalise S)', async () => {
    const token = await issueJwt(crypto, skA, { nowSeconds: T0 });
    const [h, p, s] = token.split('.') as [string, string, string];
    const sig = Buffer.from(s, 'base64url');
    const n = secp256k1.Point.CURVE().n;
    const highS = n - BigInt(`0x${sig.subarray(32).toString('hex')}`);
    sig.set(Buffer.from(highS.toString(16).padStart(64, '0'), 'hex'), 32);
    await verifier(T0).verify(pubA, `${h}.${p}.${sig.toString('base64url')}`);
  });
});

describe('JWT: refusals', () => {
  const invalidSig = 'Problem verifying JWT token: signature is invalid';

  it('a token of A presented for B is a 401 (signature fails under B, see JwtVerifier doc)', async () => {
    const token = await issueJwt(crypto, skA, { nowSeconds: T0 });
    await rejects(verifier(T0).verify(pubB, token), 401, invalidSig);
  });

  it('tampered header, payload or signature', async () => {
    const token = await issueJwt(crypto, skA, { nowSeconds: T0 });
    const [h, p, s] = token.split('.') as [string, string, string];
    const v = verifier(T0);
    await rejects(v.verify(pubA, `${b64('{"typ":"JWT","alg":"ES256"}')}.${p}.${s}`), 401, invalidSig);
    await rejects(v.verify(pubA, `${h}.${b64(`{"iat":${T0},"exp":${T0 + 6000}}`)}.${s}`), 401, invalidSig);
    const sig = Buffer.from(s, 'base64url');
    sig[10]! ^= 1;
    await rejects(v.verify(pubA, `${h}.${p}.${sig.toString('base64url')}`), 401, invalidSig);
    await rejects(v.verify(pubA, `${h}.${p}.${s.slice(0, -2)}`), 401, invalidSig);
    await rejects(v.verify(pubA, `${h}.${p}.${Buffer.alloc(64).toString('base64url')}`), 401, invalidSig);
  });

  it('alg none, HS256, ES256K, ES384, missing or unknown alg', async () => {
    const payload = `{"iat":${T0},"exp":${T0 + 600}}`;
    const v = verifier(T0);
    const cases: Array<[string, string]> = [
      ['{"alg":"none","typ":"JWT"}', "Problem verifying JWT token: 'none' signature type is not allowed"],
      ['{"alg":"HS256","typ":"JWT"}', 'Problem verifying JWT token: key is of invalid type'],
      ['{"alg":"ES256K","typ":"JWT"}', 'Problem verifying JWT token: signing method (alg) is unavailable.'],
      ['{"alg":"ES384","typ":"JWT"}', invalidSig],
      ['{"alg":"XYZ","typ":"JWT"}', 'Problem verifying JWT token: signing method (alg) is unavailable.'],
      ['{"typ":"JWT"}', 'Problem verifying JWT token: signing method (alg) is unspecified.'],
      ['{"alg":256}', 'Problem verifying JWT token: signing method (alg) is unspecified.'],
    ];
    // Validly signed with A's key: only the alg decides.
    for (const [header, message] of cases) await rejects(v.verify(pubA, craft(header, payload, skA)), 401, message);
    // The classic 'none' token with an empty signature.
    await rejects(v.verify(pubA, `${b64('{"alg":"none"}')}.${b64(payload)}.`), 401, /'none' signature type is not allowed/);
  });

  it('malformed tokens give a 401 that does not echo the token', async () => {
    const good = await issueJwt(crypto, skA, { nowSeconds: T0 });
    const [h, p, s] = good.split('.') as [string, string, string];
    const v = verifier(T0);
    const cases: Array<[string, RegExp]> = [
      ['', /token is missing/],
      [`${h}.${p}`, /invalid number of segments/],
      [`${h}.${p}.${s}.x`, /invalid number of segments/],
      [`${h}!.${p}.${s}`, /header is not base64url/],
      [`${h}.${p}=.${s}`, /payload is not base64url/],
      [`${h}.${p}.${s}+`, /signature is not base64url/],
      [`${h}.${p}.${s.slice(0, -1)}B`, /signature is not canonical base64url/],
      [`${b64('not json')}.${p}.${s}`, /header is not valid JSON/],
      [`${h}.${b64('[1,2]')}.${s}`, /payload is not a JSON object/],
      [`${h}.${b64('null')}.${s}`, /payload is not a JSON object/],
      ['a'.repeat(MAX_JWT_CHARS + 1), /longer than 4096 characters/],
    ];
    for (const [token, message] of cases) {
      await assert.rejects(v.verify(pubA, token), (e: unknown) => {
        assert.ok(e instanceof JwtError, `JwtError for ${message}`);
        assert.equal(toErrorReply(e).status, 401);
        assert.match(e.message, message);
        assert.ok(token.length < 8 || !e.message.includes(token.slice(0, 8)), `message does not echo the token: ${e.message}`);
        return true;
      });
    }
    await rejects(v.verify(pubA, 42 as unknown as string), 401, /token is missing/);
  });

  it('a huge token is refused before any decoding', async () => {
    const huge = `${'a'.repeat(1 << 20)}.${'b'.repeat(1 << 20)}.c`;
    await rejects(verifier(T0).verify(pubA, huge), 401, /longer than 4096 characters/);
  });

  it('derived claim: non-string or undecodable is a 401, never a crash', async () => {
    const v = verifier(T0, ALLOW_ALL);
    for (const claim of ['42', 'null', '{"a":1}', '["BC1"]']) {
      const token = craft(ES256, `{"derivedPublicKeyBase58Check":${claim},"exp":${T0 + 60}}`, skA);
      await rejects(v.verify(pubA, token), 401, 'Problem verifying JWT token: derivedPublicKeyBase58Check must be a string');
    }
    const bad = craft(ES256, `{"derivedPublicKeyBase58Check":"not-a-key","exp":${T0 + 60}}`, skA);
    await rejects(v.verify(pubA, bad), 401, /Problem decoding derived public key: derivedPublicKeyBase58Check: /);
    const testnet = encodePublicKey(secp256k1.getPublicKey(skDerived), 'testnet');
    const wrongNet = craft(ES256, `{"derivedPublicKeyBase58Check":"${testnet}","exp":${T0 + 60}}`, skDerived);
    await rejects(v.verify(pubA, wrongNet), 401, /expected a mainnet public key/);
  });

  it('exp: non-numeric is invalid, fractions truncate; iat is ignored', async () => {
    const v = verifier(T0);
    const expired = 'Problem verifying JWT token: Token is expired';
    for (const exp of ['"9999999999"', 'null', 'true', '{}']) {
      await rejects(v.verify(pubA, craft(ES256, `{"exp":${exp}}`, skA)), 401, expired);
    }
    await rejects(v.verify(pubA, craft(ES256, `{"exp":${T0}.9}`, skA)), 401, expired);
    await v.verify(pubA, craft(ES256, `{"iat":"garbage","exp":${T0 + 1}}`, skA));
    await v.verify(pubA, craft(ES256, `{"iat":${T0 + 99999},"exp":${T0 + 1}}`, skA));
  });

  // Issue 17: golang-jwt treats a missing exp (or 0) as "never expires"; a leaked token would
  // then be a credential for good. Every token the SDK or a frame issues has an exp.
  it('exp is required (absent or 0 is a 401) and at most 31 days away', async () => {
    const v = verifier(T0);
    const noExp = 'Problem verifying JWT token: token has no expiration (exp)';
    for (const payload of ['{}', '{"exp":0}', `{"iat":${T0}}`, `{"nbf":${T0 - 1}}`]) {
      await rejects(v.verify(pubA, craft(ES256, payload, skA)), 401, noExp);
    }
    const derived = craft(ES256, `{"derivedPublicKeyBase58Check":"${DKA.derivedPublicKeyBase58Check}","iat":${T0}}`, skDerived);
    await rejects(verifier(T0, ALLOW_ALL).verify(DKA.ownerPublicKeyBase58Check, derived), 401, noExp);
    const tooFar = 'Problem verifying JWT token: token expires more than 31 days from now';
    for (const exp of [T0 + MAX_JWT_REMAINING_SECONDS + 1, T0 + 10 * 365 * 86_400, 9_999_999_999, Number.MAX_SAFE_INTEGER, 1e300]) {
      await rejects(v.verify(pubA, craft(ES256, `{"iat":${T0},"exp":${exp}}`, skA)), 401, tooFar);
    }
    // The SDK's 30 minutes, a frame derive payload's default 30 days, and the bound itself pass.
    for (const exp of [T0 + 1800, T0 + 30 * 86_400, T0 + MAX_JWT_REMAINING_SECONDS]) await v.verify(pubA, craft(ES256, `{"iat":${T0},"exp":${exp}}`, skA));
    assert.equal(MAX_JWT_REMAINING_SECONDS, 31 * 86_400);
  });

  it('nbf in the future is refused; reached, 0 or absent passes', async () => {
    const v = verifier(T0);
    const notYet = 'Problem verifying JWT token: Token is not valid yet';
    await rejects(v.verify(pubA, craft(ES256, `{"nbf":${T0 + 1},"exp":${T0 + 60}}`, skA)), 401, notYet);
    await rejects(v.verify(pubA, craft(ES256, `{"nbf":"0","exp":${T0 + 60}}`, skA)), 401, notYet);
    // Both failing: golang-jwt v4 reports the nbf failure.
    await rejects(v.verify(pubA, craft(ES256, `{"nbf":${T0 + 1},"exp":${T0}}`, skA)), 401, notYet);
    await v.verify(pubA, craft(ES256, `{"nbf":${T0},"exp":${T0 + 60}}`, skA));
    await v.verify(pubA, craft(ES256, `{"nbf":0,"exp":${T0 + 60}}`, skA));
  });

  it('a malformed claimed public key is a KeyError (400), not a 401', async () => {
    const token = await issueJwt(crypto, skA, { nowSeconds: T0 });
    await assert.rejects(verifier(T0).verify('BC1nope', token, 'UserPublicKeyBase58Check'), (e: unknown) => {
      assert.ok(isKeyError(e), `expected KeyError, got ${String(e)}`);
      assert.match(e.message, /^UserPublicKeyBase58Check: /);
      return true;
    });
  });

  it('NO_DERIVED_KEYS answers false', async () => {
    assert.equal(await NO_DERIVED_KEYS.isAuthorized(new Uint8Array(33), new Uint8Array(33)), false);
  });
});
