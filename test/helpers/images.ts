/**
 * Small image files for the upload tests: a real PNG and GIF of any size (decodable), and JPEG
 * and WebP files whose headers are real (signature, segments, dimensions) around a stand-in
 * payload, which is all the node reads.
 */
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A grey PNG of `width` x `height` (8-bit greyscale); `seed` varies the pixels (and so the hash). */
export function png(width = 1, height = 1, seed = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc((width + 1) * height, seed & 0xff);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0; // filter type 0
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** The classic 1x1 transparent GIF89a, its logical screen set to `width` x `height`. */
export function gif(width = 1, height = 1): Buffer {
  const b = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return b;
}

/** SOI, a JFIF APP0, an EXIF-like APP1, then SOF0 with the size, then a stand-in scan. */
export function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const app1Payload = Buffer.from('Exif\0\0not really tiff', 'latin1');
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, 0x00, app1Payload.length + 2]), app1Payload]);
  const sof0 = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, app1, sof0, Buffer.from([0xff, 0xda, 0x00, 0x02, 0x12, 0x34, 0xff, 0xd9])]);
}

/** A simple lossy WebP (RIFF, VP8 chunk, frame tag, start code, 14-bit sizes). */
export function webp(width: number, height: number): Buffer {
  const vp8 = Buffer.alloc(18);
  vp8.set([0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a], 0); // frame tag, start code
  vp8.writeUInt16LE(width & 0x3fff, 6);
  vp8.writeUInt16LE(height & 0x3fff, 8);
  const chunk = Buffer.concat([Buffer.from('VP8 ', 'latin1'), Buffer.from([vp8.length, 0, 0, 0]), vp8]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(4 + chunk.length);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), size, Buffer.from('WEBP', 'latin1'), chunk]);
}
