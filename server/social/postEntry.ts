/**
 * The reference's PostEntryResponse of a stored post, for every route that shows posts
 * (posts, feed, users, submit-transaction).
 * @module
 */
import type { AppDeps } from '../deps.js';
import type { SubmittedTxn } from '../chain/chain.js';
import { getDiamondLevel } from '../chain/state/diamonds.js';
import { isLikedBy } from '../chain/state/likes.js';
import { getPost, parsePostBody, postKeys, type PostRecord } from '../chain/state/posts.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { decodeMetadata, TxnType, type SubmitPostMetadata } from '../chain/txn/metadata.js';
import { encodePublicKey, type Network } from '../keys/index.js';
import { toHex } from '../hex.js';
import { minedTxnLocation } from '../chain/state/minedTxns.js';

/** ExtraData values as text; a derived-key entry as its Base58Check key. */
function extraDataJson(kvs: Array<[Uint8Array, Uint8Array]>, network: Network): Record<string, string> {
  return Object.fromEntries(
    kvs.map(([k, val]) => {
      const key = Buffer.from(k).toString('utf8');
      return [key, key === 'DerivedPublicKey' && val.length === 33 ? encodePublicKey(val, network) : Buffer.from(val).toString('utf8')];
    }),
  );
}

export interface PostEntryResponseOptions {
  /** Whether the post's latest transaction is still unmined. */
  inMempool: boolean;
  /** Embed the reposted post (one level). @default true */
  withReposted?: boolean;
  /**
   * Whose PostEntryReaderState to add (null: no reader, every field false or 0, as core answers
   * a nil reader); absent: `PostEntryReaderState: null`.
   */
  reader?: Uint8Array | null;
}

/**
 * Core's GetPostEntryReaderState: what `reader` did to `post`: its like (likes are keyed by
 * public key), the level of its diamond (state/diamonds.ts), its vanilla repost of it, named in
 * RepostPostHashHex even when hidden, RepostedByReader only while shown (quote reposts do not
 * count). A null reader did nothing.
 */
export async function postEntryReaderState(state: StateIndexReader, post: Pick<PostRecord, 'postHash'>, reader: Uint8Array | null): Promise<Record<string, unknown>> {
  if (reader === null) return { LikedByReader: false, DiamondLevelBestowed: 0, RepostedByReader: false, RepostPostHashHex: '' };
  const [liked, diamondLevel, repostHex] = await Promise.all([
    isLikedBy(state, reader, post.postHash),
    getDiamondLevel(state, post.postHash, reader),
    state.get<string>(postKeys.repost(reader, post.postHash)),
  ]);
  const repost = repostHex === undefined ? undefined : await getPost(state, Buffer.from(repostHex, 'hex'));
  return {
    LikedByReader: liked,
    DiamondLevelBestowed: diamondLevel,
    RepostedByReader: repost !== undefined && !repost.isHidden,
    RepostPostHashHex: repostHex ?? '',
  };
}

/**
 * The reference's PostEntryResponse for a stored post: the post's own fields and counters
 * (`LikeCount` as LIKE keeps it), and with `reader` its PostEntryReaderState. The poster's
 * ProfileEntryResponse and the comment tree are left to read routes.
 */
export async function postEntryResponse(state: StateIndexReader, post: PostRecord, network: Network, opts: PostEntryResponseOptions): Promise<Record<string, unknown>> {
  const body = parsePostBody(post);
  let reposted: Record<string, unknown> | null = null;
  if (post.repostedPostHash !== null && opts.withReposted !== false) {
    const r = await getPost(state, post.repostedPostHash);
    if (r !== undefined) reposted = await postEntryResponse(state, r, network, { inMempool: false, withReposted: false, ...(opts.reader === undefined ? {} : { reader: opts.reader }) });
  }
  return {
    PostHashHex: toHex(post.postHash),
    PosterPublicKeyBase58Check: encodePublicKey(post.posterPublicKey, network),
    ParentStakeID: toHex(post.parentStakeId),
    Body: body.Body,
    ImageURLs: body.ImageURLs,
    VideoURLs: body.VideoURLs,
    RepostedPostEntryResponse: reposted,
    CreatorBasisPoints: post.creatorBasisPoints,
    StakeMultipleBasisPoints: post.stakeMultipleBasisPoints,
    TimestampNanos: post.timestampNanos,
    IsHidden: post.isHidden,
    ConfirmationBlockHeight: post.confirmationBlockHeight,
    InMempool: opts.inMempool,
    ProfileEntryResponse: null,
    Comments: null,
    LikeCount: post.likeCount,
    DiamondCount: post.diamondCount,
    PostEntryReaderState: opts.reader === undefined ? null : await postEntryReaderState(state, post, opts.reader),
    IsPinned: false,
    PostExtraData: extraDataJson(post.postExtraData, network),
    CommentCount: post.commentCount,
    RepostCount: post.repostCount,
    QuoteRepostCount: post.quoteRepostCount,
    ParentPosts: null,
    IsNFT: false,
    NumNFTCopies: 0,
    NumNFTCopiesForSale: 0,
    NumNFTCopiesBurned: 0,
    HasUnlockable: false,
    NFTRoyaltyToCreatorBasisPoints: 0,
    NFTRoyaltyToCoinBasisPoints: 0,
    DiamondsFromSender: 0,
    IsFrozen: post.isFrozen,
  };
}

/** submit-transaction's PostEntryResponse: the post a SUBMIT_POST created or edited, from the pending state. */
export async function submittedPostEntryResponse(deps: Pick<AppDeps, 'chain' | 'store' | 'config'>, submitted: SubmittedTxn): Promise<Record<string, unknown> | null> {
  if (submitted.txn.txnType !== TxnType.SUBMIT_POST) return null;
  const m = decodeMetadata(submitted.txn.txnType, submitted.txn.metadata) as SubmitPostMetadata;
  const hash = m.postHashToModify.length > 0 ? m.postHashToModify : new Uint8Array(Buffer.from(submitted.hashHex, 'hex'));
  const pending = await deps.chain.pendingView();
  const post = await getPost(pending, hash);
  if (post === undefined) return null;
  const mined = (await minedTxnLocation(deps.store, submitted.hashHex)) !== undefined;
  return postEntryResponse(pending, post, deps.config.network, { inMempool: !mined });
}
