/**
 * Buying the native coin with a card through Wyre (reference routes/wyre.go): a quote for an
 * amount, and a reservation (the URL of Wyre's checkout for an order that pays bitcoin into the
 * node's address, tagged with the buyer's public key). Both are calls to Wyre's partner API,
 * signed as Wyre requires: `X-Api-Key`, and `X-Api-Signature`, the hex HMAC-SHA256 under the
 * secret key of the URL (with its `timestamp`) followed by the body.
 *
 * The request payloads are the reference's (WyreWalletOrderQuotationPayload,
 * WyreWalletOrderReservationPayload, amounts formatted as Go's `%f`). The reference copies
 * Wyre's answer through whatever its status; this node answers Wyre's JSON object as it is on a
 * 2xx, and otherwise an error: 400 with Wyre's message when Wyre refused the order (4xx), 503
 * when Wyre failed, refused this node's own credentials, or did not answer.
 * @module
 */
import { createHmac } from 'node:crypto';
import { DomainError } from '../errors.js';
import { ServiceClient, ServiceError } from './serviceClient.js';

export interface WyreSettings {
  /** Wyre's API, e.g. https://api.sendwyre.com (reference `WyreUrl`). */
  url: string;
  accountId: string;
  apiKey: string;
  secretKey: string;
  /** The bitcoin address buys pay into (reference `BuyDESOBTCAddress`). */
  btcAddress: string;
}

/** Each setting and the option that gives it (config.ts), for the "not configured" answer. */
export const WYRE_OPTIONS: ReadonlyArray<readonly [keyof WyreSettings, string]> = [
  ['url', '--wyre-url (WYRE_URL)'],
  ['accountId', '--wyre-account-id (WYRE_ACCOUNT_ID)'],
  ['apiKey', '--wyre-api-key (WYRE_API_KEY)'],
  ['secretKey', '--wyre-secret-key (WYRE_SECRET_KEY)'],
  ['btcAddress', '--buy-native-btc-address (BUY_NATIVE_BTC_ADDRESS)'],
];

/** The settings when every one is given; else the options still to set. */
export function wyreSettings(given: Readonly<Record<keyof WyreSettings, string | undefined>>): WyreSettings | { missing: string[] } {
  const missing = WYRE_OPTIONS.filter(([k]) => (given[k] ?? '') === '').map(([, option]) => option);
  return missing.length > 0 ? { missing } : (given as WyreSettings);
}

/** The reference's answer to a Wyre route on a node without Wyre, naming what to set. */
export function wyreNotConfigured(prefix: string, missing: readonly string[]): DomainError {
  return new DomainError('WYRE_NOT_CONFIGURED', 'invalid', `${prefix}This node is not configured with Wyre: set ${missing.join(', ')}`);
}

export interface QuoteRequest {
  sourceAmount: number;
  country: string;
  sourceCurrency: string;
}

export interface ReservationRequest extends QuoteRequest {
  /** The buyer's public key (Base58Check, validated by the caller). */
  publicKey: string;
  redirectUrl: string;
}

/** Go's `fmt.Sprintf("%f", x)`: six decimals. */
const goFloat = (x: number): string => x.toFixed(6);

/** Wyre's timestamps: Unix nanoseconds, as the reference's `time.Now().UnixNano()`. */
const nowNanos = (): bigint => BigInt(Date.now()) * 1_000_000n;

/** The `X-Api-Signature` of a request: hex HMAC-SHA256(secret, url + body). */
export function wyreSignature(secretKey: string, url: string, body: string): string {
  return createHmac('sha256', secretKey).update(url).update(body).digest('hex');
}

export class WyreClient {
  private readonly client: ServiceClient;

  constructor(
    private readonly s: WyreSettings,
    timeoutMs: number,
  ) {
    this.client = new ServiceClient('Wyre', timeoutMs);
  }

  private get dest(): string {
    return `bitcoin:${this.s.btcAddress}`;
  }

  /** Wyre's quote for buying bitcoin into the node's address with `sourceAmount` of `sourceCurrency`, fees included. */
  quote(r: QuoteRequest, prefix: string): Promise<Record<string, unknown>> {
    const payload = {
      sourceCurrency: r.sourceCurrency,
      dest: this.dest,
      destCurrency: 'BTC',
      amountIncludeFees: true,
      country: r.country,
      sourceAmount: goFloat(r.sourceAmount),
      walletType: 'DEBIT_CARD',
      accountId: this.s.accountId,
    };
    return this.post(`/v3/orders/quote/partner?timestamp=${nowNanos()}`, payload, prefix);
  }

  /** A reservation of Wyre's checkout for the buyer `publicKey`; its referenceId ties the order to the key and the time. */
  reserve(r: ReservationRequest, prefix: string): Promise<Record<string, unknown>> {
    const now = nowNanos();
    const payload = {
      sourceCurrency: r.sourceCurrency,
      dest: this.dest,
      destCurrency: 'BTC',
      country: r.country,
      amount: goFloat(r.sourceAmount),
      referrerAccountId: this.s.accountId,
      lockFields: ['dest', 'destCurrency'],
      redirectUrl: r.redirectUrl,
      referenceId: `${r.publicKey}:${now}`,
    };
    return this.post(`/v3/orders/reserve?timestamp=${now}`, payload, prefix);
  }

  private async post(pathAndQuery: string, payload: object, prefix: string): Promise<Record<string, unknown>> {
    const url = `${this.s.url.replace(/\/+$/, '')}${pathAndQuery}`;
    const body = JSON.stringify(payload);
    const answer = await this.client.call({
      method: 'POST',
      url,
      body,
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': this.s.apiKey, 'X-Api-Signature': wyreSignature(this.s.secretKey, url, body) },
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    const message = isObject && typeof (parsed as Record<string, unknown>)['message'] === 'string' ? `: ${((parsed as Record<string, unknown>)['message'] as string).slice(0, 300)}` : '';
    if (answer.status === 401 || answer.status === 403) {
      throw new ServiceError('WYRE_CREDENTIALS', 'unavailable', `${prefix}Wyre refused this node's credentials (${answer.status}); the operator must check --wyre-api-key and --wyre-secret-key`);
    }
    if (answer.status >= 400 && answer.status < 500) throw new DomainError('WYRE_REFUSED', 'invalid', `${prefix}Wyre refused the order (${answer.status})${message}`);
    if (answer.status < 200 || answer.status >= 300) throw new ServiceError('WYRE_FAILED', 'unavailable', `${prefix}Wyre answered ${answer.status}${message}`);
    if (!isObject) throw new ServiceError('WYRE_BAD_ANSWER', 'unavailable', `${prefix}Wyre answered with something that is not a JSON object`);
    return parsed as Record<string, unknown>;
  }
}
