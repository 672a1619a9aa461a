/**
 * Block-level primitives of the PoW dev chain (server/chain/block/): the 100-byte v1 header
 * codec and its DeSoHashV1 hash (against shared/vectors/desohash.json and the plain-TS port),
 * the Merkle root (against a recursive node:crypto reference), difficulty retargeting (hand
 * cases plus the sequences of core's TestCalcNextDifficultyTarget* tests), the reward schedule at
 * every boundary, and that the dev min target is minable by scanning nonces.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { desoHashV1 as desoHashV1Port } from '../../bench/baselines/desoHashV1.js';
import { mineDesoHashV1 } from '../../wasm/hash.js';
import {
  bigintToTarget,
  expectedHashes,
  nextTarget,
  nextTargetSync,
  retarget,
  targetToBigint,
  type TargetTip,
} from '../../server/chain/block/difficulty.js';
import { BlockError, isBlockError, type BlockErrorCode } from '../../server/chain/block/errors.js';
import {
  decodeHeader,
  encodeHeader,
  HEADER_BYTES,
  HEADER_OFFSETS,
  hashMeetsTarget,
  headerHash,
  type BlockHeader,
} from '../../server/chain/block/header.js';
import { merkleRoot, merkleRootOfTxns } from '../../server/chain/block/merkle.js';
import {
  blockRewardMaturityBlocks,
  blocksPerRetarget,
  DEV_CHAIN_PARAMS,
  MAINNET_PARAMS,
  minDifficultyTarget,
  TESTNET_PARAMS,
  type ChainParams,
} from '../../server/chain/block/params.js';
import { blockRewardNanos, BLOCKS_PER_YEAR } from '../../server/chain/block/reward.js';
import { encodeTxn, txnHash } from '../../server/chain/txn/envelope.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

const U32 = 1n << 32n;
const U64 = 1n << 64n;

/** assert.throws matcher for a BlockError with this code. */
function blockError(code: BlockErrorCode): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof BlockError, `expected a BlockError, got ${String(e)}`);
    assert.equal(e.code, code);
    return true;
  };
}

function sampleHeader(over: Partial<BlockHeader> = {}): BlockHeader {
  return {
    version: 1,
    prevBlockHash: new Uint8Array(32).fill(0x11),
    transactionMerkleRoot: new Uint8Array(32).fill(0x22),
    tstampSecs: 0x01020304n,
    height: 0x0a0b0c0dn,
    nonce: 0x0102030405060708n,
    extraNonce: 0xf1f2f3f4f5f6f7f8n,
    ...over,
  };
}

/** The header bytes with the u64 at `offset` overwritten. */
function withU64(bytes: Uint8Array, offset: number, value: bigint): Uint8Array {
  const out = Uint8Array.from(bytes);
  new DataView(out.buffer).setBigUint64(offset, value, false);
  return out;
}

