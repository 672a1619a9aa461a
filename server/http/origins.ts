/**
 * The --cors-origins rule, shared by CORS answers (router.ts) and WebSocket upgrades
 * (socketLimits.ts): an entry is `*`, an exact origin, or a `scheme://*.domain` pattern.
 * @module
 */

/** Whether `origin` is named in `allowed`, exactly or by a pattern (`*` names no origin). */
export function originListed(allowed: readonly string[], origin: string): boolean {
  return allowed.some((a) => a !== '*' && (a === origin || wildcardMatch(a, origin)));
}

/** Whether `allowed` lets `origin` in: listed, or `*` present. */
export function originAllowed(allowed: readonly string[], origin: string): boolean {
  return allowed.includes('*') || originListed(allowed, origin);
}

function wildcardMatch(pattern: string, origin: string): boolean {
  // `https://*.example.com` allows any subdomain of example.com over https.
  const star = pattern.indexOf('*');
  if (star === -1) return false;
  const head = pattern.slice(0, star);
  const tail = pattern.slice(star + 1);
  return origin.length > head.length + tail.length && origin.startsWith(head) && origin.endsWith(tail);
}
