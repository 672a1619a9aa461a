/**
 * What a creator-coin trade would do, as the reference's BuyOrSellCreatorCoin reports it: the
 * unsigned transaction connected to the pending state (tip + mempool) with the chain's own
 * rules, and the balances read before and after.
 * @module
 */
import type { Constructed } from '../chain/construct.js';
import { isRuleError } from '../chain/rules/errors.js';
import { getBalance } from '../chain/state/balances.js';
import { creatorCoinBalance } from '../chain/state/creatorCoins.js';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../errors.js';

/** The trade breaks a consensus rule on the pending state (the rule error is the cause). */
export class CreatorCoinTradeError extends DomainError {
  override readonly name = 'CreatorCoinTradeError';
  constructor(message: string, cause: unknown) {
    super('CREATOR_COIN_TRADE_REFUSED', 'invalid', message, { cause });
  }
}

export interface ExpectedTrade {
  nativeReturnedNanos: bigint;
  creatorCoinReturnedNanos: bigint;
  /** Creator coin minted to the creator by someone else's buy (core's coin founder reward). */
  founderRewardCoinNanos: bigint;
}

/**
 * Connects the unsigned trade to the pending state and measures it: coins the transactor and
 * the creator gained (buy), or native the transactor received (sell: its balance change plus
 * what the transaction paid in fee and to others).
 * @throws {CreatorCoinTradeError} `Problem connecting <op> transaction: <rule error>` when the
 *   trade breaks a rule (the reference's wording after its route prefix)
 */
export async function expectedTrade(
  deps: Pick<AppDeps, 'chain'>,
  c: Constructed,
  trade: { updater: Uint8Array; creator: Uint8Array; op: 'buy' | 'sell' },
): Promise<ExpectedTrade> {
  const { updater, creator } = trade;
  const pending = await deps.chain.pendingView();
  const coinsBefore = await creatorCoinBalance(pending, updater, creator);
  const creatorCoinsBefore = await creatorCoinBalance(pending, creator, creator);
  const nativeBefore = await getBalance(pending, updater);
  const view = await deps.chain.simulate(c.bytes, updater, pending).catch((e: unknown) => {
    throw isRuleError(e) ? new CreatorCoinTradeError(`Problem connecting ${trade.op} transaction: ${e.message}`, e) : e;
  });
  const paidOut = c.fields.outputs.filter((o) => Buffer.compare(o.publicKey, updater) !== 0).reduce((sum, o) => sum + o.amountNanos, 0n);
  const nativeChange = (await getBalance(view, updater)) - nativeBefore + c.feeNanos + paidOut;
  const selfTrade = Buffer.compare(updater, creator) === 0;
  return {
    nativeReturnedNanos: nativeChange > 0n ? nativeChange : 0n,
    creatorCoinReturnedNanos: (await creatorCoinBalance(view, updater, creator)) - coinsBefore,
    founderRewardCoinNanos: selfTrade ? 0n : (await creatorCoinBalance(view, creator, creator)) - creatorCoinsBefore,
  };
}
