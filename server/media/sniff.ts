/**
 * What an uploaded file is, read from its bytes (never from the name or Content-Type it came
 * with): one of the raster types the reference's upload-image takes (jpeg, png, gif, webp), and
 * its width and height from the format's header. Nothing is decoded: only the signature and the
 * few header fields that give the dimensions, so the cost is a bounded walk (JPEG: the segment
 * headers before the first frame).
 *
 * SVG and every other type are refused: an SVG is a document that can run script when a browser
 * opens it from this node's origin.
 * @module
 */

export const IMAGE_TYPES = ['jpeg', 'png', 'gif', 'webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/**
 * Largest width or height: the reference's limit (bimg's MaxSize, the largest side libvips
 * writes as WebP), checked there before decoding against pixel floods. An image this node
 * serves is decoded by every browser that shows it, so the same bound protects them.
 */
export const MAX_IMAGE_DIMENSION = 16383;

export type Sniffed = { type: ImageType; width: number; height: number } | { problem: string };

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0): boolean => sig.every((x, i) => b[at + i] === x);
const ascii = (b: Uint8Array, at: number, text: string): boolean => startsWith(b, [...text].map((c) => c.charCodeAt(0)), at);
const be16 = (b: Uint8Array, at: number): number => (b[at]! << 8) | b[at + 1]!;
const le16 = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8);
const le24 = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const be32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Width and height from the IHDR chunk, which must come first. */
function png(b: Uint8Array): Sniffed {
  if (b.length < 24 || !ascii(b, 12, 'IHDR')) return { problem: 'a PNG without its IHDR header' };
  return { type: 'png', width: be32(b, 16), height: be32(b, 20) };
}

/** The logical screen size of GIF87a/GIF89a. */
function gif(b: Uint8Array): Sniffed {
  if (b.length < 10) return { problem: 'a truncated GIF header' };
  return { type: 'gif', width: le16(b, 6), height: le16(b, 8) };
}

/** The size of the first frame header (SOFn), walking the segments before it. */
function jpeg(b: Uint8Array): Sniffed {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return { problem: 'a JPEG whose segments do not follow each other' };
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    // Markers without a length: TEM and RSTn.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) break; // end of image, or scan data before any frame
    const length = be16(b, at + 2);
    if (length < 2) return { problem: 'a JPEG segment with a bad length' };
    // SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > b.length) break;
      return { type: 'jpeg', height: be16(b, at + 5), width: be16(b, at + 7) };
    }
    at += 2 + length;
  }
  return { problem: 'a JPEG without a frame header' };
}

/** Canvas size of a simple lossy (VP8), lossless (VP8L) or extended (VP8X) WebP. */
function webp(b: Uint8Array): Sniffed {
  if (b.length < 30) return { problem: 'a truncated WebP header' };
  if (ascii(b, 12, 'VP8X')) return { type: 'webp', width: le24(b, 24) + 1, height: le24(b, 27) + 1 };
  if (ascii(b, 12, 'VP8L')) {
    if (b[20] !== 0x2f) return { problem: 'a lossless WebP without its signature byte' };
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
    return { type: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (ascii(b, 12, 'VP8 ')) {
    if (!startsWith(b, [0x9d, 0x01, 0x2a], 23)) return { problem: 'a lossy WebP without its frame start code' };
    return { type: 'webp', width: le16(b, 26) & 0x3fff, height: le16(b, 28) & 0x3fff };
  }
  return { problem: 'a WebP of an unknown kind' };
}

function sniffType(b: Uint8Array): Sniffed {
  if (startsWith(b, PNG_SIGNATURE)) return png(b);
  if (startsWith(b, [0xff, 0xd8, 0xff])) return jpeg(b);
  if (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) return gif(b);
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) return webp(b);
  return { problem: `not an image of an accepted type (${IMAGE_TYPES.join(', ')})` };
}

/** The type and size of an image file, or why it is refused (a type not accepted, a broken header, a side of 0 or over MAX_IMAGE_DIMENSION). */
export function sniffImage(bytes: Uint8Array): Sniffed {
  const s = sniffType(bytes);
  if ('problem' in s) return s;
  if (s.width === 0 || s.height === 0) return { problem: `a ${s.type} of ${s.width}x${s.height} pixels` };
  if (s.width > MAX_IMAGE_DIMENSION || s.height > MAX_IMAGE_DIMENSION) {
    return { problem: `a ${s.type} of ${s.width}x${s.height} pixels; the most is ${MAX_IMAGE_DIMENSION} on each side` };
  }
  return s;
}
