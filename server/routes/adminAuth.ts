/**
 * Who may call a route, the authorization policy of the route layer: the admin check of the
 * reference's `CheckAdminPublicKey` (node-api.md §1.2) and the per-user JWT check of the
 * JWT-protected routes (spec §5), both over the one verifier `deps.jwt`.
 *
 * Statuses (the reference answers 400 for all of these; this node separates them):
 * - 400: the request names no valid public key (a malformed key is bad input, not bad
 *   credentials).
 * - 401: no JWT, or a JWT that proves nothing: malformed, expired, or with a signature that
 *   verifies under no key.
 * - 403: a JWT that is valid but not for the key it is presented for (a token of user A sent
 *   as B, or a derived key B never authorized), and an authenticated caller who is not an
 *   admin (or super admin) of this node.
 *
 * "Valid for another key" is decided by identity/jwtSigners.ts (the signer recovered from the
 * signature, the token verified again for it); a forged token can land there too, and then
 * gets 403 instead of 401, which says nothing the caller could not compute.
 *
 * The reference's `"*"` wildcard (every admin route open) is not accepted by this node's config.
 * Its development use is the explicit `--dev-open-admin` flag instead (refused on mainnet,
 * warned about at startup): with it, a request whose credentials do not pass is still let in,
 * at both levels, and audited under the given `AdminPublicKey` (when it is a valid key) or
 * {@link DEV_OPEN_ADMIN}.
 *
 * Every admin request that passes the credential check is written to the audit log
 * (server/admin/audit.ts) with its outcome, success or failure.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { isJwtError } from '../identity/jwt.js';
import { jwtValidForAnotherKey } from '../identity/jwtSigners.js';
import { decodePublicKey, encodePublicKey, isKeyError } from '../keys/index.js';
import { recordAdminAction } from '../admin/audit.js';
import type { CallerProof } from '../http/authenticatedCaller.js';
import { ApiError, isApiError, KIND_STATUS, toErrorReply, type ErrorPrefixes } from '../http/errors.js';
import { route, type Reply, type Route, type RouteContext } from '../http/route.js';
import { v, ValidationError, type ResponseSchema, type Schema } from '../schema.js';

export type AdminLevel = 'admin' | 'superAdmin';

/** What a credential check uses: the JWT verifier, the crypto pool (signer recovery) and the admin lists. */
type AuthDeps = Pick<AppDeps, 'jwt' | 'crypto' | 'config'>;


/** The credential fields every admin request body carries (reference `AdminRequest`). */
/** Lower-case names of the credential fields, never copied into the audit log. */
const CREDENTIAL_FIELDS = new Set(['adminpublickey', 'jwt']);

const credentialsBody = v.object({
  AdminPublicKey: v.optional(v.string({ maxLength: 1000 }), ''),
  JWT: v.optional(v.string(), ''),
});

/**
 * Resolves when `jwt` authenticates `publicKeyBase58Check`; otherwise throws the 401/403 of
 * the module comment with `prefix` before the verifier's message
 * (e.g. `GetReferralInfoForUser: Error validating JWT: Problem verifying JWT token: …`).
 * @throws {KeyError} when the public key itself is malformed (400)
 */
export async function requireUserJwt(
  deps: AuthDeps,
  caller: CallerProof,
  publicKeyBase58Check: string,
  jwt: string,
  prefix: string,
  field = 'PublicKeyBase58Check',
): Promise<void> {
  try {
    await deps.jwt.verify(publicKeyBase58Check, jwt, field);
  } catch (err) {
    if (!isJwtError(err)) throw err;
    if (err.kind === 'unauthorized' && (await jwtValidForAnotherKey({ jwt: deps.jwt, crypto: deps.crypto, network: deps.config.network }, publicKeyBase58Check, jwt))) {
      throw new ApiError(403, `${prefix}JWT is valid for another public key, not for ${publicKeyBase58Check}`);
    }
    throw new ApiError(KIND_STATUS[err.kind], `${prefix}${err.message}`);
  }
  // Proven: only now does the request take this key's rate-limit bucket.
  await caller.authenticated(publicKeyBase58Check);
}

function isAdminKey(deps: Pick<AppDeps, 'config'>, key: string, level: AdminLevel): boolean {
  const { adminPublicKeys, superAdminPublicKeys } = deps.config;
  return superAdminPublicKeys.includes(key) || (level === 'admin' && adminPublicKeys.includes(key));
}

/**
 * The reference's CheckAdminPublicKey over a request body: `AdminPublicKey` plus a `JWT` for
 * it, the key listed in `config.adminPublicKeys` (admin level) or `config.superAdminPublicKeys`
 * (either level). Returns the admin's key in this node's Base58Check form.
 */
export async function requireAdmin(deps: AuthDeps, caller: CallerProof, body: unknown, level: AdminLevel): Promise<string> {
  const network = deps.config.network;
  const { AdminPublicKey, JWT } = credentialsBody.parse(body, '', { network });
  if (AdminPublicKey === '') throw new ApiError(401, 'CheckAdminPublicKey: Missing AdminPublicKey param');
  const key = encodePublicKey(decodePublicKey(AdminPublicKey, network, 'AdminPublicKey'), network);
  await requireUserJwt(deps, caller, key, JWT, 'CheckAdminPublicKey: Invalid token: ', 'AdminPublicKey');
  if (!isAdminKey(deps, key, level)) {
    throw new ApiError(403, level === 'admin' ? 'CheckAdminPublicKey: Not an admin' : 'CheckAdminPublicKey: Not a superadmin');
  }
  return key;
}

