/**
 * The Redis commit script's argument (server/store/luaPayload.ts): every field of a commit as
 * one msgpack array of byte strings, built on the event loop for every admission batch and
 * every block (a block of ~250 transfers is ~9,600 fields). Fields shaped like a block's:
 * store keys (the key prefix and kind, then a name of 10-70 characters), index members, small
 * encoded values; the strings of mixed representations (cons, sliced, flat), as keys built
 * per request are. Against msgpackr packing the same fields as one array of strings (each key
 * concatenated first), and against the same writer copying every string char by char (what
 * it did before strings of 32 characters or more went to Buffer.write).
 *
 * Last results, 2026-11-27, Node v20.20.2, 2-core Intel Xeon, `npx tsx bench/luaPayload.bench.ts`:
 * see the closing note of issue 18.
 * @module
 */
import { pathToFileURL } from 'node:url';
import { Packr } from 'msgpackr';
import { Bench } from 'tinybench';
import { LuaPayload } from '../server/store/luaPayload.js';
import { printResults, ratioLine, roundOptions, runRounds } from './_shared.js';
import { absoluteFigure, type Figure } from './figures.js';

const FIELDS = 9_600;
const BENCH_OPTIONS = roundOptions({ time: 1_000, warmupTime: 250 });

/** Deterministic base64url-like names of `length` characters. */
function names(count: number, seed: number, minLength: number, maxLength: number): string[] {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let x = seed;
  const next = (n: number): number => ((x = (x * 1_103_515_245 + 12_345) % 2 ** 31), x % n);
  return Array.from({ length: count }, () => {
    let s = '';
    for (let len = minLength + next(maxLength - minLength + 1); s.length < len; ) s += alphabet[next(alphabet.length)];
    return s;
  });
}

type Field = { kind: 'key'; name: string } | { kind: 'text'; text: string } | { kind: 'bytes'; bytes: Uint8Array };

/**
 * The strings as the node has them: built by concatenation (cons strings), cut from longer ones
 * (sliced) or flat, mixed; a writer that reads them char by char sees every representation.
 */
function asTheNodeHasThem(list: readonly string[]): string[] {
  const long = list.join('');
  let at = 0;
  return list.map((s, i) => {
    const start = at;
    at += s.length;
    if (i % 3 === 0) return s;
    if (i % 3 === 1) return long.slice(start, at);
    const cut = s.length >> 1;
    return s.slice(0, cut) + s.slice(cut);
  });
}

/** A block commit's mix: per op a code, a key and a value or members. */
function blockFields(): Field[] {
  const keys = asTheNodeHasThem(names(FIELDS, 1, 10, 70));
  const members = asTheNodeHasThem(names(FIELDS, 2, 7, 64));
  const fields: Field[] = [];
  for (let i = 0; fields.length < FIELDS; i++) {
    fields.push({ kind: 'text', text: i % 3 === 0 ? 'a' : 's' }, { kind: 'key', name: keys[i]! });
    if (i % 3 === 0) fields.push({ kind: 'text', text: '1' }, { kind: 'text', text: members[i]! });
    else fields.push({ kind: 'bytes', bytes: new Uint8Array(1 + (i % 40)).fill(i & 0xff) }, { kind: 'text', text: '' });
  }
  return fields;
}

export async function run(): Promise<Figure[]> {
  const fields = blockFields();
  const packr = new Packr({ useRecords: false });
  let sink = 0;
  const write = (p: LuaPayload): Buffer => {
    for (const f of fields) {
      if (f.kind === 'key') p.joined('sn:', 'v:', f.name);
      else if (f.kind === 'text') p.text(f.text);
      else p.bytes(f.bytes);
    }
    return p.finish();
  };
  const bench = new Bench({ name: `a commit payload of ${FIELDS.toLocaleString('en-US')} fields (a ~250-transfer block)`, ...BENCH_OPTIONS });
  bench
    .add('ours: LuaPayload', () => {
      sink += write(new LuaPayload()).length;
    })
    .add('char by char', () => {
      sink += write(new LuaPayload(Infinity)).length;
    })
    .add('msgpackr: pack(strings)', () => {
      const list = fields.map((f) => (f.kind === 'key' ? 'sn:' + 'v:' + f.name : f.kind === 'text' ? f.text : f.bytes));
      sink += packr.pack(list).length;
    });
  const r = await runRounds(bench);
  printResults(bench.name ?? '', bench);
  if (sink === 0) throw new Error('luaPayload.bench: tasks produced no results');
  console.log('');
  return [
    ratioLine('LuaPayload / msgpackr', 'luaPayloadVsMsgpackr', r, 'ours: LuaPayload', 'msgpackr: pack(strings)'),
    ratioLine('LuaPayload / char by char', 'luaPayloadVsCharByChar', r, 'ours: LuaPayload', 'char by char'),
    absoluteFigure('luaPayloadBlocksPerSec', r.opsPerSec('ours: LuaPayload'), 'payloads/s'),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
