/**
 * Credentials as the SDK sends them: a JWT the SDK signs for a key pair, and an admin route's
 * body carrying `AdminPublicKey` and that JWT.
 */
import { getSignedJWT } from 'deso-protocol';
import type { J, KeyPair } from './chainNode.js';

export const sdkJwt = (k: KeyPair): Promise<string> => getSignedJWT(k.seedHex, 'ES256', {});

export const adminBody = async (k: KeyPair, body: J): Promise<J> => ({ AdminPublicKey: k.pk, JWT: await sdkJwt(k), ...body });
