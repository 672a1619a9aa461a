// PoolError → HTTP in the one mapper (server/http/errors.ts): overload, shutdown and worker
// death are 503 + Retry-After with a message that leaks nothing; a task bug stays a 500.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { isPoolError, PoolError, type PoolErrorCode } from '../../server/crypto/errors.js';
import { toErrorReply } from '../../server/http/errors.js';

const log = pino({ level: 'silent' });

describe('toErrorReply for PoolError', () => {
  const unavailable: Array<[PoolErrorCode, RegExp]> = [
    ['POOL_BUSY', /^server busy: crypto work queue is full, try again shortly$/],
    ['POOL_CLOSED', /^server shutting down, try again shortly$/],
    ['POOL_WORKER_DIED', /^crypto worker failed, try again shortly$/],
  ];
  for (const [code, message] of unavailable) {
    it(`${code} → 503 with Retry-After: 1`, () => {
      const reply = toErrorReply(new PoolError(code, 'internal detail: 64 batches queued'), log);
      assert.equal(reply.status, 503);
      assert.deepEqual(reply.headers, { 'Retry-After': '1' });
      assert.match(reply.message, message);
    });
  }

  it('POOL_TASK_FAILED is a bug: bare 500, its message kept out of the body', () => {
    const reply = toErrorReply(new PoolError('POOL_TASK_FAILED', 'crypto task sign failed: secret detail'), log);
    assert.deepEqual(reply, { status: 500, message: 'internal server error', headers: {} });
  });

  it('isPoolError tells PoolError from other errors', () => {
    assert.equal(isPoolError(new PoolError('POOL_BUSY', 'x')), true);
    assert.equal(isPoolError(Object.assign(new Error('x'), { code: 'POOL_BUSY' })), false);
    assert.equal(isPoolError(undefined), false);
  });
});
