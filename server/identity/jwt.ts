/**
 * JWTs that authenticate a user for a public key: issued as the identity frame's `jwt` method
 * does, verified as the reference node's `ValidateJWT` does (shared/reference/node-api.md §1.1,
 * identity-and-crypto.md §4, api-spec.md §5). No HTTP here: failures are `JwtError`s, whose
 * kind (unauthorized: a bad token; forbidden: a derived key the owner did not authorize)
 * server/http/errors.ts turns into a status.
 *
 * Every DeSo JWT is ECDSA over secp256k1 under the label `ES256` (not P-256, despite the
 * name), signature = raw r ‖ s (64 bytes), message = SHA-256 of `header.payload`.
 *
 * Error messages never contain the token or any part of it: it is a bearer credential, and
 * error bodies end up in client logs and ours.
 * @module
 */
import { DomainError } from '../errors.js';
import { assertJsonDepth } from '../jsonDepth.js';
import { decodePublicKey, isKeyError, type Network } from '../keys/index.js';
import type { CryptoService } from '../crypto/service.js';
import { getDerivedKey, isDerivedKeyValid } from '../chain/state/derivedKeys.js';
import type { StateReader } from '../chain/state/reader.js';
import { sha256 } from '../../wasm/hash.js';

/**
 * The only `alg` accepted. golang-jwt v4 (the reference node) resolves `alg` to a method and,
 * given an ECDSA key, can only pass ES256 with a 64-byte signature on the key's curve.
 * `ES256K`, which the SDK can emit when configured, is not registered there, so its tokens are
 * refused by the reference node and by us alike (node-api.md §1.1).
 */
export const JWT_ALG = 'ES256';

/** The frame's `jwt` method issues tokens valid for 10 minutes (api-spec.md §5, §8). */
export const DEFAULT_JWT_LIFETIME_SECONDS = 600;

/**
 * Longest token accepted, in characters. The longest token the SDK or frame issues (derived
 * claim, iat, exp) is 288 characters; 4 KiB leaves room for clients that add claims while
 * bounding the base64 and JSON work an unauthenticated caller can make us do.
 */
export const MAX_JWT_CHARS = 4096;

/**
 * Furthest `exp` accepted, from now. The SDK's tokens live 30 minutes and this node's frame
 * issues 10; the reference frame's derive payload tokens default to 30 days. A token valid for
 * longer would be a standing credential if it leaked, so it is refused (the reference has no
 * bound: golang-jwt checks only that exp has not passed).
 */
export const MAX_JWT_REMAINING_SECONDS = 31 * 24 * 60 * 60;

/** Claim that names the derived key the token was signed with (identity-and-crypto.md §4). */
export const DERIVED_KEY_CLAIM = 'derivedPublicKeyBase58Check';

const SIGNATURE_BYTES = 64;

/** Prefix of every 401 message, as in the reference node's `ValidateJWT`. */
const PROBLEM = 'Problem verifying JWT token: ';

/** A token that does not authenticate the key it is presented for. */
export class JwtError extends DomainError {
  override readonly name = 'JwtError';
  constructor(
    override readonly code: 'JWT_INVALID' | 'JWT_DERIVED_KEY_NOT_AUTHORIZED',
    override readonly kind: 'unauthorized' | 'forbidden',
    message: string,
  ) {
    super(code, kind, message);
  }
}

export function isJwtError(e: unknown): e is JwtError {
  return e instanceof JwtError;
}

/** Header text exactly as the SDK and the frame write it (key order matters to byte-compare). */
const HEADER_JSON = `{"alg":"${JWT_ALG}","typ":"JWT"}`;

/** Whether the owner has authorized `derived` as a derived key valid at the current tip. */
export interface DerivedKeyAuthorizer {
  isAuthorized(owner: Uint8Array, derived: Uint8Array): Promise<boolean>;
}

/**
 * Refuses every derived key: the right answer while no derived-key authorization can exist
 * on chain, and never a silent acceptance if the chain wiring is forgotten.
 */
