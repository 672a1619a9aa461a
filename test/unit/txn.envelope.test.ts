// The MsgDeSoTxn envelope (node-api.md §5.1, §5.4) against transactions built and signed by the
// official deso-protocol SDK, plus every way a malformed transaction must be refused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isTxnDecodeError } from '../../server/chain/txn/errors.js';
import { decodeTxn, hashToSign, txnHash, txnTypeOf, withSignature } from '../../server/chain/txn/envelope.js';
import { encodeUvarint, Reader } from '../../server/chain/txn/varint.js';
import { bytesToHex, hexToBytes, readSharedVectors } from '../helpers/vectors.js';

interface TxnVector {
  description: string;
  txnType: string;
  version: number | null;
  unsignedTxHex: string;
  hashToSignHex: string;
  signedTxHex: string;
  signedTxIdSha256dHex?: string;
  signerPublicKeyCompressedHex: string;
  splice: { unsignedSignatureFieldOffset: number; signatureHex: string };
}
const TXNS = readSharedVectors<{ transactions: TxnVector[] }>('sdk-vectors.json').transactions;
const TYPE_NUMBERS: Record<string, number> = { BASIC_TRANSFER: 2, FOLLOW: 9, AUTHORIZE_DERIVED_KEY: 22 };

function assertMalformed(bytes: Uint8Array, re?: RegExp): void {
  assert.throws(() => decodeTxn(bytes), (e: unknown) => isTxnDecodeError(e) && (re === undefined || re.test(e.message)));
}

/** Runs `check` on 10,000 pairs: random bytes, and `sample` with one byte replaced. */
function forRandomAndMutated(sample: Uint8Array, check: (bytes: Uint8Array) => void): void {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(255), (noise, at, byte) => {
      const mutated = sample.slice();
      mutated[at % mutated.length] = byte;
      for (const bytes of [noise, mutated]) check(bytes);
    }),
    { numRuns: 10_000 },
  );
}

describe('decodeTxn on SDK transactions', () => {
  for (const v of TXNS) {
    it(`${v.description}: fields, hash to sign, splice, txn id`, () => {
      const unsigned = hexToBytes(v.unsignedTxHex);
      const signed = hexToBytes(v.signedTxHex);
      const u = decodeTxn(unsigned);
      assert.equal(u.txnType, TYPE_NUMBERS[v.txnType], 'txn type number');
      assert.equal(u.signature.length, 0, 'unsigned');
      assert.equal(u.v1 === null, !v.version, 'v1 tail present exactly for version 1');
      assert.equal(u.publicKey.length, 33, 'transactor public key read');
      if (!v.description.includes('derived')) assert.equal(bytesToHex(u.publicKey), v.signerPublicKeyCompressedHex, 'signed by the transactor');
      assert.equal(u.signatureField.start, v.splice.unsignedSignatureFieldOffset);
      assert.equal(bytesToHex(hashToSign(unsigned)), v.hashToSignHex);
      assert.equal(bytesToHex(hashToSign(signed)), v.hashToSignHex, 'the signature is not signed');
      assert.equal(bytesToHex(withSignature(unsigned, hexToBytes(v.splice.signatureHex))), v.signedTxHex);
      assert.equal(bytesToHex(withSignature(signed, new Uint8Array(0))), v.unsignedTxHex);
      assert.equal(bytesToHex(decodeTxn(signed).signature), v.splice.signatureHex);
      if (v.signedTxIdSha256dHex !== undefined) assert.equal(bytesToHex(txnHash(signed)), v.signedTxIdSha256dHex);
    });
  }
});

describe('decodeTxn refuses malformed transactions', () => {
  const sample = hexToBytes(TXNS[0]!.signedTxHex);

  it('at every truncation point, with a TxnDecodeError', () => {
    for (const vec of TXNS) {
      const bytes = hexToBytes(vec.signedTxHex);
      const sigEnd = decodeTxn(bytes).signatureField.end;
      for (let n = 0; n < bytes.length; n++) {
        // Cutting exactly after the signature leaves a valid version-0 transaction.
        if (n === sigEnd) continue;
        assertMalformed(bytes.subarray(0, n));
      }
    }
  });

  it('with bytes after the v1 tail', () => {
    assertMalformed(Buffer.concat([sample, Buffer.from([0])]), /after the end of the transaction/);
  });

  it('with counts and lengths larger than the data', () => {
    assertMalformed(Buffer.concat([encodeUvarint(1n << 40n), Buffer.alloc(8)]), /inputs count: 1099511627776 exceeds/);
    assertMalformed(Uint8Array.from([0, 1, ...new Uint8Array(33), 0xff, 0xff, 0xff, 0xff, 0x0f]), /output 0 amount|txn type/);
  });

  it('with a uvarint over 64 bits', () => {
    assertMalformed(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), /overflows 64 bits/);
  });

  it('with a duplicate ExtraData key, or a public key of the wrong length', () => {
    const dup = Uint8Array.from([0, 0, 2, 0, 0, 2, 1, 0x61, 1, 1, 1, 0x61, 1, 2, 0]);
    assertMalformed(dup, /duplicate key/);
    assertMalformed(Uint8Array.from([0, 0, 2, 0, 2, 1, 2, 0, 0]), /public key: expected 33 bytes, got 2/);
  });

  it('with type 0', () => {
    assertMalformed(Uint8Array.from([0, 0, 0, 0, 0, 0, 0]), /not a transaction type/);
  });

  it('never throws anything but TxnDecodeError on random and mutated bytes', () => {
    forRandomAndMutated(sample, (bytes) => {
      try {
        decodeTxn(bytes);
      } catch (e) {
        assert.ok(isTxnDecodeError(e), `only TxnDecodeError, got ${String(e)}`);
      }
    });
  });
});

