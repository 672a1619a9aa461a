/**
 * CryptoService on the calling thread: the same packing and the same task functions as the
 * pool, without workers. It blocks the event loop for the whole batch, so the server uses it
 * only for tests and tools; it is also the reference the pool is checked against.
 * @module
 */
import { TASKS } from '../../workers/tasks/index.js';
import type { TaskName } from '../../workers/types.js';
import { PoolError } from './errors.js';
import { BatchCrypto } from './service.js';

export class InlineCrypto extends BatchCrypto {
  private closed = false;

  protected async submit(task: TaskName, encode: () => Uint8Array, signal?: AbortSignal): Promise<Uint8Array> {
    if (this.closed) throw new PoolError('POOL_CLOSED', 'inline crypto is closed');
    // A scan cannot be interrupted on this thread; an already-aborted one does not start.
    signal?.throwIfAborted();
    return TASKS[task](encode());
  }

  canAcceptWork(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