export const NO_DERIVED_KEYS: DerivedKeyAuthorizer = Object.freeze({
  isAuthorized: async (): Promise<boolean> => false,
});

/**
 * Derived-key authorization from chain state, as the reference's ValidateDerivedKey(owner,
 * derived, tipHeight): the owner authorized the key (operation VALID, so never de-authorized)
 * and its expiration block is above the tip's height. `state` is the reader to look in, or a
 * function giving one per check: the node passes the pending view (tip plus mempool), as the
 * reference validates against its mempool's augmented view, so a key authorized at login signs
 * JWTs before its block (the SDK asks for one right after `loginWithAutoDerive`), and a
 * de-authorization counts from the mempool on.
 */
export function chainDerivedKeyAuthorizer(state: StateReader | (() => Promise<StateReader>), chain: { tip(): Promise<{ height: bigint }> }): DerivedKeyAuthorizer {
  return {
    isAuthorized: async (owner, derived) => {
      const reader = typeof state === 'function' ? await state() : state;
      const [record, tip] = await Promise.all([getDerivedKey(reader, owner, derived), chain.tip()]);
      return isDerivedKeyValid(record, tip.height);
    },
  };
}

export interface IssueJwtOptions {
  /** `iat`, in Unix seconds. @default floor(Date.now() / 1000) */
  nowSeconds?: number;
  /** `exp - iat`. @default DEFAULT_JWT_LIFETIME_SECONDS (600) */
  lifetimeSeconds?: number;
  /** Set when `secretKey` is a derived key: the verifier then checks the owner's authorization. */
  derivedPublicKeyBase58Check?: string;
}

/**
 * A token as the identity frame issues it: header `{"alg":"ES256","typ":"JWT"}`, payload
 * `{"derivedPublicKeyBase58Check"?, "iat", "exp"}` in that order, low-S r ‖ s signature.
 * @throws {RangeError} on a bad option or a secret key outside [1, n-1]
 */
export async function issueJwt(crypto: CryptoService, secretKey: Uint8Array, opts: IssueJwtOptions = {}): Promise<string> {
  const iat = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const lifetime = opts.lifetimeSeconds ?? DEFAULT_JWT_LIFETIME_SECONDS;
  if (!Number.isSafeInteger(iat) || iat < 0) {
    throw new RangeError(`"nowSeconds" expected a non-negative integer, got ${iat}`);
  }
  if (!Number.isSafeInteger(lifetime) || lifetime <= 0) {
    throw new RangeError(`"lifetimeSeconds" expected a positive integer, got ${lifetime}`);
  }
  const derived = opts.derivedPublicKeyBase58Check;
  if (derived !== undefined && (typeof derived !== 'string' || derived.length === 0)) {
    throw new RangeError(`"derivedPublicKeyBase58Check" expected a non-empty string`);
  }
  // Built by hand rather than from an object so the claim order is fixed by this line.
  const claims = derived === undefined ? '' : `${JSON.stringify(DERIVED_KEY_CLAIM)}:${JSON.stringify(derived)},`;
  const payloadJson = `{${claims}"iat":${iat},"exp":${iat + lifetime}}`;
  const signingInput = `${base64url(HEADER_JSON)}.${base64url(payloadJson)}`;

  const [result] = await crypto.sign([{ privateKey: secretKey, hash: sha256(Buffer.from(signingInput, 'latin1')) }]);
  if (result === undefined || !result.ok) {
    throw new RangeError(result?.error ?? '"secretKey" could not sign');
  }
  return `${signingInput}.${Buffer.from(result.value.signature).toString('base64url')}`;
}

export interface JwtVerifierOptions {
  /** Network of the Base58Check keys (the claimed key and the derived-key claim). */
  network: Network;
  derivedKeyAuthorizer: DerivedKeyAuthorizer;
  /** Clock for `exp`/`nbf`, in Unix seconds. @default () => Date.now() / 1000 */
  nowSeconds?: () => number;
}

interface ParsedToken {
  signingInput: string;
  claims: Record<string, unknown>;
  signature: Uint8Array;
}

