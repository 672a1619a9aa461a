// server/http/jsonText.ts: client JSON read as Go's encoding/json reads it, unpaired UTF-16
// surrogates becoming U+FFFD (found by test/e2e/fuzz.e2e.test.ts: they reached store keys).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseJsonText } from '../../server/http/jsonText.js';

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('parseJsonText', () => {
  it('replaces an unpaired surrogate by U+FFFD in strings, nested values and keys', () => {
    assert.equal(parseJsonText('"a\\ud800b"'), 'a\ufffdb');
    assert.deepEqual(parseJsonText('{"k\\udc00":["\\ud800",{"x":"\\udbff"}],"n":1}'), { 'k\ufffd': ['\ufffd', { x: '\ufffd' }], n: 1 });
  });

  it('keeps surrogate pairs, escaped backslashes and values without escapes as JSON.parse reads them', () => {
    assert.equal(parseJsonText('"\\ud83d\\ude00"'), '\u{1f600}');
    assert.equal(parseJsonText('"\\\\ud800"'), '\\ud800', 'an escaped backslash followed by "ud800" is text, not an escape');
    assert.deepEqual(parseJsonText('{"a":[1,true,null,"x"]}'), { a: [1, true, null, 'x'] });
  });

  it('keeps a "__proto__" key an own field when it rewrites its value', () => {
    const v = parseJsonText('{"__proto__":"\\ud800"}') as Record<string, unknown>;
    assert.ok(Object.hasOwn(v, '__proto__'), '__proto__ stays an own property');
    assert.equal(Object.getPrototypeOf(v), Object.prototype, 'the prototype is untouched');
    assert.equal(v['__proto__'], '\ufffd');
  });

  it('reads deeply nested text without recursion', () => {
    const depth = 100_000;
    const v = parseJsonText(`${'['.repeat(depth)}"\\ud800"${']'.repeat(depth)}`);
    let x: unknown = v;
    for (let i = 0; i < depth; i++) x = (x as unknown[])[0];
    assert.equal(x, '\ufffd');
  });

  it('never leaves an unpaired surrogate, and otherwise equals JSON.parse (random JSON)', () => {
    const hasLone = (v: unknown): boolean =>
      typeof v === 'string' ? LONE.test(v) : v !== null && typeof v === 'object' ? Object.entries(v).some(([k, x]) => LONE.test(k) || hasLone(x)) : false;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.string({ unit: 'binary', maxLength: 10 }), (value, s) => {
        const text = JSON.stringify([value, s, { [s]: s }]);
        const parsed = parseJsonText(text);
        assert.ok(!hasLone(parsed), `no unpaired surrogate left in ${text}`);
        if (!hasLone(JSON.parse(text))) assert.deepEqual(parsed, JSON.parse(text), 'well-formed text reads as JSON.parse reads it');
      }),
      { seed: 8, numRuns: 300 },
    );
  });

  it('throws SyntaxError on text that is not JSON', () => {
    assert.throws(() => parseJsonText('{"a":'), SyntaxError);
  });
});
