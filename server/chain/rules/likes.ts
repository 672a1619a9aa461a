/**
 * Rules of LIKE, as core's `_connectLike` (deso-protocol/core lib/block_view_like.go; reference
 * social-graph.md §3.1): a key likes or unlikes a post.
 *
 * - The post must exist; a hidden post counts (`RuleErrorCannotLikeNonexistentPost`).
 * - Like: no like of the pair yet (`RuleErrorLikeEntryAlreadyExists`); unlike: one
 *   (`RuleErrorCannotUnlikeWithoutAnExistingLike`).
 * - The post's `LikeCount` moves by one. Likes are keyed by the liker's public key, as in core.
 *   Liking one's own post is allowed.
 * @module
 */
import { toHex } from '../../hex.js';
import { addLike, isLikedBy, removeLike } from '../state/likes.js';
import { getPost, updatePost } from '../state/posts.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { decodeMetadata, TxnType, type LikeMetadata } from '../txn/metadata.js';
import { RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';

async function connectLike(view: StateView, txn: TxnEnvelope): Promise<void> {
  const m = decodeMetadata(TxnType.LIKE, txn.metadata) as LikeMetadata;
  const post = await getPost(view, m.likedPostHash);
  if (post === undefined) throw new RuleError('RuleErrorCannotLikeNonexistentPost', `post ${toHex(m.likedPostHash)} does not exist`);
  const liked = await isLikedBy(view, txn.publicKey, m.likedPostHash);
  if (m.isUnlike) {
    if (!liked) throw new RuleError('RuleErrorCannotUnlikeWithoutAnExistingLike', `${toHex(txn.publicKey)} does not like post ${toHex(m.likedPostHash)}`);
    removeLike(view, txn.publicKey, m.likedPostHash);
    updatePost(view, { ...post, likeCount: post.likeCount > 0n ? post.likeCount - 1n : 0n });
  } else {
    if (liked) throw new RuleError('RuleErrorLikeEntryAlreadyExists', `${toHex(txn.publicKey)} already likes post ${toHex(m.likedPostHash)}`);
    addLike(view, txn.publicKey, m.likedPostHash);
    updatePost(view, { ...post, likeCount: post.likeCount + 1n });
  }
}

export const likeHandlers: readonly HandlerEntry[] = [[TxnType.LIKE, connectLike]];
