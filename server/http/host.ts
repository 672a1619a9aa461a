/**
 * The Host a request names, when it is usable in a URL this node answers with (upload-image's
 * ImageURL, Wyre's default redirect): a host name or address with an optional port, and nothing
 * else, so a header cannot smuggle a path, credentials or another scheme into the answer. A
 * client that sends another Host only changes the URLs it is answered itself.
 * @module
 */
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

export function usableHost(host: string | undefined): string | undefined {
  return host !== undefined && HOST.test(host) ? host : undefined;
}