describe('txnTypeOf', () => {
  const sample = hexToBytes(TXNS[0]!.signedTxHex);

  it('answers the type decodeTxn reads, on every SDK transaction (unsigned and signed)', () => {
    for (const v of TXNS) {
      for (const hex of [v.unsignedTxHex, v.signedTxHex]) assert.equal(txnTypeOf(hexToBytes(hex)), decodeTxn(hexToBytes(hex)).txnType, v.description);
    }
  });

  it('on random and mutated bytes: the type whenever decodeTxn decodes, else a TxnDecodeError or a type', () => {
    forRandomAndMutated(sample, (bytes) => {
      let type: number | Error;
      try {
        type = txnTypeOf(bytes);
      } catch (e) {
        assert.ok(isTxnDecodeError(e), `only TxnDecodeError, got ${String(e)}`);
        type = e as Error;
      }
      let decoded: number | null = null;
      try {
        decoded = decodeTxn(bytes).txnType;
      } catch {
        // Malformed past the type: txnTypeOf may still have read one.
      }
      if (decoded !== null) assert.equal(type, decoded);
      if (type instanceof Error) assert.equal(decoded, null, 'decodeTxn refuses what txnTypeOf refuses');
    });
  });

  it('refuses type 0 and a truncated header as decodeTxn does', () => {
    assert.throws(() => txnTypeOf(Uint8Array.from([0, 0, 0])), (e: unknown) => isTxnDecodeError(e) && /not a transaction type/.test(e.message));
    assert.throws(() => txnTypeOf(Uint8Array.from([1, 7])), (e: unknown) => isTxnDecodeError(e) && /input 0 txid|inputs count/.test(e.message));
  });
});

describe('uvarint', () => {
  it('round-trips 0, 127, 128, 2^63 and 2^64-1 and random values in Go byte form', () => {
    assert.equal(bytesToHex(encodeUvarint(300n)), 'ac02');
    for (const v of [0n, 127n, 128n, 1n << 63n, (1n << 64n) - 1n]) assert.equal(new Reader(encodeUvarint(v)).uvarint('v'), v);
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (v) => new Reader(encodeUvarint(v)).uvarint('v') === v), { numRuns: 10_000 });
    assert.throws(() => encodeUvarint(-1n), /uvarint expected/);
    assert.throws(() => encodeUvarint(1n << 64n), /uvarint expected/);
  });
});

describe('encodeTxn', () => {
  it('re-encodes every SDK transaction byte for byte (unsigned and signed)', async () => {
    const { encodeTxn } = await import('../../server/chain/txn/envelope.js');
    for (const v of TXNS) {
      for (const hex of [v.unsignedTxHex, v.signedTxHex]) {
        const { signatureField: _s, ...fields } = decodeTxn(hexToBytes(hex));
        assert.equal(bytesToHex(encodeTxn(fields)), hex, v.description);
      }
    }
  });

  it('writes ExtraData in ascending byte order whatever order it is given', async () => {
    const { encodeTxn } = await import('../../server/chain/txn/envelope.js');
    const { signatureField: _s, ...fields } = decodeTxn(hexToBytes(TXNS[0]!.unsignedTxHex));
    const keys = ['note', 'z', 'DiamondLevel', 'Zeta', 'app'];
    const bytes = encodeTxn({ ...fields, extraData: keys.map((k) => [new TextEncoder().encode(k), Uint8Array.of(1)]) });
    const order = decodeTxn(bytes).extraData.map(([k]) => new TextDecoder().decode(k));
    assert.deepEqual(order, ['DiamondLevel', 'Zeta', 'app', 'note', 'z']);
  });
});

describe('decodeTxn refuses other spellings of the same transaction', () => {
  it('a non-minimal uvarint (core re-encodes minimally before hashing, so it could never verify)', () => {
    const bytes = hexToBytes(TXNS[0]!.unsignedTxHex);
    // The first byte is the inputs count 0x00; spell it 0x80 0x00.
    assertMalformed(Uint8Array.from([0x80, 0x00, ...bytes.subarray(1)]), /not minimally encoded/);
    const r = new Reader(Uint8Array.of(0xff, 0x00));
    assert.throws(() => r.uvarint('x'), /not minimally encoded/);
    assert.equal(new Reader(Uint8Array.of(0x00)).uvarint('zero'), 0n, 'a lone 0x00 is zero');
  });

  it('ExtraData keys out of byte order (the SDK local-construction order of the vectors)', () => {
    const ordering = readSharedVectors<{ extraDataOrdering: { encodedHex: string } }>('sdk-vectors.json').extraDataOrdering;
    const u = hexToBytes(TXNS[0]!.unsignedTxHex);
    const t = decodeTxn(u);
    // Splice the SDK-ordered ExtraData block in place of the txn's empty one (a single 00 byte).
    const extraStart = t.signatureField.start - 1;
    const spliced = Uint8Array.from([...u.subarray(0, extraStart), ...hexToBytes(ordering.encodedHex), ...u.subarray(extraStart + 1)]);
    assertMalformed(spliced, /ascending byte order/);
  });
});
