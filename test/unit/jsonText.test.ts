// server/jsonText.ts: client JSON read as Go's encoding/json reads it, unpaired UTF-16
// surrogates becoming U+FFFD (found by test/e2e/fuzz.e2e.test.ts: they reached store keys);
// server/jsonDepth.ts: nesting bounded before JSON.parse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseJsonText } from '../../server/jsonText.js';
import { assertJsonDepth, JsonTooDeepError, MAX_JSON_DEPTH } from '../../server/jsonDepth.js';

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

  it('reads text nested as deep as allowed', () => {
    const depth = MAX_JSON_DEPTH;
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

describe('assertJsonDepth', () => {
  const nest = (depth: number, open = '[', close = ']', inner = '0'): string => open.repeat(depth) + inner + close.repeat(depth);

  it(`passes ordinary bodies and nesting up to ${MAX_JSON_DEPTH}`, () => {
    for (const text of ['{}', '[]', '0', '"x"', '{"a":[1,{"b":[null]}],"c":"d"}', nest(MAX_JSON_DEPTH), nest(MAX_JSON_DEPTH, '{"a":', '}')]) {
      assert.doesNotThrow(() => assertJsonDepth(text), text.slice(0, 40));
    }
    // Siblings do not add up: depth is nesting, not the number of brackets.
    assert.doesNotThrow(() => assertJsonDepth(`[${Array.from({ length: 1000 }, () => nest(MAX_JSON_DEPTH - 1)).join(',')}]`));
  });

  it(`refuses nesting past ${MAX_JSON_DEPTH}, of arrays, objects or both`, () => {
    for (const text of [nest(MAX_JSON_DEPTH + 1), nest(MAX_JSON_DEPTH + 1, '{"a":', '}'), nest(40, '[{"a":', '}]'), '['.repeat(1 << 20), `{"a":"]]]",${nest(MAX_JSON_DEPTH)}}`]) {
      assert.throws(() => assertJsonDepth(text), JsonTooDeepError, text.slice(0, 40));
    }
    assert.throws(() => parseJsonText(nest(MAX_JSON_DEPTH + 1)), (e: unknown) => e instanceof JsonTooDeepError && e instanceof SyntaxError && /more than 64 deep/.test(e.message));
  });

  it('ignores brackets inside strings, escaped quotes and backslashes included', () => {
    const deepString = JSON.stringify('['.repeat(10_000) + '{'.repeat(10_000));
    assert.doesNotThrow(() => assertJsonDepth(`{"k":${deepString},"\\"[[[":"\\\\",${deepString}:[${deepString}]}`));
    // An escaped quote does not end the string; an escaped backslash before the quote does.
    assert.doesNotThrow(() => assertJsonDepth(`["\\"${'['.repeat(100)}"]`));
    assert.throws(() => assertJsonDepth(`["\\\\"${'['.repeat(100)}]`), JsonTooDeepError);
    // Keys too.
    assert.doesNotThrow(() => assertJsonDepth(`{${JSON.stringify('{'.repeat(100))}:1}`));
  });

  it('agrees with the depth JSON.parse sees (random JSON)', () => {
    const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 8 }), (value, max) => {
        const text = JSON.stringify(value);
        if (depthOf(value) > max) assert.throws(() => assertJsonDepth(text, max), JsonTooDeepError, text);
        else assert.doesNotThrow(() => assertJsonDepth(text, max), text);
      }),
      { seed: 17, numRuns: 500 },
    );
  });
});