describe('block header v1', () => {
  it('has the exact §5.5 byte layout (u32be version, hashes, u64be tstamp/height/nonce/extraNonce)', () => {
    const bytes = encodeHeader(sampleHeader());
    assert.equal(bytes.length, HEADER_BYTES);
    const expected =
      '00000001' +
      '11'.repeat(32) +
      '22'.repeat(32) +
      '0000000001020304' +
      '000000000a0b0c0d' +
      '0102030405060708' +
      'f1f2f3f4f5f6f7f8';
    assert.equal(bytesToHex(bytes), expected);
    assert.deepEqual(HEADER_OFFSETS, { version: 0, prevBlockHash: 4, transactionMerkleRoot: 36, tstampSecs: 68, height: 76, nonce: 84, extraNonce: 92 });
    assert.deepEqual(decodeHeader(bytes), sampleHeader());
  });

  it('round-trips random headers (encode → decode → encode)', () => {
    const hash = fc.uint8Array({ minLength: 32, maxLength: 32 });
    const u32 = fc.bigInt({ min: 0n, max: U32 - 1n });
    const u64 = fc.bigInt({ min: 0n, max: U64 - 1n });
    fc.assert(
      fc.property(hash, hash, u32, u32, u64, u64, (prev, root, tstamp, height, nonce, extraNonce) => {
        const h: BlockHeader = { version: 1, prevBlockHash: prev, transactionMerkleRoot: root, tstampSecs: tstamp, height, nonce, extraNonce };
        const bytes = encodeHeader(h);
        const back = decodeHeader(bytes);
        assert.deepEqual(back, h);
        assert.deepEqual(encodeHeader(back), bytes);
      }),
      { numRuns: 1000 },
    );
  });

  it('decodes the extremes: tstamp and height 2^32-1, nonces 2^64-1', () => {
    const h = sampleHeader({ tstampSecs: U32 - 1n, height: U32 - 1n, nonce: U64 - 1n, extraNonce: U64 - 1n });
    assert.deepEqual(decodeHeader(encodeHeader(h)), h);
  });

  it('decode returns copies: reusing the input buffer does not change the header', () => {
    const bytes = encodeHeader(sampleHeader());
    const h = decodeHeader(bytes);
    bytes.fill(0xee);
    assert.deepEqual(h, sampleHeader());
  });

  it('decodes a header that sits inside a larger buffer (subarray with an offset)', () => {
    const big = new Uint8Array(HEADER_BYTES + 7);
    big.set(encodeHeader(sampleHeader()), 5);
    assert.deepEqual(decodeHeader(big.subarray(5, 5 + HEADER_BYTES)), sampleHeader());
  });

  it('decode rejects a wrong length (HEADER_LENGTH)', () => {
    const bytes = encodeHeader(sampleHeader());
    for (const b of [new Uint8Array(0), bytes.subarray(0, 80), bytes.subarray(0, 99), Uint8Array.from([...bytes, 0])]) {
      assert.throws(() => decodeHeader(b), blockError('HEADER_LENGTH'), `${b.length} bytes`);
    }
  });

  it('decode rejects version 0 and any version other than 1 (HEADER_VERSION)', () => {
    for (const version of [0, 2, 0xffffffff]) {
      const bytes = encodeHeader(sampleHeader({ version }));
      assert.throws(() => decodeHeader(bytes), blockError('HEADER_VERSION'), `version ${version}`);
    }
  });

  it('decode rejects tstamp or height >= 2^32 (HEADER_RANGE)', () => {
    const bytes = encodeHeader(sampleHeader());
    for (const v of [U32, U32 + 1n, U64 - 1n]) {
      assert.throws(() => decodeHeader(withU64(bytes, HEADER_OFFSETS.height, v)), blockError('HEADER_RANGE'), `height ${v}`);
      assert.throws(() => decodeHeader(withU64(bytes, HEADER_OFFSETS.tstampSecs, v)), blockError('HEADER_RANGE'), `tstamp ${v}`);
    }
  });

  it('encode refuses out-of-range numbers and wrong hash lengths', () => {
    assert.throws(() => encodeHeader(sampleHeader({ height: U32 })), blockError('HEADER_RANGE'));
    assert.throws(() => encodeHeader(sampleHeader({ tstampSecs: U32 })), blockError('HEADER_RANGE'));
    assert.throws(() => encodeHeader(sampleHeader({ nonce: U64 })), blockError('HEADER_RANGE'));
    assert.throws(() => encodeHeader(sampleHeader({ extraNonce: -1n })), blockError('HEADER_RANGE'));
    assert.throws(() => encodeHeader(sampleHeader({ version: -1 })), blockError('HEADER_RANGE'));
    assert.throws(() => encodeHeader(sampleHeader({ version: 2 ** 32 })), blockError('HEADER_RANGE'));
    assert.throws(() => encodeHeader(sampleHeader({ prevBlockHash: new Uint8Array(31) })), blockError('HEADER_FIELD'));
    assert.throws(() => encodeHeader(sampleHeader({ transactionMerkleRoot: new Uint8Array(33) })), blockError('HEADER_FIELD'));
  });

  it('isBlockError tells codes apart', () => {
    const e = new BlockError('HEADER_LENGTH', 'x');
    assert.equal(isBlockError(e), true);
    assert.equal(isBlockError(e, 'HEADER_LENGTH'), true);
    assert.equal(isBlockError(e, 'HEADER_VERSION'), false);
    assert.equal(isBlockError(new Error('x')), false);
    assert.equal(e.name, 'BlockError');
  });
});