/**
 * Checks that a token authenticates a request for a public key.
 *
 * Status codes:
 * - 401: the token does not prove the key (malformed, wrong alg, bad signature, expired,
 *   not yet valid, unusable derived-key claim).
 * - 403: the token is authentic — its signature verifies under the derived key it names —
 *   but the owner has not authorized that derived key.
 *
 * "A JWT for another key" (signed by A, presented for B) is a 401, not a 403. The token names
 * no signer except through the derived-key claim; the reference verifies with the CLAIMED key,
 * so A's token simply fails B's signature check. Telling that apart from a forgery is not
 * sound: public-key recovery turns any (r, s) whose r is a curve x coordinate (about half of
 * all values) into keys under which that signature is valid, so "recovered a key other than
 * B" proves nothing about who signed. 403 is kept for what we can prove (above).
 *
 * Order differs from the reference in one way: the reference asks the chain about the derived
 * key before checking the signature; we check the signature first, so a 403 is only given to
 * an authentic token and unauthenticated junk never costs a state lookup. Outcomes (accept or
 * refuse) are the same; only which refusal a forged derived-key token gets changes.
 */
export class JwtVerifier {
  private readonly network: Network;
  private readonly authorizer: DerivedKeyAuthorizer;
  private readonly now: () => number;

  constructor(
    private readonly crypto: CryptoService,
    opts: JwtVerifierOptions,
  ) {
    this.network = opts.network;
    this.authorizer = opts.derivedKeyAuthorizer;
    this.now = opts.nowSeconds ?? ((): number => Date.now() / 1000);
  }

  /**
   * Resolves when `token` authenticates `publicKeyBase58Check`.
   * @param field - request field that held the public key, for key-decoding messages
   * @throws {JwtError} unauthorized (401) / forbidden (403) as described on the class
   * @throws {KeyError} when the claimed public key itself is malformed (a 400: bad request,
   *   not bad credentials)
   */
  async verify(publicKeyBase58Check: string, token: string, field = 'PublicKeyBase58Check'): Promise<void> {
    const owner = decodePublicKey(publicKeyBase58Check, this.network, field);
    const { signingInput, claims, signature } = parseToken(token);

    let signer = owner;
    let derived: Uint8Array | undefined;
    if (Object.hasOwn(claims, DERIVED_KEY_CLAIM)) {
      const value = claims[DERIVED_KEY_CLAIM];
      // The reference panics on a non-string claim (an unchecked type assertion).
      if (typeof value !== 'string') throw unauthorized(`${DERIVED_KEY_CLAIM} must be a string`);
      try {
        derived = decodePublicKey(value, this.network, DERIVED_KEY_CLAIM);
      } catch (e) {
        if (isKeyError(e)) throw unauthorized(`Problem decoding derived public key: ${e.message}`);
        throw e;
      }
      signer = derived;
    }

    const hash = sha256(Buffer.from(signingInput, 'latin1'));
    // lowS: false — the frame's jsonwebtoken does not normalise S, and Go's ecdsa accepts both.
    const [result] = await this.crypto.verifySignatures([{ publicKey: signer, hash, signature, lowS: false }]);
    // ok:false means r or s outside [1, n-1]: for the client, just an invalid signature.
    if (result === undefined || !result.ok || !result.value) throw unauthorized('signature is invalid');

    // Signature before claims, as golang-jwt v4.5 does: an unauthenticated caller learns
    // nothing about which claims we would have accepted.
    checkTimeClaims(claims, this.now());

    if (derived !== undefined && !(await this.authorizer.isAuthorized(owner, derived))) {
      throw new JwtError('JWT_DERIVED_KEY_NOT_AUTHORIZED', 'forbidden', 'Derived key is not authorized');
    }
  }
}

