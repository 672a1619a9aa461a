// The identity frame envelope (spec §4.1): requests parse, and every malformed one becomes an
// error response that keeps the request id whenever it was readable.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { IDENTITY_METHODS, MAX_ID_LENGTH, parseFrame, type ParsedFrame } from '../../server/identity/frames.js';

function failure(p: ParsedFrame): { id: string | null; error: string } {
  assert.equal(p.ok, false, 'expected a malformed frame');
  if (p.ok) throw new Error('unreachable');
  assert.equal(p.response.service, 'identity');
  return { id: p.response.id, error: String(p.response.payload.error) };
}

describe('parseFrame', () => {
  it('accepts every method with its payload, from text or a parsed value', () => {
    for (const method of IDENTITY_METHODS) {
      const frame = { id: 'a1', service: 'identity', method, payload: { x: 1 } };
      for (const input of [JSON.stringify(frame), frame]) {
        const p = parseFrame(input);
        assert.ok(p.ok, `${method} parses`);
        assert.deepEqual(p.request, { id: 'a1', method, payload: { x: 1 } });
      }
    }
  });

  it('treats a missing payload as empty (jwt for owner keys has none)', () => {
    const p = parseFrame({ id: 'j', service: 'identity', method: 'jwt' });
    assert.ok(p.ok, 'parses');
    assert.deepEqual(p.request.payload, {});
  });

  it('keeps the id in the error of a frame whose other fields are wrong', () => {
    assert.deepEqual(failure(parseFrame({ id: 'k', service: 'other', method: 'sign' })), { id: 'k', error: '"service" expected "identity"' });
    assert.match(failure(parseFrame({ id: 'k', service: 'identity', method: 'steal' })).error, /^"method" expected one of login, /);
    assert.deepEqual(failure(parseFrame({ id: 'k', service: 'identity', method: 'sign', payload: [1] })), { id: 'k', error: '"payload" expected an object' });
  });

  it('answers with a null id when none was readable', () => {
    assert.match(failure(parseFrame('{"id": ')).error, /^malformed JSON/);
    assert.equal(failure(parseFrame('[1]')).id, null);
    assert.deepEqual(failure(parseFrame({ id: 5, service: 'identity', method: 'jwt' })), { id: null, error: '"id" expected a non-empty string' });
    assert.deepEqual(failure(parseFrame({ id: 'x'.repeat(MAX_ID_LENGTH + 1), service: 'identity', method: 'jwt' })), {
      id: null,
      error: `"id" expected at most ${MAX_ID_LENGTH} characters, got ${MAX_ID_LENGTH + 1}`,
    });
  });
});
