/**
 * A CryptoService that coalesces the per-item operations of concurrent requests (signature
 * checks, public-key recovery, signing, ECDH, message encryption) into pool batches through
 * MicroBatcher. A burst of identity requests, each signing one JWT or transaction, then costs a few pool tasks
 * instead of one task each, and no longer overflows the pool's queue of tasks (maxQueue counts
 * batches, not items). Batch-shaped calls (`decryptMessages`, `hashHeaders`, `merklePath`, `mine`) already
 * are one task and pass straight through.
 * @module
 */
import type { WorkResult } from '../../workers/types.js';
import { createVerifyBatcher, MicroBatcher, type BatcherOptions } from './batcher.js';
import type { DecryptRequest, EcdhItem, EncryptItem, MineRequest, MineResult, RecoverableSignature, RecoverItem, SignItem, VerifyItem } from './pack.js';
import type { CryptoService } from './service.js';

export class BatchingCrypto implements CryptoService {
  private readonly verify: MicroBatcher<VerifyItem, boolean>;
  private readonly recover: MicroBatcher<RecoverItem, Uint8Array>;
  private readonly signer: MicroBatcher<SignItem, RecoverableSignature>;
  private readonly ecdhBatch: MicroBatcher<EcdhItem, Uint8Array>;
  private readonly encrypt: MicroBatcher<EncryptItem, Uint8Array>;

  constructor(
    /** The service that runs the batches (the pool). Closing this closes it. */
    readonly inner: CryptoService,
    opts: Partial<BatcherOptions> = {},
  ) {
    this.verify = createVerifyBatcher(inner, opts);
    this.recover = new MicroBatcher((items) => inner.recoverPublicKeys(items), opts);
    this.signer = new MicroBatcher((items) => inner.sign(items), opts);
    this.ecdhBatch = new MicroBatcher((items) => inner.ecdh(items), opts);
    this.encrypt = new MicroBatcher((items) => inner.encryptMessages(items), opts);
  }

  verifySignatures(items: readonly VerifyItem[]): Promise<WorkResult<boolean>[]> {
    return Promise.all(items.map((it) => this.verify.submit(it)));
  }

  recoverPublicKeys(items: readonly RecoverItem[]): Promise<WorkResult<Uint8Array>[]> {
    return Promise.all(items.map((it) => this.recover.submit(it)));
  }

  sign(items: readonly SignItem[]): Promise<WorkResult<RecoverableSignature>[]> {
    return Promise.all(items.map((it) => this.signer.submit(it)));
  }

  ecdh(items: readonly EcdhItem[]): Promise<WorkResult<Uint8Array>[]> {
    return Promise.all(items.map((it) => this.ecdhBatch.submit(it)));
  }

  encryptMessages(items: readonly EncryptItem[]): Promise<WorkResult<Uint8Array>[]> {
    return Promise.all(items.map((it) => this.encrypt.submit(it)));
  }

  decryptMessages(req: DecryptRequest): Promise<WorkResult<Uint8Array>[]> {
    return this.inner.decryptMessages(req);
  }

  hashHeaders(headers: readonly Uint8Array[]): Promise<Uint8Array[]> {
    return this.inner.hashHeaders(headers);
  }

  merklePath(otherLeaves: readonly Uint8Array[]): Promise<Uint8Array[]> {
    return this.inner.merklePath(otherLeaves);
  }

  mine(req: MineRequest, signal?: AbortSignal): Promise<MineResult> {
    return this.inner.mine(req, signal);
  }

  canAcceptWork(): boolean {
    return this.inner.canAcceptWork();
  }

  /** Sends what is waiting, then closes the inner service (which settles it). */
  async close(): Promise<void> {
    for (const b of [this.verify, this.recover, this.signer, this.ecdhBatch, this.encrypt]) b.flush(true);
    await this.inner.close();
  }
}
