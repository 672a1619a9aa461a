/**
 * The identity frame API over HTTP: `POST /api/v0/identity` with one envelope
 * `{id, service: "identity", method, payload}`, answered `{id, service, payload}`. The same
 * envelopes flow over the WebSocket at the same path (server/node.ts), many in flight at once.
 * A refused request answers 4xx with the envelope plus a top-level `error`, so both envelope
 * clients and plain `{error}` clients read it.
 *
 * The envelope and payload schemas below document both transports (the POST route's body and
 * answer, and `x-websockets` of the OpenAPI document); the answers are checked against them
 * under `--check-responses`. identity/frames.ts parses the envelope, identity/service.ts each
 * method's payload.
 */
import type { AppDeps } from '../deps.js';
import { json, route, type Route } from '../http/route.js';
import { answerFrame } from '../http/identityFrames.js';
import type { WebSocketDoc } from '../http/openapi.js';
import { out, type ResponseSchema, type Schema } from '../schema.js';
import { IDENTITY_METHODS, IDENTITY_SERVICE, MAX_ID_LENGTH } from '../identity/frames.js';

// --- the envelopes ----------------------------------------------------------------------------

const str = (description: string): ResponseSchema => out.string(description);
const opt = (s: ResponseSchema): ReturnType<typeof out.optional> => out.optional(s);
const accessLevel = out.enum([0, 1, 2, 3, 4], 'Access level: 2 approve all, 3 approve large, 4 full');
/** What the app keeps after login: the session handle and its granted level. */
const session = {
  encryptedSeedHex: str('The session handle (sealed by the node; never the seed)'),
  accessLevel,
  accessLevelHmac: out.hex('HMAC of the level under the session key: sent back with every gated call'),
};

/** Request payload fields by method, as identity/service.ts reads them (all documented, none closed). */
const requestPayload = out.named(
  'IdentityRequestPayload',
  {
    json: {
      type: 'object',
      additionalProperties: true,
      description:
        'login: seedHex | mnemonic (+ passphrase, accountNumber) | none (a new key) | derivedSeedHex + ownerPublicKeyBase58Check (+ messagingKeyRandomnessHex); ' +
        'accessLevelRequest (2, 3 or 4); derive: true (+ expirationBlock, transactionSpendingLimitHex) for a new derived key. ' +
        'approve: encryptedSeedHex and the key’s credentials (seedHex, mnemonic or derivedSeedHex), with accessLevelRequest and/or transactionHex. ' +
        'logout: encryptedSeedHex. sign, encrypt, decrypt, jwt: encryptedSeedHex, accessLevel, accessLevelHmac, then transactionHex (sign); ' +
        'recipientPublicKey, message, legacy, senderGroupKeyName (encrypt); encryptedMessages, messagingGroups, accessGroups (decrypt); ' +
        'ownerPublicKeyBase58Check + encryptedMessagingKeyRandomness for a derived session’s messaging.',
      properties: {
        seedHex: { type: 'string', description: '32-byte private key as hex' },
        mnemonic: { type: 'string' },
        passphrase: { type: 'string' },
        accountNumber: { type: 'integer', minimum: 0 },
        accessLevelRequest: { enum: [2, 3, 4] },
        derive: { type: 'boolean' },
        derivedSeedHex: { type: 'string' },
        ownerPublicKeyBase58Check: { type: 'string' },
        derivedPublicKeyBase58Check: { type: 'string' },
        messagingKeyRandomnessHex: { type: 'string' },
        expirationBlock: { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'string', pattern: '^[0-9]{1,20}$' }] },
        transactionSpendingLimitHex: { type: 'string' },
        encryptedSeedHex: { type: 'string' },
        accessLevel: { enum: [0, 1, 2, 3, 4] },
        accessLevelHmac: { type: 'string' },
        transactionHex: { type: 'string' },
        recipientPublicKey: { type: 'string' },
        message: { type: 'string' },
        legacy: { type: 'boolean' },
        senderGroupKeyName: { type: 'string' },
        encryptedMessages: { type: 'array', items: { type: 'object', additionalProperties: true } },
        encryptedMessagingKeyRandomness: { type: 'string' },
        messagingGroups: { type: 'array', items: { type: 'object', additionalProperties: true } },
        accessGroups: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
  },
);

/** The request envelope (identity/frames.ts parseFrameValue). */
export const identityRequestFrame = out.named('IdentityRequestFrame', {
  json: {
    type: 'object',
    properties: {
      id: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH, description: 'Echoed in the answer' },
      service: { const: IDENTITY_SERVICE },
      method: { enum: [...IDENTITY_METHODS] },
      payload: requestPayload.json,
    },
    required: ['id', 'service', 'method'],
    examples: [{ id: 'b2c4e1f0-login', service: IDENTITY_SERVICE, method: 'login', payload: { accessLevelRequest: 2 } }],
  },
});

