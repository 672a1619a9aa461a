/**
 * Rules of SUBMIT_POST, as core's `_connectSubmitPost` with every fork active (regtest): new
 * posts, comments (ParentStakeID a post hash or a profile key), reposts and quoted reposts
 * (ExtraData `RecloutedPostHash` / `IsQuotedReclout`), edits and hiding by the poster, frozen
 * posts (ExtraData `IsFrozen`), and the comment/repost counters of the posts involved. Every
 * change of a post also moves it in the read indexes (state/postIndexes.ts reindexPost).
 * The post hash of a new post is the final transaction hash.
 * @module
 */
import { toHex } from '../../hex.js';
import { getPost, insertPost, isVanillaRepost, updatePost, type PostRecord } from '../state/posts.js';
import { reindexPost } from '../state/postIndexes.js';
import type { StateView } from '../state/view.js';
import type { TxnEnvelope } from '../txn/envelope.js';
import { decodeMetadata, TxnType, type SubmitPostMetadata } from '../txn/metadata.js';
import type { ConnectContext, TxnInfo } from './connect.js';
import { RuleError } from './errors.js';
import type { HandlerEntry } from './handlers.js';
import { HASH_BYTES, PUBLIC_KEY_BYTES } from '../txn/sizes.js';

/** ExtraData keys core reads on SUBMIT_POST (its constants RepostedPostHash, IsQuotedRepostKey, IsFrozenKey). */
export const POST_EXTRA_KEYS = { repostedPostHash: 'RecloutedPostHash', isQuotedRepost: 'IsQuotedReclout', isFrozen: 'IsFrozen' } as const;

/** Core's limits for testnet/regtest. */
export const POST_LIMITS = {
  /** Enforced by the construction route (backend cleanBody), not by consensus. */
  maxBodyBytes: 50_000,
  minStakeMultipleBasisPoints: 10_000n,
  maxStakeMultipleBasisPoints: 100_000n,
  maxCreatorBasisPoints: 10_000n,
} as const;

const CONSENSUS_KEYS = new Set<string>(Object.values(POST_EXTRA_KEYS));

/** What the transaction's ExtraData says about reposting and freezing, and the rest of it. */
interface PostExtra {
  repostedPostHash: Uint8Array | null;
  isQuotedRepost: boolean;
  isFrozen: boolean;
  rest: Array<[Uint8Array, Uint8Array]>;
}

function readExtra(txn: TxnEnvelope): PostExtra {
  const value = (key: string): Uint8Array | undefined => txn.extraData.find(([k]) => Buffer.from(k).toString('latin1') === key)?.[1];
  const isOne = (v: Uint8Array | undefined): boolean => v !== undefined && v.length === 1 && v[0] === 1;
  const reposted = value(POST_EXTRA_KEYS.repostedPostHash);
  // Core copies the value into a 32-byte hash, whatever its length.
  const repostedPostHash = reposted === undefined ? null : (() => {
    const h = new Uint8Array(HASH_BYTES);
    h.set(reposted.subarray(0, HASH_BYTES));
    return h;
  })();
  return {
    repostedPostHash,
    isQuotedRepost: isOne(value(POST_EXTRA_KEYS.isQuotedRepost)),
    isFrozen: isOne(value(POST_EXTRA_KEYS.isFrozen)),
    rest: txn.extraData.filter(([k]) => !CONSENSUS_KEYS.has(Buffer.from(k).toString('latin1'))),
  };
}

const sameBytes = (a: Uint8Array | null, b: Uint8Array | null): boolean => (a === null || b === null ? a === b : Buffer.compare(a, b) === 0);

/** Applies `change` to the stored post (read fresh, so two changes to one post both land), and to its read indexes. */
async function adjustPost(view: StateView, hash: Uint8Array, change: (p: PostRecord) => Partial<PostRecord>): Promise<void> {
  const p = await getPost(view, hash);
  if (p === undefined) return;
  const next = { ...p, ...change(p) };
  updatePost(view, next);
  await reindexPost(view, p, next);
}

/** Counters never go below zero (core clamps and logs). */
const addClamped = (n: bigint, by: bigint): bigint => (n + by < 0n ? 0n : n + by);

