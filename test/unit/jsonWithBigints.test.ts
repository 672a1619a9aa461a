import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringifyWithBigints } from '../../server/http/jsonWithBigints.js';

/** The reference: JSON.stringify with bigints marked, then unquoted (what the router did before). */
function reference(value: unknown): string {
  const mark = '\u0000big:';
  return JSON.stringify(value, (_k, x: unknown) => (typeof x === 'bigint' ? `${mark}${x}` : x)).replace(/"\\u0000big:(-?\d+)"/g, '$1');
}

/** Random JSON-ish values: plain data with bigints, and the odd value JSON treats specially. */
function randomValue(rand: () => number, depth: number): unknown {
  const pick = Math.floor(rand() * (depth > 3 ? 9 : 12));
  const strings = ['', 'a', 'é"\\\n\u0001', '😀', '\ud800', '__proto__', '1', 'toJSON'];
  switch (pick) {
    case 0: return null;
    case 1: return rand() < 0.5;
    case 2: return [0, -0, 1.5, -7, 1e21, 2 ** 53, NaN, Infinity, -Infinity][Math.floor(rand() * 9)];
    case 3: return BigInt(Math.floor(rand() * 1e6)) * (rand() < 0.5 ? -1n : 1n) * 10n ** BigInt(Math.floor(rand() * 20));
    case 4: return strings[Math.floor(rand() * strings.length)];
    case 5: return undefined;
    case 6: return () => 1;
    case 7: return new Date(Math.floor(rand() * 1e12));
    case 8: return Symbol('s');
    case 9: return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
    default: {
      const o: Record<string, unknown> = rand() < 0.1 ? Object.create(null) : {};
      for (let i = Math.floor(rand() * 5); i > 0; i--) o[strings[Math.floor(rand() * strings.length)]! + (rand() < 0.3 ? String(i) : '')] = randomValue(rand, depth + 1);
      if (rand() < 0.05) o['99'] = 'integer key first';
      return o;
    }
  }
}

describe('stringifyWithBigints', () => {
  it('writes bigints as JSON numbers, the rest as JSON.stringify', () => {
    assert.equal(stringifyWithBigints({ a: 1n, b: [2n, -3n], c: 'x', d: undefined, e: 12345678901234567890n }), '{"a":1,"b":[2,-3],"c":"x","e":12345678901234567890}');
    assert.equal(stringifyWithBigints({ when: new Date(0), buf: Buffer.from([1]), n: null }), '{"when":"1970-01-01T00:00:00.000Z","buf":{"type":"Buffer","data":[1]},"n":null}');
  });

  it('matches the replacer form on 5,000 random values', () => {
    let seed = 42;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 5_000; i++) {
      const v = { body: randomValue(rand, 0) };
      // Either both answer the same text or both throw (a '__proto__' key can make an object a
      // Date's heir, whose toJSON then throws).
      const outcome = (f: () => string): string => {
        try {
          return f();
        } catch (e) {
          return `threw ${(e as Error).constructor.name}`;
        }
      };
      assert.equal(outcome(() => stringifyWithBigints(v)), outcome(() => reference(v)), `value #${i}`);
    }
  });

  it('throws on a cycle rather than answering', () => {
    const o: Record<string, unknown> = {};
    o['self'] = o;
    assert.throws(() => stringifyWithBigints(o));
  });
});
