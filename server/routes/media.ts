/**
 * The media routes of the node API (reference routes/media.go): upload-image into the node's
 * own image store (media/images.ts) and the GET that serves what it stored, and
 * get-full-tiktok-url through TikTok's shortener when `--tiktok-url` names it
 * (external/tiktok.ts). The SDK's video and link-preview calls go to its media server, not here.
 *
 * upload-image, against the reference:
 * - the same request (multipart/form-data: `file`, `UserPublicKeyBase58Check`, `JWT` of that
 *   key) and answer (`ImageURL`); the file's limit is `--max-image-bytes` (the reference's
 *   10 MB by default), and a larger request is refused (413) before it is read;
 * - the type is read from the bytes, never from the part's Content-Type: JPEG, PNG, GIF or
 *   WebP, at most 16383 pixels a side (the reference's bound); anything else is 400;
 * - the image is kept as uploaded, named by the SHA-256 of its bytes
 *   (`<--image-base-url>/<sha256>.<jpeg|png|gif|webp>`), where the reference converts to WebP
 *   and names it by a hash of the converted bytes;
 * - a missing or bad JWT is 401/403 as on every JWT route of this node (the reference: 400).
 * @module
 */
import type { AppDeps } from '../deps.js';
import { DomainError } from '../errors.js';
import { TikTokResolver } from '../external/tiktok.js';
import { ifNoneMatchMatches } from '../http/compression.js';
import { ApiError, badRequest } from '../http/errors.js';
import { usableHost } from '../http/host.js';
import { isMultipartForm, type FormFile } from '../http/multipart.js';
import { json, raw, route, type Route } from '../http/route.js';
import { encodePublicKey } from '../keys/index.js';
import { getImage, putImage } from '../media/images.js';
import { IMAGE_TYPES, MAX_IMAGE_DIMENSION, sniffImage } from '../media/sniff.js';
import { out, v, ValidationError, type Schema } from '../schema.js';
import { requireUserJwt } from './adminAuth.js';
import { decodeKeyOr400 } from './requestKeys.js';

/** Room for the form's fields and part headers beside the file (a JWT and a key are under 1.5 KiB). */
export const FORM_OVERHEAD_BYTES = 64 * 1024;

interface UploadImageForm {
  file: FormFile | undefined;
  UserPublicKeyBase58Check: string;
  JWT: string;
}

/** The upload form as the router parsed it (http/multipart.ts); documented as the form it is. */
const uploadImageForm: Schema<UploadImageForm> = {
  json: {
    type: 'object',
    properties: {
      file: { type: 'string', contentMediaType: 'application/octet-stream', description: `The image: JPEG, PNG, GIF or WebP (read from its bytes), at most --max-image-bytes and ${MAX_IMAGE_DIMENSION} pixels a side` },
      UserPublicKeyBase58Check: { type: 'string', description: 'The uploader' },
      JWT: { type: 'string', description: "A JWT of the uploader's key" },
    },
    required: ['file', 'UserPublicKeyBase58Check', 'JWT'],
  },
  parse(value, path) {
    if (!isMultipartForm(value)) throw new ValidationError(path || 'request body', 'a multipart/form-data body');
    return {
      file: value.files.get('file'),
      UserPublicKeyBase58Check: value.fields.get('UserPublicKeyBase58Check') ?? '',
      JWT: value.fields.get('JWT') ?? '',
    };
  },
};

/** Served with every stored image: user data, taken as the declared raster type, running nothing. */
const IMAGE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
};

