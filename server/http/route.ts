/**
 * What a route file declares. Route files are tables of these; they never see uWS.
 */
import type { Logger } from 'pino';
import type { JsonSchema, ResponseSchema, Schema } from '../schema.js';
import type { CallerProof } from './authenticatedCaller.js';
import type { ErrorPrefixes } from './errors.js';

export type Method = 'GET' | 'POST';

/** Request headers the router copies out of uWS (lower-case names). */
export type RequestHeaders = Readonly<Record<string, string>>;

export interface RouteContext<B> {
  /** Validated body (POST routes with a schema); undefined otherwise. */
  body: B;
  /** Path parameters by name, e.g. `{ PublicKeyBase58Check: '...' }`. */
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  headers: RequestHeaders;
  remoteAddress: string;
  log: Logger;
  /** Where an authentication check reports the key the request proved to be (per-key rate limits). */
  caller: CallerProof;
}

export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'raw'; status: number; body: Uint8Array | string; contentType: string; headers?: Record<string, string> }
  | { kind: 'empty'; status: number };

export const json = (body: unknown, status = 200, headers?: Record<string, string>): Reply => ({
  kind: 'json',
  status,
  body,
  ...(headers ? { headers } : {}),
});
/** 200 with an empty body, as the reference answers several write routes. */
export const empty = (status = 200): Reply => ({ kind: 'empty', status });
export const raw = (body: Uint8Array | string, contentType: string, status = 200, headers?: Record<string, string>): Reply => ({
  kind: 'raw',
  status,
  body,
  contentType,
  ...(headers ? { headers } : {}),
});

/**
 * Who may call a route, for the OpenAPI document (the handler enforces it): an admin or super
 * admin of this node (`AdminPublicKey` + `JWT` in the body), or the user a JWT in the body is for.
 */
export type RouteAuth = 'admin' | 'superAdmin' | 'user-jwt';

/** A documented answer of a route, beyond the generic JSON 200 the OpenAPI document assumes. */
export interface ResponseDoc {
  description: string;
  /** Defaults to application/json. */
  contentType?: string;
  /** JSON Schema of the body; omitted when the body is not described. */
  schema?: JsonSchema;
  /** Headers the answer carries, by name (e.g. `Location` of a redirect). */
  headers?: Readonly<Record<string, { description: string; required?: boolean }>>;
}

export interface Route<B = unknown> {
  method: Method;
  /** Path without the /api/v0 prefix; `:Name` marks a path parameter, e.g. `/get-user-metadata/:PublicKeyBase58Check`. */
  path: string;
  summary: string;
  /** POST body schema. Without one, a POST body must still be valid JSON but is not inspected. */
  body?: Schema<B>;
  /**
   * The POST body's media type: JSON (the default), or multipart/form-data, which the router
   * parses (http/multipart.ts) into a `MultipartForm` that `body` then validates.
   */
  bodyType?: 'json' | 'multipart';
  /** Largest body the route accepts, in place of `--max-body-bytes` (upload-image: an image and its form fields). */
  maxBodyBytes?: number;
  /** Credentials the handler requires (documented only). */
  auth?: RouteAuth;
  /**
   * The 200 JSON answer (schema.ts `out`): published in the OpenAPI document and, under
   * `--check-responses`, checked against every 200 JSON answer the route sends.
   */
  response?: ResponseSchema;
  /** Answers by status, replacing the generic ones of the OpenAPI document (documented only). */
  responses?: Readonly<Record<number, ResponseDoc>>;
  /** When the route answers these error statuses beyond the generic ones, e.g. `{404: 'no such post'}` (documented only). */
  errors?: Readonly<Partial<Record<404 | 409, string>>>;
  /** The API area, the OpenAPI tag (routes/index.ts `area` sets it per table). */
  tags?: readonly string[];
  /**
   * The reference's message prefixes of this route by error code (http/errors.ts
   * `ErrorPrefixes`), e.g. `{ 'RuleError*': 'SubmitTransaction: Problem processing transaction: ' }`:
   * applied where errors become answers, so the handler never catches an error to reword it.
   */
  errorPrefixes?: ErrorPrefixes;
  handle(ctx: RouteContext<B>): Promise<Reply> | Reply;
}

/**
 * Tags every route of an area's table with the area's name (the OpenAPI tag), and `/admin/`
 * routes with `Admin` too; returns the table.
 */
export function area(tag: string, routes: Route[]): Route[] {
  for (const r of routes) r.tags = r.path.startsWith('/admin/') && tag !== 'Admin' ? [tag, 'Admin'] : [tag];
  return routes;
}

/** Keeps the body type of a route tied to its schema when routes are collected in arrays. */
export function route<B>(r: Route<B>): Route<unknown> {
  return r as Route<unknown>;
}
