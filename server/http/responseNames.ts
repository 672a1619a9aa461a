/**
 * Response field names: the spec's (Native/Legacy) by default, or, with `--response-names
 * reference`, the reference backend's (DeSo/DESO/BitClout), so frontends typed against the
 * official SDK's `backend-types` read every field. One table, applied where a response is
 * serialized (router, read cache, OpenAPI), never per route. Requests accept both already.
 * @module
 */

export type ResponseNames = 'spec' | 'reference';

/** Spec name → the reference backend's, for every response field that differs. */
export const REFERENCE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  NativeBalanceNanos: 'DESOBalanceNanos',
  HodlerNativeBalanceNanos: 'HodlerDESOBalanceNanos',
  CoinPriceNativeNanos: 'CoinPriceDeSoNanos',
  CoinPriceLegacyNanos: 'CoinPriceBitCloutNanos',
  NativeLockedNanos: 'DeSoLockedNanos',
  LegacyLockedNanos: 'BitCloutLockedNanos',
  BestExchangeRateNativePerDAOCoin: 'BestExchangeRateDESOPerDAOCoin',
  SatoshisPerNativeExchangeRate: 'SatoshisPerDeSoExchangeRate',
  SatoshisPerLegacyExchangeRate: 'SatoshisPerBitCloutExchangeRate',
  USDCentsPerNativeExchangeRate: 'USDCentsPerDeSoExchangeRate',
  USDCentsPerLegacyExchangeRate: 'USDCentsPerBitCloutExchangeRate',
  USDCentsPerNativeReserveExchangeRate: 'USDCentsPerDeSoReserveExchangeRate',
  USDCentsPerLegacyReserveExchangeRate: 'USDCentsPerBitCloutReserveExchangeRate',
  BuyNativeFeeBasisPoints: 'BuyDeSoFeeBasisPoints',
  TotalRefererrerNativeNanos: 'TotalReferrerDeSoNanos',
  TotalRefereeNativeNanos: 'TotalRefereeDeSoNanos',
  NativeToSellNanos: 'DeSoToSellNanos',
  NativeToAddNanos: 'DeSoToAddNanos',
  NativeLockedNanosDiff: 'DESOLockedNanosDiff',
  MinNativeExpectedNanos: 'MinDeSoExpectedNanos',
  ExpectedNativeReturnedNanos: 'ExpectedDeSoReturnedNanos',
  HasStarterNativeSeed: 'HasStarterDeSoSeed',
});

const RENAMED = new Map(Object.entries(REFERENCE_NAMES));

/**
 * `body` with every object key the table names renamed, at any depth. Objects and arrays that
 * hold nothing to rename are returned as they are (no copy); the rest are copied along the path.
 */
export function withReferenceNames(body: unknown): unknown {
  if (Array.isArray(body)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < body.length; i++) {
      const v = withReferenceNames(body[i]);
      if (v !== body[i]) (out ??= body.slice())[i] = v;
    }
    return out ?? body;
  }
  if (body === null || typeof body !== 'object' || ArrayBuffer.isView(body)) return body;
  let changed = false;
  const entries = Object.entries(body as Record<string, unknown>).map(([k, v]): [string, unknown] => {
    const name = RENAMED.get(k) ?? k;
    const value = withReferenceNames(v);
    if (name !== k || value !== v) changed = true;
    return [name, value];
  });
  return changed ? Object.fromEntries(entries) : body;
}

/** The body to serialize under this setting. */
export function responseBody(body: unknown, names: ResponseNames): unknown {
  return names === 'reference' ? withReferenceNames(body) : body;
}

/**
 * A JSON Schema (or a document holding schemas) under this setting: keys renamed as in
 * answers, and the names in `required` lists with them, so a schema of spec names describes
 * the reference-named answer.
 */
export function schemaWithNames<T>(schema: T, names: ResponseNames): T {
  if (names === 'spec') return schema;
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (x === null || typeof x !== 'object') return x;
    const out: Record<string, unknown> = {};
    for (const [k, y] of Object.entries(x as Record<string, unknown>)) {
      const name = RENAMED.get(k) ?? k;
      out[name] = k === 'required' && Array.isArray(y) ? y.map((n) => (typeof n === 'string' ? (RENAMED.get(n) ?? n) : n)) : walk(y);
    }
    return out;
  };
  return walk(schema) as T;
}