/** Each method's answer payload (identity/service.ts). */
const payloads = {
  login: out.named(
    'IdentityLoginPayload',
    out.object({
      publicKeyBase58Check: out.publicKey('The owner key'),
      derivedPublicKeyBase58Check: opt(out.publicKey('A derived session’s key')),
      ...session,
      network: out.enum(['mainnet', 'testnet']),
      loginMethod: out.literal('DESO'),
      mnemonic: opt(str('The new key’s 12 words: shown once, when login created the key')),
      encryptedMessagingKeyRandomness: opt(str('Sealed messaging randomness of a derived session: send it back to encrypt and decrypt')),
      expirationBlock: opt(out.int('derive: the derived key’s expiration block')),
      transactionSpendingLimitHex: opt(out.hex('derive: the spending limit the access signature covers')),
      accessBytesHex: opt(out.hex('derive: derived key ‖ expiration (u64 BE) ‖ spending limit')),
      accessSignature: opt(out.hex('derive: the owner’s DER signature of sha256d(access bytes), for authorize-derived-key')),
      messagingPublicKeyBase58Check: opt(out.publicKey('derive: the default messaging key')),
      messagingKeyName: opt(str('derive: its name')),
      messagingKeySignature: opt(out.hex('derive: the owner’s signature of the messaging key')),
      jwt: opt(str('derive: a JWT of the owner key')),
      derivedJwt: opt(str('derive: a JWT of the derived key')),
    }),
  ),
  approve: out.named(
    'IdentityApprovePayload',
    out.object({
      accessLevel: opt(accessLevel),
      accessLevelHmac: opt(out.hex()),
      signedTransactionHex: opt(out.hex('The one transaction approved')),
    }),
  ),
  logout: out.named('IdentityLogoutPayload', out.object({ loggedOut: out.literal(true) })),
  sign: out.named('IdentitySignPayload', out.object({ signedTransactionHex: out.hex() })),
  encrypt: out.named(
    'IdentityEncryptPayload',
    out.object({
      encryptedMessage: out.hex('"" when the randomness is missing'),
      requiresEncryptedMessagingKeyRandomness: opt(out.literal(true, 'A derived session must send encryptedMessagingKeyRandomness')),
    }),
  ),
  decrypt: out.named(
    'IdentityDecryptPayload',
    out.object({
      decryptedHexes: out.record(out.string(), 'Decrypted text by the input’s key'),
      errors: opt(out.record(out.string(), 'Why an input was left out, keyed as decryptedHexes; only inputs that failed')),
      requiresEncryptedMessagingKeyRandomness: opt(out.literal(true)),
    }),
  ),
  jwt: out.named('IdentityJwtPayload', out.object({ jwt: str('An ES256K JWT of the session key') })),
  approvalRequired: out.named('IdentityApprovalRequiredPayload', out.object({ approvalRequired: out.literal(true, 'The granted level does not cover the call: call approve') })),
};
const errorPayload = out.named('IdentityErrorPayload', out.object({ error: str('Why the request was refused') }));

const responseId = out.nullable(out.string('The request’s id; null when it could not be read'));

/** The answer envelope of a handled request (identity/frames.ts response). */
export const identityResponseFrame = out.named(
  'IdentityResponseFrame',
  out.object({
    id: responseId,
    service: out.literal(IDENTITY_SERVICE),
    payload: out.anyOf(Object.values(payloads), 'The method’s answer, or {approvalRequired: true}'),
  }),
);

/** The answer envelope of a refused request (WebSocket). */
export const identityErrorFrame = out.named('IdentityErrorFrame', out.object({ id: responseId, service: out.literal(IDENTITY_SERVICE), payload: errorPayload }));

/** A refused POST: the error envelope with its message at the top level too. */
const identityRefusal = out.named(
  'IdentityRefusal',
  out.object({ error: str('Why the request was refused (also in payload.error)'), id: responseId, service: out.literal(IDENTITY_SERVICE), payload: errorPayload }),
);

/** The POST body: documented, not validated here (answerFrame answers a bad envelope in its own form). */
const frameBody: Schema<unknown> = { json: identityRequestFrame.json, parse: (value) => value };

/** The identity WebSocket for the OpenAPI document (x-websockets). */
export function identitySocketDoc(maxMessageBytes: number): WebSocketDoc {
  return {
    path: '/identity',
    summary: 'The identity frame API over a WebSocket: the envelopes of POST /identity, many in flight at once',
    description:
      'JSON text messages: each IdentityRequestFrame is answered by one IdentityResponseFrame (or IdentityErrorFrame) with the same id, in any order. ' +
      'Every message takes from the identity rate limit, logins also from the login one; binary frames and more than 4096 messages in flight get an error frame; ' +
      'connections per client address are capped (--max-sockets-per-address, 429 on upgrade).',
    tags: ['Identity'],
    rateLimitClass: 'identity',
    maxMessageBytes,
    clientMessages: { request: { summary: 'A request envelope', schema: identityRequestFrame.json } },
    serverMessages: {
      response: { summary: 'The answer to a request', schema: identityResponseFrame.json },
      error: { summary: 'A refused or failed request', schema: identityErrorFrame.json },
    },
  };
}

export function identityRoutes(deps: AppDeps): Route[] {
  return [
    route({
      method: 'POST',
      path: '/identity',
      summary: 'Identity frame API: login, approve, logout, sign, encrypt, decrypt, jwt (spec §4.1); also a WebSocket at this path',
      body: frameBody,
      response: identityResponseFrame,
      responses: {
        400: { description: 'A malformed envelope or payload: the error envelope, with the message also at the top level', schema: identityRefusal.json },
      },
      async handle(ctx) {
        const limiter = deps.rateLimiter;
        const { status, response, headers } = await answerFrame(deps.identity, { value: ctx.body }, ctx.log, {
          beforeLogin: limiter ? () => limiter.checkClass('login', ctx.remoteAddress) : undefined,
        });
        if (status === 200) return json(response);
        const error = typeof response.payload['error'] === 'string' ? response.payload['error'] : 'request refused';
        return json({ error, ...response }, status, status === 503 ? { 'Retry-After': '1', ...headers } : headers);
      },
    }),
  ];
}
