/**
 * Consensus rule failures. Codes keep the reference node's names (core `RuleError…`), so
 * clients and docs that know those names recognise them; messages add the numbers involved.
 * @module
 */
export type RuleErrorCode =
  | 'RuleErrorTxnTypeNotSupported'
  | 'RuleErrorBalanceModelDoesNotUseUTXOInputs'
  | 'RuleErrorNonceRequired'
  | 'RuleErrorNonceExpired'
  | 'RuleErrorNonceExpirationTooFarInFuture'
  | 'RuleErrorReusedNonce'
  | 'RuleErrorInsufficientBalance'
  | 'RuleErrorOutputExceedsMax'
  | 'RuleErrorOverflow'
  | 'RuleErrorTxnMustHavePublicKey'
  | 'RuleErrorTxnFeeBelowNetworkMinimum'
  | 'RuleErrorInvalidTransactionSignature'
  | 'RuleErrorTxnSigHasHighS'
  | 'RuleErrorDerivedKeyNotAuthorized'
  | 'RuleErrorDerivedKeyHasBothExtraDataAndRecoveryId'
  | 'RuleErrorBlockRewardTxnMustHaveOneOutput'
  | 'RuleErrorBlockRewardTxnNotAllowedToHaveSignature'
  | 'RuleErrorBlockRewardTxnNotAllowedToHaveInputs'
  | 'RuleErrorBlockRewardExceedsMaxAllowed'
  | 'RuleErrorBlockRewardExtraDataTooLong'
  | 'RuleErrorBlockRewardNotFirst'
  | 'RuleErrorDuplicateTxn'
  | 'RuleErrorTxnTooBig'
  | 'RuleErrorBasicTransferMetadataNotEmpty';

export class RuleError extends Error {
  override readonly name = 'RuleError';
  constructor(
    readonly code: RuleErrorCode,
    detail: string,
  ) {
    super(`${code}: ${detail}`);
  }
}

export function isRuleError(e: unknown): e is RuleError {
  return e instanceof RuleError;
}
