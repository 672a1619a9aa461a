/**
 * Diamonds for frontends (reference social-graph.md §4): what send-diamonds builds, and the
 * three reads, over the chain's pending view (tip + mempool, as the reference reads its
 * mempool-augmented view). Each read walks one index of state/diamonds.ts, so its cost grows
 * with its answer:
 *
 * - get-diamonds-for-public-key: one summary record per counterparty (`Drecv`/`Dgave`), never
 *   one read per diamond; counterparties with a profile first, by coin value (DeSoLocked)
 *   descending, as the reference; ties by public key bytes (the reference leaves them in Go's
 *   random map order).
 * - get-diamonds-for-post: the post's senders (`Dpost`), sorted as the reference sorts them
 *   (DeSoLocked desc, level desc, Base58 desc) over at most MAX_POST_DIAMOND_SENDERS_SORTED of
 *   them, then cut at Offset/Limit. The coin-value order changes with every creator-coin trade,
 *   so no index can hold it; the sort costs the post's senders (profile records only: a
 *   ProfileEntryResponse is built for the page alone).
 * - get-diamonded-posts: the (receiver, sender) pair's posts in the reference's order (`Dpair`:
 *   level desc, then newest), paged after StartPostHashHex.
 *
 * Where the reference fails in ways no frontend relies on, these do what it evidently meant:
 * get-diamonds-for-post on an unknown post answers no senders (the reference dereferences a
 * nil post and panics), and get-diamonded-posts serves every post of the page (the reference
 * cuts each page at `len − 1`, dropping the last post, and panics when the cursor is the last).
 * @module
 */
import { diamondPayment, DIAMOND_EXTRA_KEYS, encodeDiamondLevel } from '../chain/rules/diamonds.js';
import { isRuleError } from '../chain/rules/errors.js';
import { diamondCounterparties, diamondedPostsPage, diamondSummary, getDiamondLevel, postDiamonds, type DiamondedPost } from '../chain/state/diamonds.js';
import { getPost, type PostRecord } from '../chain/state/posts.js';
import { getProfile, type ProfileRecord } from '../chain/state/profiles.js';
import type { StateIndexReader } from '../chain/state/reader.js';
import { HASH_BYTES } from '../chain/txn/sizes.js';
import { DomainError } from '../errors.js';
import { toHex } from '../hex.js';
import { encodePublicKey } from '../keys/index.js';
import { postEntryResponse } from './postEntry.js';
import { profileEntryResponse, profileRecordResponse, type ProfileDeps } from './profileEntry.js';
import { moderationFlags } from './userMetadata.js';

/** A diamond request refused (invalid) or naming something that is not there (notFound). */
export class DiamondError extends DomainError {
  override readonly name = 'DiamondError';
}

/** Most counterparties get-diamonds-for-public-key lists (the reference has no bound). */
export const MAX_DIAMOND_COUNTERPARTIES = 10_000;
/** Most senders of one post get-diamonds-for-post sorts (the highest levels, when a post has more). */
export const MAX_POST_DIAMOND_SENDERS_SORTED = 10_000;
/** Most posts one get-diamonded-posts page holds, whatever NumToFetch asks (the reference has no bound). */
export const MAX_DIAMONDED_POSTS_PER_PAGE = 100;
/** Entries one get-diamonded-posts page may look at, however many it skips (hidden posts). */
export const MAX_DIAMONDED_POSTS_SCANNED = 5_000;

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const byLockedDesc = (a: ProfileRecord, b: ProfileRecord): number => (a.creatorCoin.nanosLocked === b.creatorCoin.nanosLocked ? 0 : a.creatorCoin.nanosLocked > b.creatorCoin.nanosLocked ? -1 : 1);

// --- send-diamonds -----------------------------------------------------------------------------

/** What a diamond transaction carries: the author it pays, how much, and its ExtraData. */
export interface DiamondTransfer {
  author: Uint8Array;
  nanos: bigint;
  /** `DiamondLevel` (zig-zag varint) and `DiamondPostHash` (32 bytes). */
  extraData: Array<[Uint8Array, Uint8Array]>;
}

/**
 * What a diamond of `level` by `sender` on `postHash` must pay, as core's
 * CreateBasicTransferTxnWithDiamonds works it out (the post must exist; the level must be one
 * of the map's and above the sender's previous one), plus the self-diamond refusal connect would
 * give (the reference compares the sender with the request's receiver only).
 * @throws {DiamondError} with the reference's texts
 */
