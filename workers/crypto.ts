/**
 * The crypto pool's worker module: one named export per task (`pool.run(bytes, { name })`),
 * each taking the moved request buffer and moving its reply back. The tasks themselves are
 * pure functions in workers/tasks/, callable inline on the main thread; this file only adds
 * the transfer.
 * @module
 */
import { move } from 'piscina';
import { TASKS } from './tasks/index.js';

/** The reply's buffer is transferred, not copied: each task returns a fresh, exactly-sized one. */
function reply(bytes: Uint8Array): Uint8Array {
  return move(bytes) as Uint8Array;
}

export function verifySignatures(request: Uint8Array): Uint8Array {
  return reply(TASKS.verifySignatures(request));
}

export function recoverPublicKeys(request: Uint8Array): Uint8Array {
  return reply(TASKS.recoverPublicKeys(request));
}

export function hashHeaders(request: Uint8Array): Uint8Array {
  return reply(TASKS.hashHeaders(request));
}

export function merklePath(request: Uint8Array): Uint8Array {
  return reply(TASKS.merklePath(request));
}

export function mineNonces(request: Uint8Array): Uint8Array {
  return reply(TASKS.mineNonces(request));
}

export function sign(request: Uint8Array): Uint8Array {
  return reply(TASKS.sign(request));
}

export function ecdh(request: Uint8Array): Uint8Array {
  return reply(TASKS.ecdh(request));
}

export function decryptMessages(request: Uint8Array): Uint8Array {
  return reply(TASKS.decryptMessages(request));
}

export function encryptMessages(request: Uint8Array): Uint8Array {
  return reply(TASKS.encryptMessages(request));
}
