/**
 * A post written straight into a state view, for unit tests of rules that only need a post to
 * exist (likes, notifications). End-to-end tests create posts with submit-post.
 */
import { randomBytes } from 'node:crypto';
import { insertPost, type PostRecord } from '../../server/chain/state/posts.js';
import type { StateView } from '../../server/chain/state/view.js';

/** A top-level post record of `poster` with a random hash; `fields` replaces the defaults. */
export function postRecord(poster: Uint8Array, fields: Partial<PostRecord> = {}): PostRecord {
  return {
    postHash: new Uint8Array(randomBytes(32)),
    posterPublicKey: poster,
    parentStakeId: new Uint8Array(0),
    body: new TextEncoder().encode('{"Body":"hi"}'),
    repostedPostHash: null,
    isQuotedRepost: false,
    creatorBasisPoints: 1000n,
    stakeMultipleBasisPoints: 12_500n,
    timestampNanos: 1n,
    isHidden: false,
    isFrozen: false,
    confirmationBlockHeight: 9n,
    postExtraData: [],
    commentCount: 0n,
    repostCount: 0n,
    quoteRepostCount: 0n,
    likeCount: 0n,
    diamondCount: 0n,
    ...fields,
  };
}

/** Writes `postRecord(poster, fields)` into `view`. Answers its hash. */
export function addPost(view: StateView, poster: Uint8Array, fields: Partial<PostRecord> = {}): Uint8Array {
  const post = postRecord(poster, fields);
  insertPost(view, post);
  return post.postHash;
}
