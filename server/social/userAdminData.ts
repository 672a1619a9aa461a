/**
 * admin/get-user-admin-data (reference AdminGetUserAdminData): what the node's admins know about
 * one user, from node state: the username of the profile (pending state), the verification
 * badge and who last granted or removed it, each moderation list (white, gray, black) with who
 * last put the user on it or took them off, the email and phone number, and the referral code
 * the user signed up with. A fixed number of reads whatever the user's history: each log is one
 * record, newest first, bounded by its own cap.
 *
 * Unlike the reference, the list logs are found by public key (this node keys them so; they
 * survive renames and exist for users without profiles), so a user without a profile still
 * shows who moderated them. Jumio and the referrer's payout transaction are services this node
 * does not run: their fields are empty.
 * @module
 */
import { getProfile } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import type { Store } from '../store/types.js';
import { isVerified } from './profileEntry.js';
import { referredBy } from './referrals.js';
import { filterAuditLogs, getUserMetadata, type FilterList } from './userMetadata.js';
import { verificationAuditLogs } from './verification.js';

/** Who last added and who last removed, from a log newest first ("" when the log has none). */
function lastActors<E extends { isRemoval: boolean }>(log: readonly E[], who: (e: E) => string): { adder: string; remover: string } {
  const added = log.find((e) => !e.isRemoval);
  const removed = log.find((e) => e.isRemoval);
  return { adder: added === undefined ? '' : who(added), remover: removed === undefined ? '' : who(removed) };
}

export async function userAdminData(store: Store, state: StateIndexReader, pk33: Uint8Array): Promise<Record<string, unknown>> {
  const profile = await getProfile(state, pk33);
  const lists: FilterList[] = ['whitelist', 'graylist', 'blacklist'];
  const [meta, referral, verified, verifyLog, listLogs] = await Promise.all([
    getUserMetadata(store, pk33),
    referredBy(store, pk33),
    profile === undefined ? false : isVerified(store, profile),
    profile === undefined ? [] : verificationAuditLogs(store, profile.username),
    Promise.all(lists.map((l) => filterAuditLogs(store, pk33, l))),
  ]);
  // The reference reads a username's log; an entry for another key (before a swap or rename) is not this user's.
  const ownVerifyLog = verifyLog.filter((e) => Buffer.compare(e.verifiedPublicKey, pk33) === 0);
  const verifiers = lastActors(ownVerifyLog, (e) => e.verifier);
  const [white, gray, black] = listLogs.map((log) => lastActors(log, (e) => e.updater));
  if (white === undefined || gray === undefined || black === undefined) throw new Error('one log per list');
  return {
    Username: profile?.username ?? '',
    IsVerified: verified,
    LastVerifierPublicKey: verifiers.adder,
    LastVerifyRemoverPublicKey: verifiers.remover,
    IsWhitelisted: meta.whitelistPosts,
    LastWhitelisterPublicKey: white.adder,
    LastWhitelistRemoverPublicKey: white.remover,
    IsGraylisted: meta.removeFromLeaderboard,
    LastGraylisterPublicKey: gray.adder,
    LastGraylistRemoverPublicKey: gray.remover,
    IsBlacklisted: meta.removeEverywhere,
    LastBlacklisterPublicKey: black.adder,
    LastBlacklistRemoverPublicKey: black.remover,
    PhoneNumber: meta.phoneNumber,
    Email: meta.email,
    ReferralHashBase58Check: referral?.hash ?? '',
    JumioStarterDeSoTxnHashBase58Check: '',
    ReferrerDeSoTxnHashBase58Check: '',
  };
}