/** The parent and grandparent posts of a post whose parent is a post hash; both must exist. */
async function ancestorsOf(view: StateView, parentStakeId: Uint8Array): Promise<Uint8Array[]> {
  if (parentStakeId.length !== HASH_BYTES) return [];
  const parent = await getPost(view, parentStakeId);
  if (parent === undefined) throw new RuleError('RuleErrorSubmitPostParentNotFound', `parent post ${toHex(parentStakeId)} does not exist`);
  if (parent.parentStakeId.length !== HASH_BYTES) return [parent.postHash];
  if ((await getPost(view, parent.parentStakeId)) === undefined) {
    throw new RuleError('RuleErrorSubmitPostParentNotFound', `grandparent post ${toHex(parent.parentStakeId)} does not exist`);
  }
  return [parent.postHash, parent.parentStakeId];
}

async function createPost(view: StateView, txn: TxnEnvelope, m: SubmitPostMetadata, extra: PostExtra, info: TxnInfo, ctx: ConnectContext): Promise<void> {
  const L = POST_LIMITS;
  if (m.stakeMultipleBasisPoints < L.minStakeMultipleBasisPoints || m.stakeMultipleBasisPoints > L.maxStakeMultipleBasisPoints) {
    throw new RuleError('RuleErrorSubmitPostStakeMultipleSize', `stake multiple ${m.stakeMultipleBasisPoints} is not within ${L.minStakeMultipleBasisPoints}..${L.maxStakeMultipleBasisPoints}`);
  }
  if (m.creatorBasisPoints > L.maxCreatorBasisPoints) {
    throw new RuleError('RuleErrorSubmitPostCreatorPercentageSize', `creator basis points ${m.creatorBasisPoints} is over ${L.maxCreatorBasisPoints}`);
  }
  if (m.timestampNanos === 0n) throw new RuleError('RuleErrorSubmitPostTimestampIsZero', 'TimestampNanos is 0');
  const parentLength = m.parentStakeId.length;
  if (parentLength !== 0 && parentLength !== HASH_BYTES && parentLength !== PUBLIC_KEY_BYTES) {
    throw new RuleError('RuleErrorSubmitPostInvalidParentStakeIDLength', `ParentStakeID has ${parentLength} bytes; expected 0, ${HASH_BYTES} or ${PUBLIC_KEY_BYTES}`);
  }
  if ((await getPost(view, info.hash)) !== undefined) throw new RuleError('RuleErrorPostAlreadyExists', `post ${toHex(info.hash)} already exists`);
  if (extra.repostedPostHash !== null) {
    const reposted = await getPost(view, extra.repostedPostHash);
    if (reposted === undefined) throw new RuleError('RuleErrorSubmitPostRepostPostNotFound', `reposted post ${toHex(extra.repostedPostHash)} does not exist`);
    if (isVanillaRepost(reposted)) throw new RuleError('RuleErrorSubmitPostRepostOfRepost', `post ${toHex(extra.repostedPostHash)} is itself a repost without a quote`);
  }
  const post: PostRecord = {
    postHash: info.hash,
    posterPublicKey: txn.publicKey,
    parentStakeId: m.parentStakeId,
    body: m.body,
    repostedPostHash: extra.repostedPostHash,
    isQuotedRepost: extra.isQuotedRepost,
    creatorBasisPoints: m.creatorBasisPoints,
    stakeMultipleBasisPoints: m.stakeMultipleBasisPoints,
    timestampNanos: m.timestampNanos,
    // Core never creates a hidden post; hiding is an edit.
    isHidden: false,
    isFrozen: extra.isFrozen,
    confirmationBlockHeight: ctx.height,
    postExtraData: extra.rest,
    commentCount: 0n,
    repostCount: 0n,
    quoteRepostCount: 0n,
    likeCount: 0n,
    diamondCount: 0n,
  };
  const ancestors = await ancestorsOf(view, m.parentStakeId);
  insertPost(view, post);
  await reindexPost(view, undefined, post);
  // A comment counts on its parent and its grandparent.
  for (const hash of ancestors) await adjustPost(view, hash, (p) => ({ commentCount: p.commentCount + 1n }));
  if (extra.repostedPostHash !== null) {
    await adjustPost(view, extra.repostedPostHash, (p) => (extra.isQuotedRepost ? { quoteRepostCount: p.quoteRepostCount + 1n } : { repostCount: p.repostCount + 1n }));
  }
}