describe('headerHash (DeSoHashV1)', () => {
  interface DesoHashVectors {
    source: string;
    vectors: Array<{ name: string; inputHex: string; inputLen: number; hashV1Hex: string }>;
  }
  const file = readSharedVectors<DesoHashVectors>('desohash.json');
  const headerVectors = file.vectors.filter((v) => v.inputLen === HEADER_BYTES);

  it(`equals the 100-byte vectors of desohash.json (${file.source})`, () => {
    assert.ok(headerVectors.length >= 1, 'the vector file has at least one 100-byte header');
    for (const v of headerVectors) {
      assert.equal(bytesToHex(headerHash(hexToBytes(v.inputHex))), v.hashV1Hex, v.name);
    }
  });

  it('equals the plain-TS DeSoHashV1 port on random encoded headers', () => {
    for (let i = 0; i < 200; i++) {
      const bytes = encodeHeader(sampleHeader({ prevBlockHash: randomBytes(32), nonce: BigInt(i) }));
      assert.deepEqual(headerHash(bytes), desoHashV1Port(bytes), `header ${i}`);
    }
  });

  it('refuses anything but 100 bytes (the vectors of other lengths are not headers)', () => {
    for (const v of file.vectors.filter((x) => x.inputLen !== HEADER_BYTES)) {
      assert.throws(() => headerHash(hexToBytes(v.inputHex)), blockError('HEADER_LENGTH'), v.name);
    }
  });
});

describe('hashMeetsTarget', () => {
  const target = hexToBytes('00ff' + '00'.repeat(29) + '80');

  it('is a big-endian <= comparison', () => {
    assert.equal(hashMeetsTarget(Uint8Array.from(target), target), true, 'equal meets');
    const less = Uint8Array.from(target);
    less[31] = 0x7f;
    assert.equal(hashMeetsTarget(less, target), true, 'last byte lower');
    const more = Uint8Array.from(target);
    more[31] = 0x81;
    assert.equal(hashMeetsTarget(more, target), false, 'last byte higher');
    const firstHigher = new Uint8Array(32);
    firstHigher[0] = 0x01;
    assert.equal(hashMeetsTarget(firstHigher, target), false, 'first byte decides over later ones');
    const firstLower = new Uint8Array(32).fill(0xff);
    firstLower[0] = 0x00;
    firstLower[1] = 0xfe;
    assert.equal(hashMeetsTarget(firstLower, target), true, 'earlier lower byte wins over later higher ones');
    assert.equal(hashMeetsTarget(new Uint8Array(32), new Uint8Array(32)), true, 'zero meets zero');
    assert.equal(hashMeetsTarget(new Uint8Array(32).fill(0xff), new Uint8Array(32).fill(0xff)), true, 'max meets max');
  });

  it('agrees with bigint comparison on random pairs', () => {
    for (let i = 0; i < 500; i++) {
      const a = randomBytes(32);
      const b = Uint8Array.from(a);
      b[i % 32] = randomBytes(1)[0]!;
      assert.equal(hashMeetsTarget(a, b), targetToBigint(a) <= targetToBigint(b), `pair ${i}`);
    }
  });

  it('refuses inputs that are not 32 bytes', () => {
    assert.throws(() => hashMeetsTarget(new Uint8Array(31), target), blockError('TARGET'));
    assert.throws(() => hashMeetsTarget(target, new Uint8Array(33)), blockError('TARGET'));
  });
});

