/**
 * Every task by name, as pure functions over bytes (request → reply, layouts in
 * workers/types.ts). The worker module and InlineCrypto both dispatch through here.
 * @module
 */
import type { TaskName } from '../types.js';
import { decryptMessages } from './decryptMessages.js';
import { ecdh } from './ecdh.js';
import { encryptMessages } from './encryptMessages.js';
import { hashHeaders } from './hashHeaders.js';
import { merklePath } from './merklePath.js';
import { mineNonces } from './mineNonces.js';
import { recoverPublicKeys } from './recoverPublicKeys.js';
import { sign } from './sign.js';
import { verifySignatures } from './verifySignatures.js';

export type Task = (request: Uint8Array) => Uint8Array;

export const TASKS: Readonly<Record<TaskName, Task>> = {
  verifySignatures,
  recoverPublicKeys,
  hashHeaders,
  merklePath,
  mineNonces,
  sign,
  ecdh,
  decryptMessages,
  encryptMessages,
};
