/**
 * Builds the identity service and the node's one JWT verifier for a server process.
 * @module
 */
import type { Logger } from 'pino';
import type { CryptoService } from '../crypto/service.js';
import type { Network } from '../keys/index.js';
import type { Store } from '../store/types.js';
import { JwtVerifier, NO_DERIVED_KEYS, type DerivedKeyAuthorizer } from './jwt.js';
import { IdentityService } from './service.js';
import { SessionStore } from './sessions.js';

export interface IdentityParts {
  identity: IdentityService;
  /** The verifier every JWT-protected route uses (spec §5). */
  jwt: JwtVerifier;
}

export function createIdentity(opts: {
  /** The options it reads (config.ts `--network`, `--identity-session-ttl-seconds`). */
  config: { network: Network; identitySessionTtlSeconds: number };
  store: Store;
  crypto: CryptoService;
  log: Logger;
  nodeSecret: Uint8Array;
  /** Whether a derived key may sign for its owner (chain state); without one, none may. */
  derivedKeyAuthorizer?: DerivedKeyAuthorizer;
  /** The chain's tip height (derived-key expirations count from it). */
  blockHeight?: () => Promise<number>;
}): IdentityParts {
  const sessions = new SessionStore(opts.store, opts.nodeSecret, opts.config.identitySessionTtlSeconds * 1000);
  return {
    identity: new IdentityService({ crypto: opts.crypto, sessions, network: opts.config.network, log: opts.log, ...(opts.blockHeight ? { blockHeight: opts.blockHeight } : {}) }),
    jwt: new JwtVerifier(opts.crypto, {
      network: opts.config.network,
      derivedKeyAuthorizer: opts.derivedKeyAuthorizer ?? NO_DERIVED_KEYS,
    }),
  };
}
