/**
 * Buying the native coin with a card through Wyre (reference routes/wyre.go; external/wyre.ts):
 * the quotation and the reservation, at the reference's public paths and at the `/admin/` paths
 * the SDK calls them by (adminGetWyreWalletOrderQuotation / …Reservation; there the caller must
 * be an admin, as on every admin route), and an admin's list of a user's Wyre orders.
 *
 * Without every Wyre setting (`--wyre-url`, `--wyre-account-id`, `--wyre-api-key`,
 * `--wyre-secret-key`, `--buy-native-btc-address`) the quotation and reservation answer 400
 * naming the missing options, as the reference answers 400 "This node is not configured with
 * Wyre". The inputs are checked before Wyre is called (the reference passes them on as they
 * are): a positive amount, a two-letter country, a three-letter currency, and for a
 * reservation the buyer's public key (`ReferenceId`) and an http(s) `RedirectUrl` (default
 * `https://<Host>/buy-deso`, as the reference).
 *
 * get-wyre-wallet-orders-for-public-key answers the orders this node recorded for the user:
 * the reference records them from Wyre's webhook (wyre-wallet-order-subscription, which pays
 * the bought coins out of a seed on Wyre's word). This node takes no such webhook, so it
 * records none and the list is empty, after the user is resolved as the reference does.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { wyreNotConfigured, WyreClient, wyreSettings, type ReservationRequest } from '../external/wyre.js';
import { badRequest } from '../http/errors.js';
import { usableHost } from '../http/host.js';
import { json, route, type Route, type RouteContext } from '../http/route.js';
import { decodePublicKey, encodePublicKey } from '../keys/index.js';
import { out, v, ValidationError, type Infer, type Schema } from '../schema.js';
import { publicKeyForUsername } from '../chain/state/profiles.js';
import { adminRoute } from './adminAuth.js';

/** The most one order may be, in the source currency: far above Wyre's card limits, far below float trouble. */
const MAX_SOURCE_AMOUNT = 1_000_000_000;

/** A positive JSON number (Go float64) up to MAX_SOURCE_AMOUNT. */
const sourceAmount: Schema<number> = {
  json: { type: 'number', exclusiveMinimum: 0, maximum: MAX_SOURCE_AMOUNT },
  parse(value, path) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValidationError(path, 'a number', value);
    if (value <= 0 || value > MAX_SOURCE_AMOUNT) throw new ValidationError(path, `a number above 0 and at most ${MAX_SOURCE_AMOUNT}`, value);
    return value;
  },
};

const orderFields = {
  SourceAmount: sourceAmount,
  Country: v.string({ maxLength: 2, pattern: /^[A-Za-z]{2}$/, patternName: 'an ISO 3166 two-letter country code, e.g. US' }),
  SourceCurrency: v.string({ maxLength: 3, pattern: /^[A-Za-z]{3}$/, patternName: 'an ISO 4217 three-letter currency code, e.g. USD' }),
};

export const wyreQuotationBody = v.object(orderFields);

export const wyreReservationBody = v.object({
  ...orderFields,
  ReferenceId: v.string({ maxLength: 1000 }),
  RedirectUrl: v.optional(v.string({ maxLength: 2000 }), ''),
});

export const wyreOrdersBody = v.object({
  PublicKeyBase58Check: v.optional(v.string({ maxLength: 1000 }), ''),
  Username: v.optional(v.string({ maxLength: 100 }), ''),
});

/** Wyre's answer as it is: its fields are Wyre's (e.g. a quote's sourceAmount, destAmount, fees; a reservation's url and reservation). */
const wyreAnswer = out.freeObject("Wyre's JSON answer, as Wyre gave it");

const ordersResponse = out.object({
  WyreWalletOrderMetadataResponses: out.array(out.freeObject('An order recorded from Wyre’s webhook (never: see the summary)'), 'Always empty on this node'),
});