export async function prepareDiamond(state: StateIndexReader, sender33: Uint8Array, postHash: Uint8Array, level: bigint): Promise<DiamondTransfer> {
  const P = 'SendDiamonds: Problem creating transaction: Blockchain.CreateBasicTransferTxnWithDiamonds: ';
  const post = await getPost(state, postHash);
  if (post === undefined) throw new DiamondError('DIAMOND_POST_NOT_FOUND', 'invalid', `${P}Problem getting post entry for post hash ${toHex(postHash)}`);
  if (Buffer.compare(post.posterPublicKey, sender33) === 0) {
    throw new DiamondError('DIAMOND_TO_SELF', 'invalid', `${P}RuleErrorBasicTransferDiamondCannotTransferToSelf: the sender wrote the post`);
  }
  try {
    const pay = await diamondPayment(state, sender33, post, level);
    return {
      author: post.posterPublicKey,
      nanos: pay.nanos,
      extraData: [
        [utf8(DIAMOND_EXTRA_KEYS.level), encodeDiamondLevel(level)],
        [utf8(DIAMOND_EXTRA_KEYS.postHash), post.postHash],
      ],
    };
  } catch (e) {
    if (isRuleError(e)) throw new DiamondError('DIAMOND_LEVEL', 'invalid', `${P}Problem getting deso nanos: : ${e.message}`);
    throw e;
  }
}

// --- get-diamonds-for-public-key ---------------------------------------------------------------

/**
 * get-diamonds-for-public-key: one summary per counterparty of `pk` (the keys that diamonded it,
 * or with `given` the keys it diamonded), and the sum of their diamonds.
 */
export async function diamondsForPublicKey(deps: ProfileDeps, state: StateIndexReader, pk33: Uint8Array, given: boolean): Promise<Record<string, unknown>> {
  const network = deps.config.network;
  const others = await diamondCounterparties(state, pk33, given, MAX_DIAMOND_COUNTERPARTIES);
  const rows = await Promise.all(
    others.map(async (other) => {
      const [summary, profile] = await Promise.all([given ? diamondSummary(state, other, pk33) : diamondSummary(state, pk33, other), getProfile(state, other)]);
      return { other, summary, profile };
    }),
  );
  // Profiles first, by coin value; a stable sort keeps key order among equals.
  rows.sort((a, b) => (a.profile === undefined || b.profile === undefined ? (a.profile === undefined ? 1 : 0) - (b.profile === undefined ? 1 : 0) : byLockedDesc(a.profile, b.profile)));
  let total = 0;
  const responses = await Promise.all(
    rows.map(async ({ other, summary, profile }) => {
      total += summary.totalDiamonds;
      const [sender, receiver] = given ? [pk33, other] : [other, pk33];
      return {
        SenderPublicKeyBase58Check: encodePublicKey(sender, network),
        ReceiverPublicKeyBase58Check: encodePublicKey(receiver, network),
        TotalDiamonds: summary.totalDiamonds,
        HighestDiamondLevel: summary.highestLevel,
        DiamondLevelMap: Object.fromEntries([...summary.postsByLevel].map(([level, posts]) => [String(level), posts])),
        ProfileEntryResponse: profile === undefined ? null : await profileRecordResponse(deps, state, profile),
      };
    }),
  );
  return { DiamondSenderSummaryResponses: responses, TotalDiamonds: total };
}

// --- get-diamonds-for-post ---------------------------------------------------------------------

export interface PostDiamondsRequest {
  postHash: Uint8Array;
  offset: number;
  limit: number;
  /** Exempt from the restriction filter (reference FilterOutRestrictedPubKeysFromMap). */
  reader: Uint8Array | null;
}

/**
 * get-diamonds-for-post: the post's senders with a profile, black- and graylisted ones left out
 * (the reader never is), sorted by coin value, level, then Base58 descending, cut at
 * [Offset, Offset + Limit). No senders for an unknown post.
 */
export async function diamondsForPost(deps: ProfileDeps, state: StateIndexReader, req: PostDiamondsRequest): Promise<Record<string, unknown>> {
  const network = deps.config.network;
  if (req.limit < 1) return { DiamondSenders: [] };
  const senders = await postDiamonds(state, req.postHash, MAX_POST_DIAMOND_SENDERS_SORTED);
  const readerHex = req.reader === null ? null : toHex(req.reader);
  const rows = (
    await Promise.all(
      senders.map(async (d) => {
        const profile = await getProfile(state, d.sender);
        if (profile === undefined) return null;
        if (toHex(d.sender) !== readerHex) {
          const flags = await moderationFlags(deps.store, d.sender);
          if (flags.isBlacklisted || flags.isGraylisted) return null;
        }
        return { ...d, profile, base58: encodePublicKey(d.sender, network) };
      }),
    )
  ).filter((r) => r !== null);
  rows.sort((a, b) => byLockedDesc(a.profile, b.profile) || b.level - a.level || (a.base58 === b.base58 ? 0 : a.base58 > b.base58 ? -1 : 1));
  const page = rows.slice(req.offset, req.offset + req.limit);
  return {
    DiamondSenders: await Promise.all(page.map(async (r) => ({ DiamondSenderProfile: await profileRecordResponse(deps, state, r.profile), DiamondLevel: r.level }))),
  };
}