describe('merkleRoot', () => {
  const sha256d = (b: Uint8Array): Uint8Array => {
    const once = createHash('sha256').update(b).digest();
    return new Uint8Array(createHash('sha256').update(once).digest());
  };
  /** Straightforward reference: pad an odd level by repeating the last node, recurse; one leaf still hashes once. */
  function reference(level: Uint8Array[]): Uint8Array {
    const padded = level.length % 2 === 1 ? [...level, level[level.length - 1]!] : level;
    const parents: Uint8Array[] = [];
    for (let i = 0; i < padded.length; i += 2) parents.push(sha256d(Buffer.concat([padded[i]!, padded[i + 1]!])));
    return parents.length === 1 ? parents[0]! : reference(parents);
  }
  const leaves = (n: number): Uint8Array[] => Array.from({ length: n }, (_, i) => sha256d(Uint8Array.of(i)));

  it('one leaf still gets one level: sha256d(h ‖ h)', () => {
    const [h] = leaves(1);
    assert.deepEqual(merkleRoot([h!]), sha256d(Buffer.concat([h!, h!])));
  });

  it('two leaves: sha256d(a ‖ b)', () => {
    const [a, b] = leaves(2);
    assert.deepEqual(merkleRoot([a!, b!]), sha256d(Buffer.concat([a!, b!])));
  });

  it('three leaves duplicate the last at the leaf level', () => {
    const [a, b, c] = leaves(3);
    const ab = sha256d(Buffer.concat([a!, b!]));
    const cc = sha256d(Buffer.concat([c!, c!]));
    assert.deepEqual(merkleRoot([a!, b!, c!]), sha256d(Buffer.concat([ab, cc])));
  });

  for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17]) {
    it(`${n} leaves match the reference`, () => {
      const ls = leaves(n);
      assert.deepEqual(merkleRoot(ls), reference(ls));
    });
  }

  it('is order-sensitive and leaves its input untouched', () => {
    const ls = leaves(4);
    const copy = ls.map((l) => Uint8Array.from(l));
    const root = merkleRoot(ls);
    assert.deepEqual(ls, copy);
    assert.notDeepEqual(merkleRoot([ls[1]!, ls[0]!, ls[2]!, ls[3]!]), root);
  });

  it('refuses an empty list and leaves that are not 32 bytes', () => {
    assert.throws(() => merkleRoot([]), blockError('MERKLE_EMPTY'));
    assert.throws(() => merkleRoot([new Uint8Array(32), new Uint8Array(31)]), blockError('MERKLE_LEAF'));
    assert.throws(() => merkleRootOfTxns([]), blockError('MERKLE_EMPTY'));
  });

  it('merkleRootOfTxns hashes each txn with txnHash (sha256d of its bytes)', () => {
    const txn = (amount: bigint): Uint8Array =>
      encodeTxn({
        inputs: [],
        outputs: [{ publicKey: new Uint8Array(33).fill(2, 0, 1), amountNanos: amount }],
        txnType: 1,
        metadata: Uint8Array.of(0),
        publicKey: new Uint8Array(0),
        extraData: [],
        signature: new Uint8Array(0),
        v1: null,
      });
    const txns = [txn(1_000_000_000n), txn(5n), txn(7n)];
    assert.deepEqual(txnHash(txns[0]!), sha256d(txns[0]!));
    assert.deepEqual(merkleRootOfTxns(txns), reference(txns.map(sha256d)));
  });
});

describe('chain params', () => {
  it('dev chain is regtest-like: 3 blocks per retarget, factor 2, maturity 0, balance model at 1', () => {
    assert.equal(blocksPerRetarget(DEV_CHAIN_PARAMS), 3n);
    assert.equal(DEV_CHAIN_PARAMS.maxDifficultyRetargetFactor, 2n);
    assert.equal(blockRewardMaturityBlocks(DEV_CHAIN_PARAMS), 0n);
    assert.equal(DEV_CHAIN_PARAMS.balanceModelHeight, 1n);
    assert.equal(DEV_CHAIN_PARAMS.maxBlockRewardExtraDataBytes, 250);
    assert.equal(DEV_CHAIN_PARAMS.maxTimestampFutureSecs, 7200n);
    assert.equal(bytesToHex(minDifficultyTarget(DEV_CHAIN_PARAMS)), '0090' + '00'.repeat(30));
  });

  it('expected hashes per block: 455 at the dev/testnet min target, 8,388,672 at mainnet’s', () => {
    assert.equal(expectedHashes(minDifficultyTarget(DEV_CHAIN_PARAMS)), 455n);
    assert.equal(expectedHashes(minDifficultyTarget(MAINNET_PARAMS)), 8_388_672n);
    assert.equal(expectedHashes(new Uint8Array(32).fill(0xff)), 1n);
  });

  it('mainnet and testnet numbers', () => {
    assert.equal(blocksPerRetarget(MAINNET_PARAMS), 288n);
    assert.equal(blockRewardMaturityBlocks(MAINNET_PARAMS), 36n);
    assert.equal(MAINNET_PARAMS.maxDifficultyRetargetFactor, 4n);
    assert.equal(blocksPerRetarget(TESTNET_PARAMS), 3n);
    assert.equal(blockRewardMaturityBlocks(TESTNET_PARAMS), 5n);
  });

  it('the param objects are frozen and minDifficultyTarget returns fresh bytes', () => {
    assert.ok(Object.isFrozen(DEV_CHAIN_PARAMS), 'DEV_CHAIN_PARAMS is frozen');
    const t = minDifficultyTarget(DEV_CHAIN_PARAMS);
    t.fill(0);
    assert.equal(bytesToHex(minDifficultyTarget(DEV_CHAIN_PARAMS)), '0090' + '00'.repeat(30));
  });

  it('unusable difficulty params are refused (PARAMS)', () => {
    assert.throws(() => blocksPerRetarget({ ...DEV_CHAIN_PARAMS, timeBetweenBlocksSecs: 0n }), blockError('PARAMS'));
    assert.throws(() => blocksPerRetarget({ ...DEV_CHAIN_PARAMS, timeBetweenDifficultyRetargetsSecs: 1n }), blockError('PARAMS'));
    assert.throws(() => blocksPerRetarget({ ...DEV_CHAIN_PARAMS, maxDifficultyRetargetFactor: 0n }), blockError('PARAMS'));
    assert.throws(() => blocksPerRetarget({ ...DEV_CHAIN_PARAMS, minDifficultyTargetHex: '00' }), blockError('PARAMS'));
  });
});

