/**
 * The crypto operations the node needs, over batches, as one interface with two
 * implementations: CryptoPool (worker threads, the server's) and InlineCrypto (the calling
 * thread: tests, tools, a no-pool fallback). Both pack and unpack through pack.ts and run the
 * same pure task functions, so they give the same results byte for byte.
 * @module
 */
import { HASH_BYTES, type TaskName, type WorkResult } from '../../workers/types.js';
import {
  packDecryptRequest,
  packEcdhItems,
  packEncryptItems,
  packHashes,
  packHeaders,
  packMineRequest,
  packRecoverItems,
  packSignItems,
  packVerifyItems,
  unpackEcdhReply,
  unpackEncryptReply,
  unpackMessageReply,
  unpackHashes,
  unpackMineReply,
  unpackRecoverReply,
  unpackSignReply,
  unpackVerifyReply,
  type DecryptRequest,
  type EcdhItem,
  type EncryptItem,
  type MineRequest,
  type MineResult,
  type PackedBatch,
  type RecoverableSignature,
  type RecoverItem,
  type SignItem,
  type VerifyItem,
} from './pack.js';

/**
 * Most ciphertexts in one decrypt task. A big decrypt request is split into tasks of this size
 * that run side by side on every worker instead of holding one worker for its whole length, and
 * other callers' tasks queue between them: 128 V3 messages are ~10 ms of one core, so a small
 * call waits behind at most that much of a big one per worker. Smaller chunks add a transfer
 * and a queue slot each (the pool's maxQueue counts tasks).
 */
export const DECRYPT_CHUNK = 128;

export interface CryptoService {
  /** One result per item, in order; an item with a wrong-length field is refused alone. */
  verifySignatures(items: readonly VerifyItem[]): Promise<WorkResult<boolean>[]>;
  /** The 33-byte public key each compact signature recovers to, one result per item. */
  recoverPublicKeys(items: readonly RecoverItem[]): Promise<WorkResult<Uint8Array>[]>;
  /** DeSoHashV1 of each 100-byte v1 header. */
  hashHeaders(headers: readonly Uint8Array[]): Promise<Uint8Array[]>;
  /**
   * The merkle path of a block's first leaf over its other leaves (32-byte txn hashes), leaf
   * level first: with it each header of a template costs one hash per level (merkle.ts).
   */
  merklePath(otherLeaves: readonly Uint8Array[]): Promise<Uint8Array[]>;
  /** The first nonce in [startNonce, startNonce + count) whose header hash is <= target. */
  mine(req: MineRequest, signal?: AbortSignal): Promise<MineResult>;
  /** Compact low-S signatures with recovery ids, one result per item. */
  sign(items: readonly SignItem[]): Promise<WorkResult<RecoverableSignature>[]>;
  /** 32-byte shared secrets (x coordinate of privateKey × publicKey), one result per item. */
  ecdh(items: readonly EcdhItem[]): Promise<WorkResult<Uint8Array>[]>;
  /** Message ECIES decryption of a batch with one key (V1, or V2 with otherPublicKey), one result per ciphertext. */
  decryptMessages(req: DecryptRequest): Promise<WorkResult<Uint8Array>[]>;
  /** Message ECIES encryption (V1, or V2 with senderPrivateKey), one result per item. */
  encryptMessages(items: readonly EncryptItem[]): Promise<WorkResult<Uint8Array>[]>;
  /** False when new work would be refused (queue full, or closed). */
  canAcceptWork(): boolean;
  close(): Promise<void>;
}

/**
 * The typed methods, written once over `submit`, which runs one task on one packed request.
 * `encode` is called once per attempt: a request buffer moved to a worker is gone, so a retry
 * packs afresh.
 */
export abstract class BatchCrypto implements CryptoService {
  protected abstract submit(task: TaskName, encode: () => Uint8Array, signal?: AbortSignal): Promise<Uint8Array>;
  abstract canAcceptWork(): boolean;
  abstract close(): Promise<void>;

  verifySignatures(items: readonly VerifyItem[]): Promise<WorkResult<boolean>[]> {
    return this.runBatch('verifySignatures', () => packVerifyItems(items), unpackVerifyReply);
  }

  recoverPublicKeys(items: readonly RecoverItem[]): Promise<WorkResult<Uint8Array>[]> {
    return this.runBatch('recoverPublicKeys', () => packRecoverItems(items), unpackRecoverReply);
  }

  async hashHeaders(headers: readonly Uint8Array[]): Promise<Uint8Array[]> {
    if (headers.length === 0) return [];
    const reply = await this.submit('hashHeaders', () => packHeaders(headers));
    return unpackHashes(headers.length, reply);
  }

  async merklePath(otherLeaves: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const reply = await this.submit('merklePath', () => packHashes(otherLeaves));
    return unpackHashes(Math.floor(reply.length / HASH_BYTES), reply, 'merklePath');
  }

  async mine(req: MineRequest, signal?: AbortSignal): Promise<MineResult> {
    return unpackMineReply(await this.submit('mineNonces', () => packMineRequest(req), signal));
  }

  sign(items: readonly SignItem[]): Promise<WorkResult<RecoverableSignature>[]> {
    return this.runBatch('sign', () => packSignItems(items), unpackSignReply);
  }

  ecdh(items: readonly EcdhItem[]): Promise<WorkResult<Uint8Array>[]> {
    return this.runBatch('ecdh', () => packEcdhItems(items), unpackEcdhReply);
  }

  async decryptMessages(req: DecryptRequest): Promise<WorkResult<Uint8Array>[]> {
    if (req.ciphertexts.length === 0) return [];
    // Validate (and throw) here, before anything is queued.
    packDecryptRequest({ ...req, ciphertexts: [] }).fill(0);
    const chunks: Array<readonly Uint8Array[]> = [];
    for (let i = 0; i < req.ciphertexts.length; i += DECRYPT_CHUNK) chunks.push(req.ciphertexts.slice(i, i + DECRYPT_CHUNK));
    const replies = await Promise.all(
      chunks.map(async (ciphertexts) => {
        const reply = await this.submit('decryptMessages', () => packDecryptRequest({ ...req, ciphertexts }));
        return unpackMessageReply(ciphertexts.length, reply);
      }),
    );
    return replies.flat();
  }

  encryptMessages(items: readonly EncryptItem[]): Promise<WorkResult<Uint8Array>[]> {
    return this.runBatch('encryptMessages', () => packEncryptItems(items), unpackEncryptReply);
  }

  /** Packs (refusing malformed items), runs the well-formed ones, merges both back in order. */
  private async runBatch<T>(
    task: TaskName,
    pack: () => PackedBatch,
    unpack: (batch: PackedBatch, reply: Uint8Array) => WorkResult<T>[],
  ): Promise<WorkResult<T>[]> {
    let batch = pack();
    if (batch.indices.length === 0) return unpack(batch, new Uint8Array(0));
    let first = true;
    const reply = await this.submit(task, () => {
      if (!first) batch = pack();
      first = false;
      return batch.bytes;
    });
    return unpack(batch, reply);
  }
}
