/**
 * get-full-tiktok-url (reference routes/media.go GetFullTikTokURL): a TikTok short link's
 * video ID resolved to the full video URL it redirects to, by asking TikTok's link shortener.
 *
 * The reference always asks https://vm.tiktok.com; this node asks only the shortener named by
 * `--tiktok-url` (a node makes no outside call its operator did not configure), and reads the
 * first redirect's Location instead of following it to TikTok's video page. Both checks are
 * stricter than the reference's regular expressions (lib.TikTokShortURLRegex /
 * TikTokFullURLRegex, which match anywhere in the URL): the ID must be 6 to 12 letters and
 * digits and nothing else, and the answer a tiktok.com URL of a video (`/@user/video/<id>`,
 * `/v/<id>` or `/embed/v2/<id>`).
 * @module
 */
import { DomainError } from '../errors.js';
import { ServiceClient, ServiceError } from './serviceClient.js';

const P = 'GetFullTikTokURL: ';

/** The reference's short-link ID (TikTokShortURLRegex), alone; a trailing slash (as in a copied link) is dropped. */
export const TIKTOK_SHORT_ID = /^([A-Za-z0-9]{6,12})\/?$/;

const FULL_PATH = /^\/(?:@[A-Za-z0-9_.-]{2,24}\/video\/\d{1,30}|v\/\d{1,30}(?:\.html)?|embed\/v2\/\d{1,30})\/?$/;

/** Whether `url` is the full URL of a TikTok video (https or http, on tiktok.com or a subdomain). */
export function isFullTikTokUrl(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return (url.protocol === 'https:' || url.protocol === 'http:') && (host === 'tiktok.com' || host.endsWith('.tiktok.com')) && FULL_PATH.test(url.pathname);
}

export class TikTokResolver {
  private readonly client: ServiceClient;

  /** @param baseUrl - the shortener, e.g. https://vm.tiktok.com (`--tiktok-url`) */
  constructor(
    private readonly baseUrl: string,
    timeoutMs: number,
  ) {
    this.client = new ServiceClient('TikTok', timeoutMs);
  }

  /** The full video URL `shortId` redirects to. */
  async resolve(shortId: string): Promise<string> {
    const m = TIKTOK_SHORT_ID.exec(shortId);
    if (m === null) throw new DomainError('TIKTOK_BAD_ID', 'invalid', `${P}TikTokShortVideoID must be 6 to 12 letters and digits (the part after vm.tiktok.com/)`);
    const shortUrl = `${this.baseUrl.replace(/\/+$/, '')}/${m[1]}`;
    const answer = await this.client.call({ method: 'GET', url: shortUrl, readBody: false });
    if (answer.status >= 500) throw new ServiceError('TIKTOK_FAILED', 'unavailable', `${P}TikTok answered ${answer.status}; try again later`);
    const location = answer.status >= 300 && answer.status < 400 ? answer.headers.get('location') : null;
    if (location === null) {
      throw new DomainError('TIKTOK_NOT_RESOLVED', 'invalid', `${P}TikTok answered ${answer.status} without a redirect: no video for this ID`);
    }
    let full: URL;
    try {
      full = new URL(location, shortUrl);
    } catch {
      throw new DomainError('TIKTOK_NOT_RESOLVED', 'invalid', `${P}TikTok redirected to something that is not a URL`);
    }
    if (!isFullTikTokUrl(full)) {
      throw new DomainError('TIKTOK_NOT_RESOLVED', 'invalid', `${P}destination url did not conform to tiktok full URL format: ${full.href.slice(0, 200)}`);
    }
    return full.href;
  }
}