/** A stored image's name never comes to mean other bytes: caches may keep it for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const IMAGE_FILE = new RegExp(`^([0-9a-f]{64})\\.(${IMAGE_TYPES.join('|')})$`);

export function mediaRoutes(deps: AppDeps): Route[] {
  const { config, store } = deps;
  const network = config.network;
  const tiktok = config.tiktokUrl === undefined ? null : new TikTokResolver(config.tiktokUrl, config.externalTimeoutMs);

  /** Where the stored images are served, as `--image-base-url` says, else this node as the client reached it. */
  const imageBase = (host: string | undefined): string => {
    if (config.imageBaseUrl !== undefined) return config.imageBaseUrl.replace(/\/+$/, '');
    const authority = usableHost(host) ?? `127.0.0.1:${config.port}`;
    return `http://${authority}/api/v0/images`;
  };

  return [
    route({
      method: 'POST',
      path: '/upload-image',
      auth: 'user-jwt',
      summary: "Stores an image (multipart/form-data: file, UserPublicKeyBase58Check, JWT of that key) and answers its URL on this node",
      body: uploadImageForm,
      bodyType: 'multipart',
      maxBodyBytes: config.maxImageBytes + FORM_OVERHEAD_BYTES,
      response: out.object({ ImageURL: out.string('Where the image is served: <--image-base-url>/<sha256 of its bytes>.<jpeg|png|gif|webp>') }),
      responses: {
        413: { description: 'The file is over --max-image-bytes (or the request over that and 64 KiB); a request that says so in its Content-Length is refused unread and its connection closed', schema: { $ref: '#/components/schemas/Error' } },
      },
      async handle({ body, caller, headers }) {
        if (body.UserPublicKeyBase58Check === '') throw badRequest('UploadImage: No public key provided');
        const pk = encodePublicKey(decodeKeyOr400(body.UserPublicKeyBase58Check, network, 'UserPublicKeyBase58Check', 'UploadImage: Problem decoding public key'), network);
        await requireUserJwt(deps, caller, pk, body.JWT, 'UploadImage: Invalid token: ', 'UserPublicKeyBase58Check');
        const file = body.file;
        if (file === undefined) throw badRequest('UploadImage: Problem getting file from form data: the form has no file part named "file"');
        if (file.data.length > config.maxImageBytes) {
          throw new ApiError(413, `UploadImage: File too large: ${file.data.length} bytes, the most is ${config.maxImageBytes} (--max-image-bytes)`);
        }
        const image = sniffImage(file.data);
        if ('problem' in image) throw badRequest(`UploadImage: the file is ${image.problem}`);
        const { hashHex } = await putImage(store, file.data, image.type, pk);
        return json({ ImageURL: `${imageBase(headers['host'])}/${hashHex}.${image.type}` });
      },
    }),
    route({
      method: 'GET',
      path: '/images/:ImageFile',
      summary: 'An image upload-image stored, by its name `<sha256>.<type>`; cacheable for good (the name is a hash of the bytes)',
      responses: {
        200: {
          description: 'The image as uploaded (jpeg, png, gif or webp), with a strong ETag (its hash) and an immutable Cache-Control',
          contentType: 'image/*',
          schema: { type: 'string', contentMediaType: 'image/*' },
          headers: { ETag: { description: 'The quoted SHA-256 of the bytes', required: true }, 'Cache-Control': { description: IMMUTABLE, required: true } },
        },
        304: { description: 'If-None-Match named the image’s ETag', contentType: '' },
        404: { description: 'No image of that name', schema: { $ref: '#/components/schemas/Error' } },
      },
      async handle({ params, headers }) {
        const m = IMAGE_FILE.exec(params['ImageFile'] ?? '');
        if (m === null) throw new ApiError(400, `images: the name must be <64 lower-case hex>.<${IMAGE_TYPES.join('|')}>`, IMAGE_HEADERS);
        const [, hashHex, type] = m;
        const etag = `"${hashHex}"`;
        const image = await getImage(store, hashHex!);
        // A name whose extension is not the stored type is no image of this node's.
        if (image === undefined || image.type !== type) throw new ApiError(404, 'images: no such image', IMAGE_HEADERS);
        const cacheHeaders = { ...IMAGE_HEADERS, ETag: etag, 'Cache-Control': IMMUTABLE };
        if (ifNoneMatchMatches(headers['if-none-match'], etag)) return raw('', `image/${image.type}`, 304, cacheHeaders);
        return raw(image.bytes, `image/${image.type}`, 200, cacheHeaders);
      },
    }),
    route({
      method: 'POST',
      path: '/get-full-tiktok-url',
      summary: 'The full TikTok video URL a short link (vm.tiktok.com/<ID>) redirects to, asked of the shortener --tiktok-url names',
      body: v.object({ TikTokShortVideoID: v.string({ maxLength: 200 }) }),
      response: out.object({ FullTikTokURL: out.string('https://www.tiktok.com/@user/video/<id>… as TikTok redirected') }),
      // The outside call's own failures (external/serviceClient.ts) under the reference's prefix.
      errorPrefixes: { 'SERVICE_*': 'GetFullTikTokURL: ' },
      async handle({ body }) {
        if (tiktok === null) {
          throw new DomainError('TIKTOK_NOT_CONFIGURED', 'invalid', 'GetFullTikTokURL: This node does not resolve TikTok links: set --tiktok-url (TIKTOK_URL), e.g. https://vm.tiktok.com');
        }
        return json({ FullTikTokURL: await tiktok.resolve(body.TikTokShortVideoID) });
      },
    }),
  ];
}
