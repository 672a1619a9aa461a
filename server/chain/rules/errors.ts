/**
 * Consensus rule failures. Codes keep the reference node's names (core `RuleError…`), so
 * clients and docs that know those names recognise them; messages add the numbers involved.
 * @module
 */
/**
 * A rule error code: core's name for the failure (`RuleErrorInsufficientBalance`,
 * `RuleErrorAccessGroupDoesNotExist`, …). Each rule module names its own codes.
 */
import { DomainError } from '../../errors.js';
export type RuleErrorCode = `RuleError${string}`;

export class RuleError extends DomainError {
  override readonly name = 'RuleError';
  constructor(
    override readonly code: RuleErrorCode,
    detail: string,
  ) {
    super(code, 'invalid', `${code}: ${detail}`);
  }
}

export function isRuleError(e: unknown): e is RuleError {
  return e instanceof RuleError;
}