/** Splits and decodes; every failure is a 401 naming the part, never quoting it. */
function parseToken(token: unknown): ParsedToken {
  if (typeof token !== 'string' || token.length === 0) throw unauthorized('token is missing');
  if (token.length > MAX_JWT_CHARS) throw unauthorized(`token is longer than ${MAX_JWT_CHARS} characters`);
  const parts = token.split('.');
  if (parts.length !== 3) throw unauthorized('token contains an invalid number of segments');
  const [headerB64, payloadB64, signatureB64] = parts as [string, string, string];

  const header = decodeJsonObject(headerB64, 'header');
  checkAlg(header['alg']);
  const claims = decodeJsonObject(payloadB64, 'payload');
  const signature = decodeSegment(signatureB64, 'signature');
  if (signature.length !== SIGNATURE_BYTES) throw unauthorized('signature is invalid');
  return { signingInput: `${headerB64}.${payloadB64}`, claims, signature };
}

/** Mirrors golang-jwt v4's answers for each kind of `alg`, so clients see the familiar text. */
function checkAlg(alg: unknown): void {
  if (alg === JWT_ALG) return;
  if (typeof alg !== 'string' || alg === '') throw unauthorized('signing method (alg) is unspecified.');
  if (alg === 'none') throw unauthorized("'none' signature type is not allowed");
  // Registered in golang-jwt v4 but needing another key type than the ECDSA key we hold.
  if (/^(?:HS|RS|PS)(?:256|384|512)$/.test(alg) || alg === 'EdDSA') throw unauthorized('key is of invalid type');
  // ES384/ES512 are registered there too and fail the 64-byte signature check.
  if (alg === 'ES384' || alg === 'ES512') throw unauthorized('signature is invalid');
  throw unauthorized('signing method (alg) is unavailable.');
}

/**
 * `exp` and `nbf` as golang-jwt v4 MapClaims reads them (`iat` is ignored, the reference
 * deletes it): a number, truncated to whole seconds; 0 counts as absent; anything else
 * (string, null, …) fails the check. Valid iff now < exp and now >= nbf. When both fail, v4
 * reports the `nbf` failure (it is checked last and overwrites), so do we. Unlike the
 * reference, `exp` is required and at most MAX_JWT_REMAINING_SECONDS away: a token without
 * one would never expire. Every token the SDK or a frame issues has one.
 */
function checkTimeClaims(claims: Record<string, unknown>, now: number): void {
  const nbf = timeClaim(claims, 'nbf');
  if (nbf === 'invalid' || (nbf !== undefined && now < nbf)) throw unauthorized('Token is not valid yet');
  const exp = timeClaim(claims, 'exp');
  if (exp === 'invalid' || (exp !== undefined && now >= exp)) throw unauthorized('Token is expired');
  if (exp === undefined) throw unauthorized('token has no expiration (exp)');
  if (exp - now > MAX_JWT_REMAINING_SECONDS) throw unauthorized(`token expires more than ${MAX_JWT_REMAINING_SECONDS / 86_400} days from now`);
}

function timeClaim(claims: Record<string, unknown>, name: 'exp' | 'nbf'): number | undefined | 'invalid' {
  if (!Object.hasOwn(claims, name)) return undefined;
  const v = claims[name];
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'invalid';
  return v === 0 ? undefined : Math.trunc(v);
}

function decodeJsonObject(segment: string, part: 'header' | 'payload'): Record<string, unknown> {
  const text = Buffer.from(decodeSegment(segment, part)).toString('utf8');
  let value: unknown;
  try {
    assertJsonDepth(text);
    value = JSON.parse(text);
  } catch {
    throw unauthorized(`token is malformed: ${part} is not valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw unauthorized(`token is malformed: ${part} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Unpadded base64url, canonical only: Buffer.from would skip bad characters and ignore
 * non-zero trailing bits, which would let many strings stand for one token.
 */
function decodeSegment(segment: string, part: string): Uint8Array {
  if (!BASE64URL.test(segment) || segment.length % 4 === 1) {
    throw unauthorized(`token is malformed: ${part} is not base64url`);
  }
  const bytes = Buffer.from(segment, 'base64url');
  if (bytes.toString('base64url') !== segment) throw unauthorized(`token is malformed: ${part} is not canonical base64url`);
  return bytes;
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function unauthorized(inner: string): JwtError {
  return new JwtError('JWT_INVALID', 'unauthorized', PROBLEM + inner);
}
