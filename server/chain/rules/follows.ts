/**
 * Rules of FOLLOW, as core's `_connectFollow` (deso-protocol/core lib/block_view_follow.go;
 * reference social-graph.md §2.1): a key follows or unfollows a profile.
 *
 * - The followed key must have a profile, to unfollow too (`RuleErrorFollowingNonexistentProfile`;
 *   a hidden profile counts). The metadata's key is always 33 bytes here: the codec refuses any
 *   other length as malformed, where core checks it as `RuleErrorFollowPubKeyLen`.
 * - Follow: no follow of that pair yet (`RuleErrorFollowEntryAlreadyExists`); unfollow: one
 *   (`RuleErrorCannotUnfollowNonexistentFollowEntry`).
 * - Following oneself is allowed. No counters: follower counts are index sizes (state/follows.ts).
 *
 * Core runs the profile check before the basic transfer, this chain after the fee and outputs;
 * only which error a transaction that breaks both rules names differs.
 * @module
 */
import { toHex } from '../../hex.js';
import { addFollow, isFollowing, removeFollow } from '../state/follows.js';
import { getProfile } from '../state/profiles.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { decodeMetadata, TxnType, type FollowMetadata } from '../txn/metadata.js';
import { RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';

async function connectFollow(view: StateView, txn: TxnEnvelope): Promise<void> {
  const m = decodeMetadata(TxnType.FOLLOW, txn.metadata) as FollowMetadata;
  if ((await getProfile(view, m.followedPublicKey)) === undefined) {
    throw new RuleError('RuleErrorFollowingNonexistentProfile', `${toHex(m.followedPublicKey)} has no profile`);
  }
  const follows = await isFollowing(view, txn.publicKey, m.followedPublicKey);
  if (m.isUnfollow) {
    if (!follows) throw new RuleError('RuleErrorCannotUnfollowNonexistentFollowEntry', `${toHex(txn.publicKey)} does not follow ${toHex(m.followedPublicKey)}`);
    removeFollow(view, txn.publicKey, m.followedPublicKey);
  } else {
    if (follows) throw new RuleError('RuleErrorFollowEntryAlreadyExists', `${toHex(txn.publicKey)} already follows ${toHex(m.followedPublicKey)}`);
    addFollow(view, txn.publicKey, m.followedPublicKey);
  }
}

export const followHandlers: readonly HandlerEntry[] = [[TxnType.FOLLOW, connectFollow]];
