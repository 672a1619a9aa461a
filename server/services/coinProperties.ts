/**
 * create-new-coin and update-coin-properties: a creator's coin settings as one atomic
 * transaction of the creator's own transactions (the deso-protocol SDK calls these on the node
 * and signs every inner transaction with the logged-in user's key).
 *
 * The reference routes are not in the public deso-protocol/backend (they belong to the
 * OpenFund/Focus backend): what is built here is what this chain can carry of the SDK's
 * request, in this order: an UPDATE_PROFILE for a new username, a DAO_COIN that sets the
 * transfer restriction, a DAO_COIN that disables minting. The rest of the request needs what
 * this node does not have (an AMM, lockups and yield curves, trading-fee and revshare
 * associations, coin categories), so a request that sets any of it is refused naming the field,
 * rather than answered with a transaction that silently does less. No coins are minted:
 * without an AMM there is no supply to place, and the coin keeps the coins it has
 * (PreExistingCoins, all of them the founder's and unlocked).
 * @module
 */
import type { Constructed } from '../chain/construct.js';
import { getDAOCoinEntry, TransferRestrictionStatus } from '../chain/state/daoCoins.js';
import { getProfile } from '../chain/state/profiles.js';
import type { StateView } from '../chain/state/view.js';
import { DAOCoinOperation, type TxnMetadata } from '../chain/txn/metadata.js';
import type { AppDeps } from '../deps.js';
import { DomainError } from '../errors.js';
import { wrapConstructed, type AtomicResponseFields } from './atomic.js';
import { constructForRequest, type ConstructRequest } from './construct.js';

/** A coin-settings request this node cannot carry out (COIN_PROPERTIES_INVALID, 400). */
export class CoinPropertiesError extends DomainError {
  override readonly name = 'CoinPropertiesError';
  constructor(message: string) {
    super('COIN_PROPERTIES_INVALID', 'invalid', message);
  }
}

export interface CoinSettings {
  updater: Uint8Array;
  /** '' keeps the username. */
  newUsername: string;
  /** A TransferRestrictionStatus, or null to keep it. */
  transferRestrictionStatus: number | null;
  disableMinting: boolean;
  /** Request fields set to something this node cannot do, by name (refused when any). */
  unsupported: string[];
}

export interface CoinSettingsBuilt {
  atomic: AtomicResponseFields;
  /** The coin's supply before (whole coins). */
  preExistingCoins: number;
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

/**
 * The creator's transactions for `s` on the pending state, wrapped atomically.
 * @param creating - create-new-coin (a profile is needed, from before or from NewProfileUsername)
 * @throws {CoinPropertiesError}
 */
export async function buildCoinSettings(deps: Pick<AppDeps, 'chain' | 'config'>, state: StateView, s: CoinSettings, fields: ConstructRequest['fields'], creating: boolean): Promise<CoinSettingsBuilt> {
  if (s.unsupported.length > 0) {
    throw new CoinPropertiesError(`${s.unsupported.join(', ')}: not supported by this node (it has no AMM, lockups, coin categories or trading-fee associations)`);
  }
  const profile = await getProfile(state, s.updater);
  if (profile === undefined && s.newUsername === '') throw new CoinPropertiesError(`${creating ? 'a new coin' : 'a coin'} needs a profile: set NewProfileUsername or create the profile first`);
  const entry = await getDAOCoinEntry(state, s.updater);
  const metadata: TxnMetadata[] = [];
  if (s.newUsername !== '' && s.newUsername !== profile?.username) {
    // Core keeps the description and picture when empty; basis points and hidden are set.
    metadata.push({
      type: 'UPDATE_PROFILE',
      profilePublicKey: new Uint8Array(0),
      newUsername: text(s.newUsername),
      newDescription: new Uint8Array(0),
      newProfilePic: new Uint8Array(0),
      newCreatorBasisPoints: profile?.creatorBasisPoints ?? 1000n,
      newStakeMultipleBasisPoints: profile?.stakeMultipleBasisPoints ?? 12_500n,
      isHidden: profile?.isHidden ?? false,
    });
  }
  const daoCoin = (operationType: number, transferRestrictionStatus = 0): TxnMetadata => ({ type: 'DAO_COIN', profilePublicKey: s.updater, operationType, coinsToMintNanos: 0n, coinsToBurnNanos: 0n, transferRestrictionStatus });
  if (s.transferRestrictionStatus !== null && s.transferRestrictionStatus !== entry.transferRestrictionStatus) {
    if (entry.transferRestrictionStatus === TransferRestrictionStatus.PERMANENTLY_UNRESTRICTED) throw new CoinPropertiesError('the coin\'s transfers are permanently unrestricted already');
    metadata.push(daoCoin(DAOCoinOperation.UPDATE_TRANSFER_RESTRICTION_STATUS, s.transferRestrictionStatus));
  }
  if (s.disableMinting && !entry.mintingDisabled) metadata.push(daoCoin(DAOCoinOperation.DISABLE_MINTING));
  if (metadata.length === 0) throw new CoinPropertiesError('nothing to change: the request asks for what the coin already has');
  const constructed: Constructed[] = [];
  for (const m of metadata) constructed.push((await constructForRequest(deps, { publicKey: s.updater, metadata: m, fields: { ...fields, TransactionFees: [], ExtraData: {} } })).constructed);
  const { fields: atomic } = await wrapConstructed(deps, constructed, fields.MinFeeRateNanosPerKB);
  return { atomic, preExistingCoins: Number(entry.coinsInCirculationNanos) / 1e18 };
}
