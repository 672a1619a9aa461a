/**
 * The node's image store (upload-image, reference routes/media.go, which writes to a Google
 * Cloud Storage bucket): images kept in the node's own store, content-addressed by the SHA-256
 * of their bytes, so every process and machine sharing the store serves every image, the same
 * image uploaded twice is kept once, and a name can never come to mean other bytes.
 *
 * Stored as uploaded: unlike the reference, which re-encodes every image but GIFs as WebP
 * (resized to at most 4000 pixels a side, metadata stripped), this node decodes nothing, so an
 * image keeps its format and any metadata (EXIF, location) its uploader left in it.
 * @module
 */
import { createHash } from 'node:crypto';
import type { Store } from '../store/types.js';
import type { ImageType } from './sniff.js';

export interface StoredImage {
  type: ImageType;
  bytes: Uint8Array;
  /** Who first uploaded these bytes (Base58Check). */
  uploader: string;
  atMs: number;
}

/** Lower-case hex SHA-256: the name of an image. */
export const IMAGE_HASH = /^[0-9a-f]{64}$/;

const imageKey = (hashHex: string): string => `media:image:${hashHex}`;

export function imageHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Keeps `bytes` under their hash; an image already there is left as it is (its first uploader
 * stays). Returns the hash and whether this call stored it.
 */
export async function putImage(store: Pick<Store, 'commit'>, bytes: Uint8Array, type: ImageType, uploader: string, atMs = Date.now()): Promise<{ hashHex: string; created: boolean }> {
  const hashHex = imageHash(bytes);
  const key = imageKey(hashHex);
  const value: StoredImage = { type, bytes, uploader, atMs };
  // Guarded on absence: no read of a possibly large value, and no rewrite of a stored one.
  const created = await store.commit([{ op: 'set', key, value }], [{ key, equals: undefined }]);
  return { hashHex, created };
}

export async function getImage(store: Pick<Store, 'get'>, hashHex: string): Promise<StoredImage | undefined> {
  if (!IMAGE_HASH.test(hashHex)) return undefined;
  return store.get<StoredImage>(imageKey(hashHex));
}