/** Core: on an edit, empty values delete keys and the rest overwrite. */
function mergePostExtraData(old: Array<[Uint8Array, Uint8Array]>, update: Array<[Uint8Array, Uint8Array]>): Array<[Uint8Array, Uint8Array]> {
  const byKey = new Map(old.map((kv) => [toHex(kv[0]), kv] as const));
  for (const kv of update) {
    if (kv[1].length > 0) byKey.set(toHex(kv[0]), kv);
    else byKey.delete(toHex(kv[0]));
  }
  return [...byKey.values()].sort(([a], [b]) => Buffer.compare(a, b));
}

async function modifyPost(view: StateView, txn: TxnEnvelope, m: SubmitPostMetadata, extra: PostExtra): Promise<void> {
  if (m.postHashToModify.length !== HASH_BYTES) {
    throw new RuleError('RuleErrorSubmitPostInvalidPostHashToModify', `PostHashToModify has ${m.postHashToModify.length} bytes; expected ${HASH_BYTES}`);
  }
  const existing = await getPost(view, m.postHashToModify);
  if (existing === undefined) throw new RuleError('RuleErrorSubmitPostModifyingNonexistentPost', `post ${toHex(m.postHashToModify)} does not exist`);
  if (Buffer.compare(txn.publicKey, existing.posterPublicKey) !== 0) {
    throw new RuleError('RuleErrorSubmitPostPostModificationNotAuthorized', `only the poster ${toHex(existing.posterPublicKey)} may modify post ${toHex(existing.postHash)}`);
  }
  if (existing.isFrozen) throw new RuleError('RuleErrorSubmitPostModifyingFrozenPost', `post ${toHex(existing.postHash)} is frozen`);
  if (!sameBytes(extra.repostedPostHash, existing.repostedPostHash)) {
    throw new RuleError('RuleErrorSubmitPostUpdateRepostHash', 'an edit cannot change the reposted post');
  }
  if (extra.isQuotedRepost !== existing.isQuotedRepost) throw new RuleError('RuleErrorSubmitPostUpdateIsQuotedRepost', 'an edit cannot change IsQuotedRepost');

  const ancestors = await ancestorsOf(view, existing.parentStakeId);
  const edited: PostRecord = {
    ...existing,
    body: m.body.length > 0 ? m.body : existing.body,
    postExtraData: extra.rest.length > 0 ? mergePostExtraData(existing.postExtraData, extra.rest) : existing.postExtraData,
    isHidden: m.isHidden,
    isFrozen: extra.isFrozen,
  };
  updatePost(view, edited);
  await reindexPost(view, existing, edited);

  // Hiding takes the post and its comments out of its ancestors' counts; unhiding puts them back.
  let delta = 0n;
  if (!existing.isHidden && m.isHidden) delta = -1n;
  else if (existing.isHidden && !m.isHidden) delta = 1n;
  if (delta === 0n) return;
  const comments = delta * (1n + existing.commentCount);
  for (const hash of ancestors) await adjustPost(view, hash, (p) => ({ commentCount: addClamped(p.commentCount, comments) }));
  if (existing.repostedPostHash !== null) {
    await adjustPost(view, existing.repostedPostHash, (p) =>
      isVanillaRepost(existing) ? { repostCount: addClamped(p.repostCount, delta) } : { quoteRepostCount: addClamped(p.quoteRepostCount, delta) },
    );
  }
}

async function connectSubmitPost(view: StateView, txn: TxnEnvelope, info: TxnInfo, ctx: ConnectContext): Promise<void> {
  const m = decodeMetadata(txn.txnType, txn.metadata) as SubmitPostMetadata;
  const extra = readExtra(txn);
  if (m.postHashToModify.length !== 0) await modifyPost(view, txn, m, extra);
  else await createPost(view, txn, m, extra, info, ctx);
}

export const postHandlers: readonly HandlerEntry[] = [[TxnType.SUBMIT_POST, connectSubmitPost]];