describe('difficulty retargeting (§5.7)', () => {
  const devMin = targetToBigint(minDifficultyTarget(DEV_CHAIN_PARAMS));
  const mainMin = targetToBigint(minDifficultyTarget(MAINNET_PARAMS));
  const noLookup = (h: bigint): bigint => assert.fail(`no ancestor lookup expected (asked for ${h})`);
  const tip = (height: bigint, target: bigint, tstampSecs = 1_000_000n): TargetTip => ({ height, target: bigintToTarget(target), tstampSecs });

  it('target bytes ↔ bigint', () => {
    assert.equal(bytesToHex(bigintToTarget(0x0090n << 240n)), '0090' + '00'.repeat(30));
    assert.equal(targetToBigint(bigintToTarget(123456789n)), 123456789n);
    assert.equal(bytesToHex(bigintToTarget(0n)), '00'.repeat(32));
    assert.throws(() => bigintToTarget(1n << 256n), blockError('TARGET'));
    assert.throws(() => bigintToTarget(-1n), blockError('TARGET'));
    assert.throws(() => targetToBigint(new Uint8Array(31)), blockError('TARGET'));
  });

  it('min target while tip.height <= blocksPerRetarget, whatever the tip’s target', () => {
    for (const h of [0n, 1n, 2n, 3n]) {
      assert.equal(targetToBigint(nextTargetSync(DEV_CHAIN_PARAMS, tip(h, 5n), noLookup)), devMin, `dev tip ${h}`);
    }
    for (const h of [0n, 1n, 287n, 288n]) {
      assert.equal(targetToBigint(nextTargetSync(MAINNET_PARAMS, tip(h, 5n), noLookup)), mainMin, `mainnet tip ${h}`);
    }
  });

  it('the parent’s (tip’s) target between retarget points, as a copy', () => {
    for (const h of [4n, 5n, 7n, 8n, 100n]) {
      const t = tip(h, devMin / 7n);
      const next = nextTargetSync(DEV_CHAIN_PARAMS, t, noLookup);
      assert.deepEqual(next, t.target, `dev tip ${h}`);
      assert.notEqual(next, t.target);
    }
    for (const h of [289n, 575n, 577n]) {
      assert.equal(targetToBigint(nextTargetSync(MAINNET_PARAMS, tip(h, 12345n), noLookup)), 12345n, `mainnet tip ${h}`);
    }
  });

  it('retargets at tip.height % bpr == 0 from the ancestor bpr blocks back (dev, T = 6 s, f = 2)', () => {
    const parent = devMin / 8n;
    const cases: Array<[bigint, bigint, string]> = [
      [6n, parent, 'on time: unchanged'],
      [3n, parent / 2n, 'twice too fast: half'],
      [4n, (parent * 4n) / 6n, 'a bit fast: ×4/6'],
      [1n, parent / 2n, '6× too fast: clamped at T/f'],
      [0n, parent / 2n, 'no time at all: clamped'],
      [-5n, parent / 2n, 'tip older than the window start: clamped'],
      [9n, (parent * 9n) / 6n, 'slow: ×9/6'],
      [12n, parent * 2n, 'twice too slow: double'],
      [1000n, parent * 2n, 'very slow: clamped at T·f'],
    ];
    for (const [actual, expected, what] of cases) {
      const calls: bigint[] = [];
      const t = tip(9n, parent, 5_000n);
      const next = nextTargetSync(DEV_CHAIN_PARAMS, t, (h) => {
        calls.push(h);
        return 5_000n - actual;
      });
      assert.equal(targetToBigint(next), expected, what);
      assert.deepEqual(calls, [6n], `${what}: one lookup at tip.height - 3`);
    }
  });

  it('caps the result at the min target (never easier than min)', () => {
    const slow = (): bigint => 0n; // tip tstamp 1,000,000 ⇒ far slower than T·f
    assert.equal(targetToBigint(nextTargetSync(DEV_CHAIN_PARAMS, tip(6n, devMin, 1_000_000n), slow)), devMin, 'min stays min');
    assert.equal(targetToBigint(nextTargetSync(DEV_CHAIN_PARAMS, tip(6n, (devMin * 3n) / 4n, 1_000_000n), slow)), devMin, '×2 of 3/4 min capped');
    assert.equal(targetToBigint(nextTargetSync(DEV_CHAIN_PARAMS, tip(6n, devMin / 4n, 1_000_000n), slow)), devMin / 2n, 'below the cap: doubled');
    // A parent target above min (only a misconfigured store could have one) still comes back capped.
    assert.equal(targetToBigint(nextTargetSync(DEV_CHAIN_PARAMS, tip(6n, devMin * 3n, 1_000_006n), () => 1_000_000n)), devMin, 'above-min parent capped');
  });

  it('dev chain: never harder than its hardest target, however fast the blocks come', () => {
    const hardest = BigInt(`0x${DEV_CHAIN_PARAMS.hardestTargetHex}`);
    assert.equal(expectedHashes(bigintToTarget(hardest)), 7_281n, 'the hardest dev target is ~7,300 hashes');
    let target = devMin;
    for (let window = 0; window < 20; window++) {
      target = targetToBigint(nextTargetSync(DEV_CHAIN_PARAMS, tip(9n, target, 5_000n), () => 5_000n));
      assert.ok(target >= hardest, `window ${window}: ${target} is not harder than the cap`);
    }
    assert.equal(target, hardest, 'twenty instant windows end at the cap');
    // Without a cap (core's rule) the same run keeps halving.
    const uncapped = { ...DEV_CHAIN_PARAMS, hardestTargetHex: null };
    assert.equal(targetToBigint(nextTargetSync(uncapped, tip(9n, hardest, 5_000n), () => 5_000n)), hardest / 2n);
    assert.throws(() => blocksPerRetarget({ ...DEV_CHAIN_PARAMS, hardestTargetHex: 'ff'.repeat(32) }), blockError('PARAMS'));
  });

  it('mainnet-like: 288 blocks per day, f = 4', () => {
    const parent = mainMin / 64n;
    const at = (actual: bigint): bigint =>
      targetToBigint(nextTargetSync(MAINNET_PARAMS, tip(576n, parent, 10_000_000n), (h) => {
        assert.equal(h, 288n);
        return 10_000_000n - actual;
      }));
    assert.equal(at(86_400n), parent, 'on time');
    assert.equal(at(43_200n), parent / 2n, 'twice too fast');
    assert.equal(at(86_400n / 8n), parent / 4n, '8× too fast: clamped at T/4');
    assert.equal(at(86_400n * 3n), parent * 3n, '3× too slow');
    assert.equal(at(86_400n * 10n), parent * 4n, '10× too slow: clamped at 4T');
    assert.equal(targetToBigint(nextTargetSync(MAINNET_PARAMS, tip(576n, mainMin / 2n, 10_000_000n), () => 0n)), mainMin, 'capped at min');
  });

  it('uses floor(T / f) and a floor division when T is not a multiple of f (T = 6, f = 4)', () => {
    const params: ChainParams = { ...DEV_CHAIN_PARAMS, hardestTargetHex: null, maxDifficultyRetargetFactor: 4n };
    // floor(6 / 4) = 1 second lower clamp ⇒ 1000 × 1 / 6 = 166.
    assert.equal(targetToBigint(retarget(params, bigintToTarget(1000n), 0n)), 166n);
    assert.equal(targetToBigint(retarget(params, bigintToTarget(1000n), 5n)), 833n);
  });

  it('nextTarget accepts an async ancestor lookup and calls it only at retarget points', async () => {
    const calls: bigint[] = [];
    const get = async (h: bigint): Promise<bigint> => {
      calls.push(h);
      return 100n;
    };
    assert.equal(targetToBigint(await nextTarget(DEV_CHAIN_PARAMS, tip(3n, 1n, 103n), get)), devMin);
    assert.equal(targetToBigint(await nextTarget(DEV_CHAIN_PARAMS, tip(4n, 80n, 103n), get)), 80n);
    // Core's rule without the dev chain's hardest-target cap (these targets are far below it).
    assert.equal(targetToBigint(await nextTarget({ ...DEV_CHAIN_PARAMS, hardestTargetHex: null }, tip(12n, 80n, 103n), get)), 40n);
    assert.deepEqual(calls, [9n]);
    await assert.rejects(nextTarget(DEV_CHAIN_PARAMS, { ...tip(6n, 1n), target: new Uint8Array(31) }, get), blockError('TARGET'));
    await assert.rejects(nextTarget(DEV_CHAIN_PARAMS, tip(-1n, 1n), get), blockError('HEIGHT_RANGE'));
  });

  /**
   * Replays core's TestCalcNextDifficultyTarget* (lib/blockchain_test.go): min target 100000,
   * 2 s blocks, 6 s windows; block ii gets nextTarget(block ii-1) and tstamp tstampOf(ii).
   * Returns the targets of blocks from..to-1 (block 0 gets the min target, as for core's nil tip).
   */
  function replay(f: bigint, segments: Array<{ until: number; tstampOf: (ii: number) => bigint }>): bigint[] {
    const params: ChainParams = {
      ...DEV_CHAIN_PARAMS,
      minDifficultyTargetHex: bytesToHex(bigintToTarget(100_000n)),
      maxDifficultyRetargetFactor: f,
      hardestTargetHex: null, // core has no such cap
    };
    const nodes: Array<{ height: bigint; target: Uint8Array; tstampSecs: bigint }> = [];
    let ii = 0;
    for (const seg of segments) {
      for (; ii < seg.until; ii++) {
        const target = ii === 0 ? minDifficultyTarget(params) : nextTargetSync(params, nodes[ii - 1]!, (h) => nodes[Number(h)]!.tstampSecs);
        nodes.push({ height: BigInt(ii), target, tstampSecs: seg.tstampOf(ii) });
      }
    }
    return nodes.map((n) => targetToBigint(n.target));
  }
  const first13Fast = [100000n, 100000n, 100000n, 100000n, 100000n, 100000n, 100000n, 50000n, 50000n, 50000n, 25000n, 25000n, 25000n];

  it('core TestCalcNextDifficultyTargetHalvingDoublingHitLimit: 1 s blocks, then 4 s blocks', () => {
    const got = replay(2n, [
      { until: 13, tstampOf: (ii) => BigInt(ii) },
      { until: 30, tstampOf: (ii) => BigInt(ii * 4) },
    ]);
    assert.deepEqual(got.slice(0, 13), first13Fast);
    assert.deepEqual(got.slice(13), [12500n, 12500n, 12500n, 25000n, 25000n, 25000n, 50000n, 50000n, 50000n, 100000n, 100000n, 100000n, 100000n, 100000n, 100000n, 100000n, 100000n]);
  });

  it('core TestCalcNextDifficultyTargetHittingLimitsFast: every block at tstamp 0', () => {
    assert.deepEqual(replay(2n, [{ until: 13, tstampOf: () => 0n }]), first13Fast);
  });

  it('core TestCalcNextDifficultyTargetJustRight: 2 s blocks with f = 3 never move', () => {
    assert.deepEqual(replay(3n, [{ until: 13, tstampOf: (ii) => BigInt(ii * 2) }]), Array(13).fill(100000n));
  });

  it('core TestCalcNextDifficultyTargetSlightlyOff: 1 s blocks, then 3 s blocks', () => {
    const got = replay(2n, [
      { until: 13, tstampOf: (ii) => BigInt(ii) },
      { until: 34, tstampOf: (ii) => BigInt(ii * 3) },
    ]);
    assert.deepEqual(got.slice(0, 13), first13Fast);
    assert.deepEqual(got.slice(13), [
      12500n, 12500n, 12500n, 25000n, 25000n, 25000n, 37500n, 37500n, 37500n, 56250n, 56250n, 56250n,
      84375n, 84375n, 84375n, 100000n, 100000n, 100000n, 100000n, 100000n, 100000n,
    ]);
  });
});