// --- get-diamonded-posts -----------------------------------------------------------------------

export interface DiamondedPostsRequest {
  receiver: Uint8Array;
  sender: Uint8Array;
  /** Whose PostEntryReaderState each post carries (null: no reader, all false / 0). */
  reader: Uint8Array | null;
  /** Start after this post (exclusive); null, or a post the sender did not diamond for the receiver: from the top. */
  startPostHash: Uint8Array | null;
  numToFetch: number;
  tipHeight: bigint;
}

/** Where `postHash` sits in the pair's list, when the sender diamonded it for the receiver. */
async function cursorOf(state: StateIndexReader, req: DiamondedPostsRequest): Promise<DiamondedPost | null> {
  if (req.startPostHash === null || req.startPostHash.length !== HASH_BYTES) return null;
  const [level, post] = await Promise.all([getDiamondLevel(state, req.startPostHash, req.sender), getPost(state, req.startPostHash)]);
  if (level === 0 || post === undefined || Buffer.compare(post.posterPublicKey, req.receiver) !== 0) return null;
  return { postHash: post.postHash, level, timestampNanos: post.timestampNanos };
}

/**
 * get-diamonded-posts: the receiver's visible posts the sender diamonded, highest level first,
 * then newest, each with DiamondsFromSender, the reader's state, and its parent for a comment;
 * TotalDiamondsGiven counts hidden posts too (as the reference).
 */
export async function diamondedPosts(deps: ProfileDeps, state: StateIndexReader, req: DiamondedPostsRequest): Promise<Record<string, unknown>> {
  const network = deps.config.network;
  const want = Math.min(req.numToFetch, MAX_DIAMONDED_POSTS_PER_PAGE);
  const found: Array<{ post: PostRecord; level: number }> = [];
  let after = await cursorOf(state, req);
  let scanned = 0;
  while (found.length < want && scanned < MAX_DIAMONDED_POSTS_SCANNED) {
    const entries = await diamondedPostsPage(state, req.receiver, req.sender, after, Math.min(want - found.length, MAX_DIAMONDED_POSTS_SCANNED - scanned));
    if (entries.length === 0) break;
    scanned += entries.length;
    after = entries[entries.length - 1]!;
    const posts = await Promise.all(entries.map((e) => getPost(state, e.postHash)));
    posts.forEach((post, i) => {
      if (post !== undefined && !post.isHidden) found.push({ post, level: entries[i]!.level });
    });
  }

  // The reference sets the reader's state on the diamonded posts, not on their parents.
  const entry = async (post: PostRecord, withReader: boolean): Promise<Record<string, unknown>> => {
    const inMempool = post.confirmationBlockHeight > req.tipHeight;
    const r = await postEntryResponse(state, post, network, withReader ? { inMempool, reader: req.reader } : { inMempool });
    const reposted = r['RepostedPostEntryResponse'] as Record<string, unknown> | null;
    if (reposted !== null && post.repostedPostHash !== null) {
      const original = await getPost(state, post.repostedPostHash);
      if (original !== undefined) {
        reposted['ProfileEntryResponse'] = await profileEntryResponse(deps, state, original.posterPublicKey);
        reposted['InMempool'] = original.confirmationBlockHeight > req.tipHeight;
      }
    }
    return r;
  };
  const [posts, summary, receiverProfile, senderProfile] = await Promise.all([
    Promise.all(
      found.map(async ({ post, level }) => {
        const r = await entry(post, true);
        r['DiamondsFromSender'] = level;
        if (post.parentStakeId.length === HASH_BYTES) {
          const parent = await getPost(state, post.parentStakeId);
          if (parent !== undefined) {
            const p = await entry(parent, false);
            p['ProfileEntryResponse'] = await profileEntryResponse(deps, state, parent.posterPublicKey);
            r['ParentPosts'] = [p];
          }
        }
        return r;
      }),
    ),
    diamondSummary(state, req.receiver, req.sender),
    profileEntryResponse(deps, state, req.receiver),
    profileEntryResponse(deps, state, req.sender),
  ]);
  return {
    DiamondedPosts: posts,
    TotalDiamondsGiven: summary.totalDiamonds,
    ReceiverProfileEntryResponse: receiverProfile,
    SenderProfileEntryResponse: senderProfile,
  };
}
