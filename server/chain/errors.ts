/**
 * Errors of the chain's own requests (rule breaks are RuleError, rules/errors.ts).
 * @module
 */
import { DomainError } from '../errors.js';

/** A producer's block write refused because its lease term is over (another process leads). */
export class FencedError extends Error {
  override readonly name = 'FencedError';
  constructor() {
    super('block producer lease lost: the block was not written (another process produces blocks now)');
  }
}

/** A block or template request refused for what it asks (answered 400). */
export class ChainRequestError extends DomainError {
  override readonly name = 'ChainRequestError';
  constructor(message: string) {
    super('CHAIN_REQUEST_INVALID', 'invalid', message);
  }
}

/** The transaction is fine but could not be admitted against a mempool that kept changing: retry. */
export class MempoolBusyError extends DomainError {
  override readonly name = 'MempoolBusyError';
  constructor(message: string) {
    super('CHAIN_MEMPOOL_BUSY', 'busy', message);
  }
}