describe('block reward schedule (§5.7)', () => {
  const D = 1_000_000_000n;
  const day = 288n;
  const cases: Array<[bigint, bigint]> = [
    [0n, D],
    [1n, D],
    [32_059n, D],
    [32_060n, (D * 3n) / 4n],
    [32_060n + day - 1n, (D * 3n) / 4n],
    [32_060n + day, D / 2n],
    [32_060n + 2n * day - 1n, D / 2n],
    [32_060n + 2n * day, D / 4n],
    [32_060n + 3n * day - 1n, D / 4n],
    [32_060n + 3n * day, D / 8n],
    [32_060n + 4n * day - 1n, D / 8n],
    [32_060n + 4n * day, D / 10n],
    [15n * 105_120n - 1n, D / 10n],
    [15n * 105_120n, D / 20n],
    [32n * 105_120n - 1n, D / 20n],
    [32n * 105_120n, 0n],
    [U32 - 1n, 0n],
    [U32 * 4n, 0n],
  ];

  it('pays the right amount on both sides of every boundary', () => {
    assert.equal(BLOCKS_PER_YEAR, 105_120n);
    for (const [height, nanos] of cases) {
      assert.equal(blockRewardNanos(height, DEV_CHAIN_PARAMS), nanos, `height ${height}`);
      assert.equal(blockRewardNanos(height, MAINNET_PARAMS), nanos, `mainnet height ${height}`);
    }
    assert.equal(32_060n + 4n * day, 33_212n);
  });

  it('pays 0 from posCutoverHeight on when it is set (regtest: 300)', () => {
    const regtest: ChainParams = { ...DEV_CHAIN_PARAMS, posCutoverHeight: 300n };
    assert.equal(blockRewardNanos(1n, regtest), D);
    assert.equal(blockRewardNanos(299n, regtest), D);
    assert.equal(blockRewardNanos(300n, regtest), 0n);
    assert.equal(blockRewardNanos(301n, regtest), 0n);
    assert.equal(DEV_CHAIN_PARAMS.posCutoverHeight, null);
    assert.equal(blockRewardNanos(300n, DEV_CHAIN_PARAMS), D);
  });

  it('refuses a negative height', () => {
    assert.throws(() => blockRewardNanos(-1n, DEV_CHAIN_PARAMS), blockError('HEIGHT_RANGE'));
  });
});