export function wyreRoutes(deps: AppDeps): Route[] {
  const { config } = deps;
  const network = config.network;
  const settings = wyreSettings({
    url: config.wyreUrl,
    accountId: config.wyreAccountId,
    apiKey: config.wyreApiKey,
    secretKey: config.wyreSecretKey,
    btcAddress: config.buyNativeBtcAddress,
  });
  const wyre = 'missing' in settings ? null : new WyreClient(settings, config.externalTimeoutMs);
  const client = (prefix: string): WyreClient => {
    if (wyre === null) throw wyreNotConfigured(prefix, 'missing' in settings ? settings.missing : []);
    return wyre;
  };

  const QUOTE = 'GetWyreWalletOrderQuotation: ';
  const RESERVE = 'GetWyreWalletOrderReservation: ';
  const quote = async ({ body }: Pick<RouteContext<Infer<typeof wyreQuotationBody>>, 'body'>) =>
    json(await client(QUOTE).quote({ sourceAmount: body.SourceAmount, country: body.Country, sourceCurrency: body.SourceCurrency }, QUOTE));
  const reserve = async ({ body, headers }: Pick<RouteContext<Infer<typeof wyreReservationBody>>, 'body' | 'headers'>) => {
    const w = client(RESERVE);
    let publicKey: string;
    try {
      publicKey = encodePublicKey(decodePublicKey(body.ReferenceId, network, 'ReferenceId'), network);
    } catch {
      throw badRequest(`${RESERVE}Problem decoding ReferenceId as a public key of this network`);
    }
    let redirectUrl = body.RedirectUrl;
    if (redirectUrl === '') {
      const host = usableHost(headers['host']);
      if (host === undefined) throw badRequest(`${RESERVE}RedirectUrl is required: the request has no usable Host to default it from`);
      redirectUrl = `https://${host}/buy-deso`;
    } else if (!/^https?:\/\//i.test(redirectUrl) || !URL.canParse(redirectUrl)) {
      throw badRequest(`${RESERVE}RedirectUrl must be an absolute http(s) URL`);
    }
    const r: ReservationRequest = { sourceAmount: body.SourceAmount, country: body.Country, sourceCurrency: body.SourceCurrency, publicKey, redirectUrl };
    return json(await w.reserve(r, RESERVE));
  };
  // The outside call's own failures (external/serviceClient.ts) under the reference's prefixes.
  const quotePrefixes = { 'SERVICE_*': QUOTE };
  const reservePrefixes = { 'SERVICE_*': RESERVE };

  return [
    route({
      method: 'POST',
      path: '/get-wyre-wallet-order-quotation',
      summary: "Wyre's quote for a card buy of bitcoin into this node's address (needs the --wyre-* options)",
      body: wyreQuotationBody,
      response: wyreAnswer,
      errorPrefixes: quotePrefixes,
      handle: quote,
    }),
    route({
      method: 'POST',
      path: '/get-wyre-wallet-order-reservation',
      summary: "A reservation of Wyre's checkout for a card buy by the public key ReferenceId (needs the --wyre-* options)",
      body: wyreReservationBody,
      response: wyreAnswer,
      errorPrefixes: reservePrefixes,
      handle: reserve,
    }),
    adminRoute(deps, {
      path: '/admin/get-wyre-wallet-order-quotation',
      summary: "get-wyre-wallet-order-quotation at the path the SDK calls it by",
      level: 'admin',
      body: wyreQuotationBody,
      response: wyreAnswer,
      errorPrefixes: quotePrefixes,
      handle: quote,
    }),
    adminRoute(deps, {
      path: '/admin/get-wyre-wallet-order-reservation',
      summary: "get-wyre-wallet-order-reservation at the path the SDK calls it by",
      level: 'admin',
      body: wyreReservationBody,
      response: wyreAnswer,
      errorPrefixes: reservePrefixes,
      handle: reserve,
    }),
    adminRoute(deps, {
      path: '/admin/get-wyre-wallet-orders-for-public-key',
      summary: "A user's Wyre orders recorded by this node, by PublicKeyBase58Check or Username: always none (this node takes no Wyre webhook)",
      level: 'admin',
      body: wyreOrdersBody,
      response: ordersResponse,
      async handle({ body }) {
        const P = 'GetWyreWalletOrdersForPublicKey: ';
        if (body.PublicKeyBase58Check !== '') {
          decodePublicKey(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', `${P}error decoding public key: `);
        } else if (body.Username !== '') {
          if ((await publicKeyForUsername(await deps.chain.pendingView(), body.Username)) === undefined) {
            throw badRequest(`${P}error getting profile entry for username ${body.Username}`);
          }
        } else {
          throw badRequest(`${P}must provide either a public key or username`);
        }
        return json({ WyreWalletOrderMetadataResponses: [] });
      },
    }),
  ];
}
