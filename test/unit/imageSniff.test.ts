/** What an uploaded file is (server/media/sniff.ts): the type from the bytes, the size from the header. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_IMAGE_DIMENSION, sniffImage } from '../../server/media/sniff.js';
import { gif, jpeg, png, webp } from '../helpers/images.js';

describe('sniffImage', () => {
  it('reads type, width and height of PNG, GIF, JPEG (past APPn segments) and lossy, lossless and extended WebP', () => {
    assert.deepEqual(sniffImage(png(3, 2)), { type: 'png', width: 3, height: 2 });
    assert.deepEqual(sniffImage(gif(640, 480)), { type: 'gif', width: 640, height: 480 });
    assert.deepEqual(sniffImage(jpeg(4000, 3000)), { type: 'jpeg', width: 4000, height: 3000 });
    assert.deepEqual(sniffImage(webp(1920, 1080)), { type: 'webp', width: 1920, height: 1080 });
    const lossless = webp(1, 1);
    lossless.write('VP8L', 12, 'latin1');
    lossless[20] = 0x2f;
    lossless.writeUInt32LE((99 & 0x3fff) | ((49 & 0x3fff) << 14), 21); // 100 x 50
    assert.deepEqual(sniffImage(lossless), { type: 'webp', width: 100, height: 50 });
    const extended = webp(1, 1);
    extended.write('VP8X', 12, 'latin1');
    extended.writeUIntLE(16382, 24, 3);
    extended.writeUIntLE(0, 27, 3);
    assert.deepEqual(sniffImage(extended), { type: 'webp', width: 16383, height: 1 });
  });

  it('refuses other types, SVG among them, and broken headers', () => {
    const refused = (b: Uint8Array, re: RegExp): void => {
      const s = sniffImage(b);
      assert.ok('problem' in s && re.test(s.problem), `${JSON.stringify(s)} ~ ${re}`);
    };
    refused(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), /not an image of an accepted type \(jpeg, png, gif, webp\)/);
    refused(Buffer.from('BM6\0\0\0'), /not an image/);
    refused(Buffer.alloc(0), /not an image/);
    refused(png(1, 1).subarray(0, 20), /IHDR/);
    refused(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2]), /without a frame header/);
    refused(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]), /bad length/);
    refused(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0x41, 0x41, 0x41, 0x41]), /do not follow each other/);
    const noStart = webp(5, 5);
    noStart[23] = 0;
    refused(noStart, /start code/);
  });

  it(`refuses a side of 0 or over ${MAX_IMAGE_DIMENSION} pixels (the reference's bound against pixel floods)`, () => {
    const s = sniffImage(jpeg(MAX_IMAGE_DIMENSION + 1, 10));
    assert.ok('problem' in s && /16384x10 pixels; the most is 16383/.test(s.problem));
    assert.ok('problem' in sniffImage(gif(0, 5)));
    assert.deepEqual(sniffImage(jpeg(MAX_IMAGE_DIMENSION, MAX_IMAGE_DIMENSION)), { type: 'jpeg', width: MAX_IMAGE_DIMENSION, height: MAX_IMAGE_DIMENSION });
  });
});
