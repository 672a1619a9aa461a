/**
 * The reference's PostEntryReaderState (core GetPostEntryReaderState): what the reader did to a
 * post. Each field comes from state, one read each; LikedByReader (likes) and
 * DiamondLevelBestowed (diamonds) are added here by those areas.
 * @module
 */
import { getPost, postKeys, type PostRecord } from '../chain/state/posts.js';
import type { StateReader } from '../chain/state/reader.js';
import { fromHex } from '../hex.js';

/**
 * The reader's state for `post`; a null reader has done nothing. `RepostPostHashHex` is the
 * reader's vanilla repost of the post, set even when that repost is hidden (so a frontend can
 * undo it); `RepostedByReader` is whether that repost exists and is not hidden.
 */
export async function postEntryReaderState(state: StateReader, reader: Uint8Array | null, post: Pick<PostRecord, 'postHash'>): Promise<Record<string, unknown>> {
  let repostHashHex = '';
  let reposted = false;
  if (reader !== null) {
    const hex = await state.get<string>(postKeys.repost(reader, post.postHash));
    const repost = hex === undefined ? undefined : await getPost(state, fromHex(hex));
    if (repost !== undefined) {
      repostHashHex = hex!;
      reposted = !repost.isHidden;
    }
  }
  return {
    RepostedByReader: reposted,
    RepostPostHashHex: repostHashHex,
  };
}
