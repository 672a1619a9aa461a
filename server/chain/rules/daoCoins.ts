/**
 * Rules of DAO_COIN (mint, burn, disable minting, update transfer restriction) and
 * DAO_COIN_TRANSFER, as core's `_connectDAOCoin` / `HelpConnectCoinTransfer(isDAOCoin)` at
 * the newest fork heights. Only a creator with a profile has a DAO coin; amounts are uint256.
 * @module
 */
import { isValidCompressedPoint } from '../../keys/index.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { DAOCoinOperation, decodeMetadata, TxnType, type DAOCoinMetadata, type DAOCoinTransferMetadata } from '../txn/metadata.js';
import {
  getDAOCoinBalance,
  getDAOCoinEntry,
  isUnrestricted,
  MAX_UINT256,
  setDAOCoinBalance,
  setDAOCoinEntry,
  TransferRestrictionStatus,
  type DAOCoinEntry,
} from '../state/daoCoins.js';
import { getProfile } from '../state/profiles.js';
import type { StateReader } from '../state/reader.js';
import type { StateView } from '../state/view.js';
import type { TypeHandler } from './connect.js';
import { RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';

const sameKey = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/**
 * Core IsValidDAOCoinTransfer: may `sender` give `receiver` this creator's coin under its
 * transfer restriction? The creator may always send or receive; profile-owner-only allows
 * nothing else; DAO-members-only needs a receiver who already holds some.
 * @throws {RuleError}
 */
export async function checkDAOCoinTransferAllowed(state: StateReader, creator: Uint8Array, entry: DAOCoinEntry, sender: Uint8Array, receiver: Uint8Array): Promise<void> {
  if (isUnrestricted(entry.transferRestrictionStatus)) return;
  if (sameKey(creator, sender) || sameKey(creator, receiver)) return;
  if (entry.transferRestrictionStatus === TransferRestrictionStatus.PROFILE_OWNER_ONLY) {
    throw new RuleError('RuleErrorDAOCoinTransferProfileOwnerOnlyViolation', 'only transfers to or from the profile owner are allowed for this DAO coin');
  }
  if (entry.transferRestrictionStatus === TransferRestrictionStatus.DAO_MEMBERS_ONLY && (await getDAOCoinBalance(state, receiver, creator)) === 0n) {
    throw new RuleError('RuleErrorDAOCoinTransferDAOMemberOnlyViolation', 'the receiver holds none of this DAO coin, and only DAO members may receive it');
  }
}

/** The profile a DAO_COIN names must be a valid key with a profile (core HelpConnectDAOCoinInitialization). */
async function requireCreatorProfile(view: StateView, creator: Uint8Array): Promise<void> {
  if (!isValidCompressedPoint(creator)) throw new RuleError('RuleErrorDAOCoinInvalidPubKey', 'the profile public key is not a valid secp256k1 key');
  if ((await getProfile(view, creator)) === undefined) {
    throw new RuleError('RuleErrorDAOCoinOperationOnNonexistentProfile', `no profile for public key ${Buffer.from(creator).toString('hex')}`);
  }
}

async function mint(view: StateView, txn: TxnEnvelope, m: DAOCoinMetadata, entry: DAOCoinEntry): Promise<void> {
  if (entry.mintingDisabled) throw new RuleError('RuleErrorDAOCoinCannotMintIfMintingIsDisabled', 'minting of this DAO coin is disabled');
  if (!sameKey(m.profilePublicKey, txn.publicKey)) throw new RuleError('RuleErrorOnlyProfileOwnerCanMintDAOCoin', 'only the profile owner can mint its DAO coin');
  if (m.coinsToMintNanos === 0n) throw new RuleError('RuleErrorDAOCoinMustMintNonZeroDAOCoin', 'CoinsToMintNanos is 0');
  if (entry.coinsInCirculationNanos > MAX_UINT256 - m.coinsToMintNanos) {
    throw new RuleError('RuleErrorOverflowWhileMintingDAOCoins', `${entry.coinsInCirculationNanos} in circulation + ${m.coinsToMintNanos} minted exceeds uint256`);
  }
  const balance = await getDAOCoinBalance(view, txn.publicKey, m.profilePublicKey);
  if (balance > MAX_UINT256 - m.coinsToMintNanos) {
    throw new RuleError('RuleErrorOverflowWhileMintingDAOCoins', `owner balance ${balance} + ${m.coinsToMintNanos} minted exceeds uint256`);
  }
  await setDAOCoinBalance(view, txn.publicKey, m.profilePublicKey, balance + m.coinsToMintNanos);
  setDAOCoinEntry(view, m.profilePublicKey, {
    ...entry,
    coinsInCirculationNanos: entry.coinsInCirculationNanos + m.coinsToMintNanos,
    numberOfHolders: balance === 0n ? entry.numberOfHolders + 1n : entry.numberOfHolders,
  });
}

async function burn(view: StateView, txn: TxnEnvelope, m: DAOCoinMetadata, entry: DAOCoinEntry): Promise<void> {
  const balance = await getDAOCoinBalance(view, txn.publicKey, m.profilePublicKey);
  if (balance === 0n) throw new RuleError('RuleErrorDAOCoinBurnerBalanceEntryDoesNotExist', 'the transactor holds none of this DAO coin');
  if (m.coinsToBurnNanos === 0n) throw new RuleError('RuleErrorDAOCoinBurnMustBurnNonZeroDAOCoin', 'CoinsToBurnNanos is 0');
  if (m.coinsToBurnNanos > balance) throw new RuleError('RuleErrorDAOCoinBurnInsufficientCoins', `burning ${m.coinsToBurnNanos} exceeds the balance of ${balance}`);
  if (m.coinsToBurnNanos > entry.coinsInCirculationNanos) {
    throw new RuleError('RuleErrorDAOCoinBurnAmountExceedsCoinsInCirculation', `burning ${m.coinsToBurnNanos} exceeds the ${entry.coinsInCirculationNanos} in circulation`);
  }
  const remaining = balance - m.coinsToBurnNanos;
  await setDAOCoinBalance(view, txn.publicKey, m.profilePublicKey, remaining);
  setDAOCoinEntry(view, m.profilePublicKey, {
    ...entry,
    coinsInCirculationNanos: entry.coinsInCirculationNanos - m.coinsToBurnNanos,
    numberOfHolders: remaining === 0n ? entry.numberOfHolders - 1n : entry.numberOfHolders,
  });
}

function disableMinting(view: StateView, txn: TxnEnvelope, m: DAOCoinMetadata, entry: DAOCoinEntry): void {
  if (!sameKey(m.profilePublicKey, txn.publicKey)) throw new RuleError('RuleErrorOnlyProfileOwnerCanDisableMintingDAOCoin', 'only the profile owner can disable minting');
  // One-way: there is no operation that enables minting again.
  if (entry.mintingDisabled) throw new RuleError('RuleErrorDAOCoinCannotDisableMintingIfAlreadyDisabled', 'minting is already disabled');
  setDAOCoinEntry(view, m.profilePublicKey, { ...entry, mintingDisabled: true });
}

function updateTransferRestriction(view: StateView, txn: TxnEnvelope, m: DAOCoinMetadata, entry: DAOCoinEntry): void {
  if (!sameKey(m.profilePublicKey, txn.publicKey)) {
    throw new RuleError('RuleErrorOnlyProfileOwnerCanUpdateTransferRestrictionStatus', 'only the profile owner can update the transfer restriction status');
  }
  if (entry.transferRestrictionStatus === TransferRestrictionStatus.PERMANENTLY_UNRESTRICTED) {
    throw new RuleError('RuleErrorDAOCoinCannotUpdateRestrictionStatusIfStatusIsPermanentlyUnrestricted', 'the coin is permanently unrestricted');
  }
  if (entry.transferRestrictionStatus === m.transferRestrictionStatus) {
    throw new RuleError('RuleErrorDAOCoinCannotUpdateTransferRestrictionStatusToCurrentStatus', `the status is already ${m.transferRestrictionStatus}`);
  }
  // Core takes any byte here; statuses it does not name behave as unrestricted (but not permanently).
  setDAOCoinEntry(view, m.profilePublicKey, { ...entry, transferRestrictionStatus: m.transferRestrictionStatus });
}

const connectDAOCoin: TypeHandler = async (view, txn) => {
  const m = decodeMetadata(txn.txnType, txn.metadata) as DAOCoinMetadata;
  await requireCreatorProfile(view, m.profilePublicKey);
  const entry = await getDAOCoinEntry(view, m.profilePublicKey);
  switch (m.operationType) {
    case DAOCoinOperation.MINT:
      return mint(view, txn, m, entry);
    case DAOCoinOperation.BURN:
      return burn(view, txn, m, entry);
    case DAOCoinOperation.DISABLE_MINTING:
      return disableMinting(view, txn, m, entry);
    case DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS:
      return updateTransferRestriction(view, txn, m, entry);
    default:
      // Core fails these with a plain error ("Unrecognized DAOCoin OperationType").
      throw new RuleError('RuleErrorTxnMetadataMalformed', `unrecognized DAOCoin OperationType ${m.operationType}`);
  }
};

const connectDAOCoinTransfer: TypeHandler = async (view, txn) => {
  const m = decodeMetadata(txn.txnType, txn.metadata) as DAOCoinTransferMetadata;
  // Core's replay guard from UTXO days: the transactor must pay something (fee or outputs).
  const paid = (txn.v1?.feeNanos ?? 0n) + txn.outputs.reduce((sum, o) => sum + o.amountNanos, 0n);
  if (paid === 0n) throw new RuleError('RuleErrorCoinTransferRequiresNonZeroInput', 'a coin transfer must pay a fee');
  if (!isValidCompressedPoint(m.receiverPublicKey)) throw new RuleError('RuleErrorCoinTransferInvalidReceiverPubKey', 'the receiver public key is not a valid secp256k1 key');
  if (sameKey(txn.publicKey, m.receiverPublicKey)) throw new RuleError('RuleErrorCoinTransferCannotTransferToSelf', 'sender and receiver are the same key');
  if (!isValidCompressedPoint(m.profilePublicKey)) throw new RuleError('RuleErrorCoinTransferInvalidProfilePubKey', 'the profile public key is not a valid secp256k1 key');
  if ((await getProfile(view, m.profilePublicKey)) === undefined) {
    throw new RuleError('RuleErrorCoinTransferOnNonexistentProfile', `no profile for public key ${Buffer.from(m.profilePublicKey).toString('hex')}`);
  }
  const creator = m.profilePublicKey;
  const senderBalance = await getDAOCoinBalance(view, txn.publicKey, creator);
  if (senderBalance === 0n) throw new RuleError('RuleErrorCoinTransferBalanceEntryDoesNotExist', 'the sender holds none of this DAO coin');
  const amount = m.daoCoinToTransferNanos;
  if (amount > senderBalance) throw new RuleError('RuleErrorCoinTransferInsufficientCoins', `transferring ${amount} exceeds the balance of ${senderBalance}`);
  const entry = await getDAOCoinEntry(view, creator);
  await checkDAOCoinTransferAllowed(view, creator, entry, txn.publicKey, m.receiverPublicKey);

  const receiverBalance = await getDAOCoinBalance(view, m.receiverPublicKey, creator);
  await setDAOCoinBalance(view, txn.publicKey, creator, senderBalance - amount);
  await setDAOCoinBalance(view, m.receiverPublicKey, creator, receiverBalance + amount);
  // Holder counting as core: a receiver that had nothing counts even when sent 0.
  let holders = entry.numberOfHolders;
  if (receiverBalance === 0n) holders += 1n;
  if (senderBalance - amount === 0n) holders -= 1n;
  setDAOCoinEntry(view, creator, { ...entry, numberOfHolders: holders });
};

export const daoCoinHandlers: readonly HandlerEntry[] = [
  [TxnType.DAO_COIN, connectDAOCoin],
  [TxnType.DAO_COIN_TRANSFER, connectDAOCoinTransfer],
];