/** Whether `publicKeyBase58Check` (already normalized) is an admin of this node (reference `UserAdminStatus`). */
export function isAdmin(deps: Pick<AppDeps, 'config'>, publicKeyBase58Check: string): boolean {
  return isAdminKey(deps, publicKeyBase58Check, 'admin');
}

/** The audit log's admin for a request let in by `--dev-open-admin` without a valid `AdminPublicKey`. */
export const DEV_OPEN_ADMIN = 'dev-open-admin';

/**
 * `requireAdmin`, except that with `config.devOpenAdmin` a request whose credentials fail
 * (missing, malformed, unproven, or not an admin) is let in. Returns who the audit log names:
 * the admin's key, or under the flag the claimed `AdminPublicKey` (normalized) when it is a
 * valid key, else {@link DEV_OPEN_ADMIN}.
 */
export async function authorizeAdmin(
  deps: AuthDeps,
  caller: CallerProof,
  body: unknown,
  level: AdminLevel,
  log?: { warn(obj: object, msg: string): void },
): Promise<string> {
  try {
    return await requireAdmin(deps, caller, body, level);
  } catch (err) {
    if (!deps.config.devOpenAdmin || !(isApiError(err) || isKeyError(err) || err instanceof ValidationError)) throw err;
    const claimed = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['AdminPublicKey'] : undefined;
    let admin = DEV_OPEN_ADMIN;
    if (typeof claimed === 'string' && claimed !== '') {
      try {
        admin = encodePublicKey(decodePublicKey(claimed, deps.config.network, 'AdminPublicKey'), deps.config.network);
      } catch (e) {
        if (!isKeyError(e)) throw e;
      }
    }
    log?.warn({ admin, level, refused: isApiError(err) ? err.status : 400 }, 'admin route let in by --dev-open-admin without valid admin credentials');
    return admin;
  }
}

export interface AdminRouteSpec<B> {
  path: string;
  summary: string;
  level: AdminLevel;
  body: Schema<B>;
  /** The 200 answer (Route.response). */
  response?: ResponseSchema;
  /** Error statuses beyond the generic ones (Route.errors). */
  errors?: Route['errors'];
  /** The reference's message prefixes by error code (`Route.errorPrefixes`), in answers and in the audit log alike. */
  errorPrefixes?: ErrorPrefixes;
  handle(ctx: RouteContext<B>, admin: string): Promise<Reply> | Reply;
}

/**
 * A POST admin route. Credentials are checked before the body is validated, as the reference
 * checks them in a middleware, so a caller who is not an admin learns nothing about the
 * route's fields. The documented schema includes `AdminPublicKey` and `JWT`.
 */
export function adminRoute<B>(deps: AuthDeps & Pick<AppDeps, 'store'>, spec: AdminRouteSpec<B>): Route {
  const inner = spec.body;
  const credentialsJson = credentialsBody.json as { properties: Record<string, unknown> };
  const innerJson = inner.json as { properties?: Record<string, unknown>; required?: string[] };
  const documented: Schema<unknown> = {
    json: {
      ...inner.json,
      properties: { ...innerJson.properties, ...credentialsJson.properties },
      required: [...(innerJson.required ?? []), 'AdminPublicKey', 'JWT'],
    },
    // Validation happens in the handler, after the credential check.
    parse: (value) => value,
  };
  return route<unknown>({
    method: 'POST',
    path: spec.path,
    summary: `${spec.summary} (${spec.level === 'admin' ? 'admin' : 'super admin'} only)`,
    auth: spec.level,
    body: documented,
    ...(spec.response !== undefined ? { response: spec.response } : {}),
    ...(spec.errors !== undefined ? { errors: spec.errors } : {}),
    ...(spec.errorPrefixes ? { errorPrefixes: spec.errorPrefixes } : {}),
    async handle(ctx) {
      const admin = await authorizeAdmin(deps, ctx.caller, ctx.body, spec.level, ctx.log);
      const bodyObject = typeof ctx.body === 'object' && ctx.body !== null ? (ctx.body as Record<string, unknown>) : {};
      const fields = Object.keys(bodyObject).filter((k) => !CREDENTIAL_FIELDS.has(k.toLowerCase()));
      const audit = (status: number, error: string | null): Promise<string> =>
        recordAdminAction(deps.store, { atMs: Date.now(), admin, route: spec.path, status, error, fields });
      let reply: Reply;
      try {
        const body = inner.parse(ctx.body, '', { network: deps.config.network });
        reply = await spec.handle({ ...ctx, body }, admin);
      } catch (err) {
        // Failed actions are audited too, as the client is answered; an internal error is
        // logged by the router, not here.
        const { status, message } = toErrorReply(err, undefined, spec.errorPrefixes);
        await audit(status, message).catch((e: unknown) => ctx.log.error({ err: e }, 'admin audit write failed'));
        throw err;
      }
      await audit(reply.status, null);
      return reply;
    },
  });
}
