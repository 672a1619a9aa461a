import { DIAMOND_LEVEL_NANOS } from '../chain/rules/diamonds.js';
import type { Network } from '../keys/index.js';

/**
 * Diamond level → nanos sent with a diamond of that level: the chain's own table
 * (rules/diamonds.ts DIAMOND_LEVEL_NANOS, core `DiamondLevelMap`); each level is ten times the
 * previous one.
 */
export const DIAMOND_LEVEL_MAP: Readonly<Record<string, number>> = Object.freeze(
  Object.fromEntries(DIAMOND_LEVEL_NANOS.slice(1).map((nanos, i) => [String(i + 1), Number(nanos)])),
);

/** get-app-state response, spec §2.9 (reference names with DeSo→Native, vendor names generic). */
export interface AppState {
  AnalyticsKey: string;
  AnalyticsDomain: string;
  MinSatoshisBurnedForProfileCreation: number;
  IsTestnet: boolean;
  SupportEmail: string;
  ShowProcessingSpinners: boolean;
  HasStarterNativeSeed: boolean;
  HasSmsProviderAPIKey: boolean;
  CreateProfileFeeNanos: number;
  CompProfileCreation: boolean;
  DiamondLevelMap: Readonly<Record<string, number>>;
  HasPaymentProviderIntegration: boolean;
  Password: string;
  /**
   * The tip's height. Not in the spec's list, but the reference node serves it and the SDK's
   * local transaction construction reads it for nonces (identity-and-crypto.md §6.1).
   */
  BlockHeight: number;
}

/** The options get-app-state shows (config.ts; the secrets only by their presence). */
export interface AppStateOptions {
  network: Network;
  analyticsKey: string;
  analyticsDomain: string;
  minSatoshisBurnedForProfileCreation: number;
  supportEmail: string;
  showProcessingSpinners: boolean;
  starterNativeSeed: string | undefined;
  smsProviderApiKey: string | undefined;
  compProfileCreation: boolean;
  hasPaymentProviderIntegration: boolean;
}

/**
 * @param chain - what the chain says now: the tip's height and the profile creation fee in
 *   force (global params, which start at `--create-profile-fee-nanos`)
 */
export function appState(config: AppStateOptions, chain: { blockHeight: number; createProfileFeeNanos: bigint }): AppState {
  return {
    AnalyticsKey: config.analyticsKey,
    AnalyticsDomain: config.analyticsDomain,
    MinSatoshisBurnedForProfileCreation: config.minSatoshisBurnedForProfileCreation,
    IsTestnet: config.network === 'testnet',
    SupportEmail: config.supportEmail,
    ShowProcessingSpinners: config.showProcessingSpinners,
    // Only the presence of these secrets is public; the values never leave the config.
    HasStarterNativeSeed: config.starterNativeSeed !== undefined,
    HasSmsProviderAPIKey: config.smsProviderApiKey !== undefined,
    CreateProfileFeeNanos: Number(chain.createProfileFeeNanos),
    CompProfileCreation: config.compProfileCreation,
    DiamondLevelMap: DIAMOND_LEVEL_MAP,
    HasPaymentProviderIntegration: config.hasPaymentProviderIntegration,
    // The old reference echoed a password cookie here for analytics; this node keeps no such
    // cookie, so the field is always empty and exists only for shape compatibility.
    Password: '',
    BlockHeight: chain.blockHeight,
  };
}