describe('mining at the dev min target', () => {
  it('a nonce scan with the synchronous headerHash finds a block within 20,000 tries', () => {
    const target = minDifficultyTarget(DEV_CHAIN_PARAMS);
    const header = sampleHeader({ prevBlockHash: randomBytes(32), transactionMerkleRoot: randomBytes(32), tstampSecs: 1_700_000_000n, height: 1n, nonce: 0n, extraNonce: 0n });
    const bytes = encodeHeader(header);
    let found: bigint | null = null;
    for (let nonce = 0n; nonce < 20_000n; nonce++) {
      new DataView(bytes.buffer).setBigUint64(HEADER_OFFSETS.nonce, nonce, false);
      if (hashMeetsTarget(headerHash(bytes), target)) {
        found = nonce;
        break;
      }
    }
    assert.ok(found !== null, 'found a nonce within 20,000 tries (expected ~455)');
    const mined = encodeHeader({ ...header, nonce: found });
    assert.deepEqual(decodeHeader(mined).nonce, found);
    assert.ok(hashMeetsTarget(headerHash(mined), target), 'the re-encoded mined header meets the target');
    // The WASM miner finds the same first nonce.
    const wasm = mineDesoHashV1(encodeHeader(header), 0n, 20_000, target);
    assert.equal(wasm?.nonce, found);
  });
});
