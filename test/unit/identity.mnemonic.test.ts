import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { entropyToMnemonic, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { IdentityError, isIdentityError } from '../../server/identity/errors.js';
import {
  DESO_DERIVATION_PATH,
  derivePath,
  generateMnemonic,
  isValidMnemonic,
  MAX_ACCOUNT_NUMBER,
  mnemonicToPrivateKey,
  mnemonicToPrivateKeyAsync,
  normalizeMnemonic,
} from '../../server/identity/mnemonic.js';
import { bytesToHex, hexToBytes } from '../helpers/vectors.js';

const H = 0x80000000;

/** BIP32 test vector 1 (https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki). */
const BIP32_VECTOR_1 = {
  seedHex: '000102030405060708090a0b0c0d0e0f',
  nodes: [
    { path: "m/0'", indices: [0 + H], privateKeyHex: 'edb2e14f9ee77d26dd93b4ecede8d16ed408ce149b6cd80b0715a2d911a0afea' },
    { path: "m/0'/1", indices: [0 + H, 1], privateKeyHex: '3c6cb8d0f6a264c91ea8b5030fadaa8e538b020f0a387421a12de9319dc93368' },
    { path: "m/0'/1/2'", indices: [0 + H, 1, 2 + H], privateKeyHex: 'cbce0d719ecf7431d88e6a89fa1483e02e35092af60c042b1df2ff59fa424dca' },
    { path: "m/0'/1/2'/2", indices: [0 + H, 1, 2 + H, 2], privateKeyHex: '0f479245fb19a38a1954c5c7c0ebab2f9bdfd96a17563ef28a6a4b1a2a764ef4' },
    {
      path: "m/0'/1/2'/2/1000000000",
      indices: [0 + H, 1, 2 + H, 2, 1000000000],
      privateKeyHex: '471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8',
    },
  ],
};

/** BIP39 vectors from trezor/python-mnemonic vectors.json (all with passphrase "TREZOR"). */
const TREZOR_VECTORS = [
  {
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    seedHex:
      'c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04',
  },
  {
    mnemonic: 'legal winner thank year wave sausage worth useful legal winner thank yellow',
    seedHex:
      '2e8905819b8723fe2c1d161860e5ee1830318dbf49a83bd451cfb8440c28bd6fa457fe1296106559a3c80937a1c1069be3a3a5bd381ee6260e8d9739fce1f607',
  },
  {
    mnemonic: 'letter advice cage absurd amount doctor acoustic avoid letter advice cage above',
    seedHex:
      'd71de856f81a8acc65e6fc851a38d4d7ec216fd0796d0a6827a3ad6ed5511a30fa280f12eb2e47ed2ac03b5c462a0358d18d69fe4f985ec81778c1b370b652a8',
  },
  {
    mnemonic: 'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong',
    seedHex:
      'ac27495480225222079d7be181583751e86f571027b0497b5b5d11218e0a8a13332572917f0f8e5a589620c6f15b11c61dee327651a14c34e18231052e48c069',
  },
];

/** A valid 12-word mnemonic of distinctive words, none of which occurs in any error message. */
const DISTINCT = 'zebra yellow whale vanish umbrella tornado squirrel rhythm pumpkin oyster lobster thunder';

function reference(mnemonic: string, passphrase: string, account: number): Uint8Array {
  const key = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic, passphrase)).derive(`m/44'/0'/${account}'/0/0`).privateKey;
  assert.ok(key, 'the reference derivation yields a private key');
  return key;
}

/** Asserts that `fn` throws IDENTITY_BAD_MNEMONIC and returns the message. */
function expectBadMnemonic(fn: () => unknown, what: string): string {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught !== undefined, `${what}: expected a throw`);
  assert.ok(isIdentityError(caught), `${what}: expected an IdentityError, got ${String(caught)}`);
  assert.ok(caught instanceof IdentityError, `${what}: instanceof IdentityError`);
  assert.equal(caught.code, 'IDENTITY_BAD_MNEMONIC', what);
  return caught.message;
}

function assertNoWords(message: string, mnemonic: string, what: string): void {
  for (const word of mnemonic.split(/\s+/).filter((w) => w !== '')) {
    assert.ok(!message.toLowerCase().includes(word.toLowerCase()), `${what}: message must not contain the word "${word}"`);
  }
}

describe('derivePath (BIP32 private derivation)', () => {
  it('matches BIP32 test vector 1', () => {
    const seed = hexToBytes(BIP32_VECTOR_1.seedHex);
    for (const node of BIP32_VECTOR_1.nodes) {
      assert.equal(bytesToHex(derivePath(seed, node.indices)), node.privateKeyHex, node.path);
      // And the reference implementation agrees with the hard-coded spec values.
      assert.equal(bytesToHex(HDKey.fromMasterSeed(seed).derive(node.path).privateKey!), node.privateKeyHex, `reference ${node.path}`);
    }
  });

  it('returns the master key for the empty path', () => {
    const seed = hexToBytes(BIP32_VECTOR_1.seedHex);
    assert.equal(bytesToHex(derivePath(seed, [])), 'e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35');
  });

  it('rejects bad seeds and indices', () => {
    assert.throws(() => derivePath(new Uint8Array(15), []), RangeError);
    assert.throws(() => derivePath(new Uint8Array(65), []), RangeError);
    assert.throws(() => derivePath('00'.repeat(16) as unknown as Uint8Array, []), TypeError);
    assert.throws(() => derivePath(new Uint8Array(16), [-1]), RangeError);
    assert.throws(() => derivePath(new Uint8Array(16), [2 ** 32]), RangeError);
    assert.throws(() => derivePath(new Uint8Array(16), [1.5]), RangeError);
  });
});

describe('BIP39 seeds (Trezor vectors, passphrase "TREZOR")', () => {
  for (const v of TREZOR_VECTORS) {
    it(v.mnemonic.split(' ').slice(0, 3).join(' ') + ' ...', () => {
      assert.ok(isValidMnemonic(v.mnemonic), 'vector mnemonic is valid');
      assert.equal(bytesToHex(mnemonicToSeedSync(v.mnemonic, 'TREZOR')), v.seedHex);
      assert.equal(
        bytesToHex(mnemonicToPrivateKey(v.mnemonic, { passphrase: 'TREZOR' })),
        bytesToHex(derivePath(hexToBytes(v.seedHex), [44 + H, 0 + H, 0 + H, 0, 0])),
      );
    });
  }
});

describe('mnemonicToPrivateKey', () => {
  it('documents the path and account range', () => {
    assert.equal(DESO_DERIVATION_PATH, "m/44'/0'/{account}'/0/0");
    assert.equal(MAX_ACCOUNT_NUMBER, 2147483647);
  });

  it('matches @scure/bip32 on 150 random mnemonics, passphrases and accounts (sync and async forms)', async () => {
    const passphrases = ['', 'TREZOR', 'extra text', 'café', 'cafe\u0301', 'пароль', '密码', '🔑 key', ' padded '];
    for (let i = 0; i < 150; i++) {
      const mnemonic = entropyToMnemonic(randomBytes(i % 2 === 0 ? 16 : 32), wordlist);
      const passphrase = i % 3 === 0 ? passphrases[i % passphrases.length]! : randomBytes(randomInt(0, 12)).toString('base64');
      const account = i % 5 === 0 ? 0 : i % 5 === 1 ? 1 : i % 5 === 2 ? MAX_ACCOUNT_NUMBER : randomInt(0, 2 ** 31);
      const ours = mnemonicToPrivateKey(mnemonic, { passphrase, accountNumber: account });
      assert.equal(ours.length, 32);
      assert.equal(bytesToHex(ours), bytesToHex(reference(mnemonic, passphrase, account)), `case ${i}: account ${account}`);
      if (i % 3 === 0) {
        const viaThreadPool = await mnemonicToPrivateKeyAsync(mnemonic, { passphrase, accountNumber: account });
        assert.equal(bytesToHex(viaThreadPool), bytesToHex(ours), `case ${i}: async form`);
      }
    }
  });

  it('defaults to passphrase "" and account 0', () => {
    const m = TREZOR_VECTORS[0]!.mnemonic;
    const expected = bytesToHex(reference(m, '', 0));
    assert.equal(bytesToHex(mnemonicToPrivateKey(m)), expected);
    assert.equal(bytesToHex(mnemonicToPrivateKey(m, {})), expected);
    assert.equal(bytesToHex(mnemonicToPrivateKey(m, { passphrase: '', accountNumber: 0 })), expected);
    assert.notEqual(bytesToHex(mnemonicToPrivateKey(m, { accountNumber: 1 })), expected);
    assert.notEqual(bytesToHex(mnemonicToPrivateKey(m, { passphrase: 'x' })), expected);
  });

  it('accepts extra whitespace and upper case', () => {
    const expected = bytesToHex(mnemonicToPrivateKey(DISTINCT, { accountNumber: 3 }));
    const messy = [
      `  ${DISTINCT.toUpperCase()}  `,
      DISTINCT.split(' ').join('\t'),
      DISTINCT.split(' ').join(' \n  '),
      `\n${DISTINCT.replace(/ /g, '\u00a0\u00a0')}\r\n`,
      DISTINCT.replace(/(\w+)/g, (w) => w[0]!.toUpperCase() + w.slice(1)),
    ];
    for (const input of messy) {
      assert.equal(normalizeMnemonic(input), DISTINCT, JSON.stringify(input));
      assert.ok(isValidMnemonic(input), `valid after normalization: ${JSON.stringify(input)}`);
      assert.equal(bytesToHex(mnemonicToPrivateKey(input, { accountNumber: 3 })), expected, JSON.stringify(input));
    }
  });

  it('rejects invalid mnemonics without quoting them', () => {
    const words = DISTINCT.split(' ');
    const wrongChecksum = [...words.slice(0, 11), 'kangaroo'].join(' ');
    const unknownWord = [...words.slice(0, 11), 'thunderx'].join(' ');
    const elevenWords = words.slice(0, 11).join(' ');
    const thirteenWords = [...words, 'zebra'].join(' ');
    const cases: Array<[string, string]> = [
      ['wrong checksum', wrongChecksum],
      ['unknown word', unknownWord],
      ['11 words', elevenWords],
      ['13 words', thirteenWords],
      ['empty', ''],
      ['whitespace only', ' \t\n'],
    ];
    assert.ok(isValidMnemonic(DISTINCT), 'the base mnemonic is valid');
    for (const [what, mnemonic] of cases) {
      assert.ok(!isValidMnemonic(mnemonic), `${what}: isValidMnemonic is false`);
      const message = expectBadMnemonic(() => mnemonicToPrivateKey(mnemonic), what);
      assert.match(message, /"mnemonic" is not a valid BIP39 English mnemonic/, what);
      assertNoWords(message, mnemonic, what);
    }
  });

  it('rejects non-strings', () => {
    for (const bad of [undefined, null, 42, ['abandon'], { mnemonic: DISTINCT }, Buffer.from(DISTINCT)]) {
      assert.ok(!isValidMnemonic(bad), `isValidMnemonic(${typeof bad}) is false`);
      expectBadMnemonic(() => normalizeMnemonic(bad), `normalizeMnemonic(${typeof bad})`);
      const message = expectBadMnemonic(() => mnemonicToPrivateKey(bad as unknown as string), `mnemonicToPrivateKey(${typeof bad})`);
      assert.match(message, /"mnemonic"/);
      assertNoWords(message, DISTINCT, 'non-string');
    }
  });

  it('rejects bad account numbers', () => {
    for (const accountNumber of [-1, 1.5, 2 ** 31, '0', NaN, Infinity, 1n, null]) {
      const what = `accountNumber=${String(accountNumber)}`;
      const message = expectBadMnemonic(
        () => mnemonicToPrivateKey(DISTINCT, { accountNumber: accountNumber as unknown as number }),
        what,
      );
      assert.match(message, /"accountNumber"/, what);
      assertNoWords(message, DISTINCT, what);
    }
  });

  it('rejects bad passphrases', () => {
    for (const passphrase of [1, null, ['a'], { a: 1 }, '\ud800 lone surrogate']) {
      const what = `passphrase=${typeof passphrase}`;
      const message = expectBadMnemonic(() => mnemonicToPrivateKey(DISTINCT, { passphrase: passphrase as unknown as string }), what);
      assert.match(message, /"passphrase"/, what);
      assertNoWords(message, DISTINCT, what);
    }
  });
});

describe('generateMnemonic', () => {
  it('makes valid mnemonics of the requested strength', () => {
    const cases: Array<[128 | 160 | 192 | 224 | 256, number]> = [
      [128, 12],
      [160, 15],
      [192, 18],
      [224, 21],
      [256, 24],
    ];
    for (const [bits, words] of cases) {
      const m = generateMnemonic(bits);
      assert.equal(m.split(' ').length, words, `${bits} bits`);
      assert.equal(normalizeMnemonic(m), m, `${bits} bits: already normalized`);
      assert.ok(isValidMnemonic(m), `${bits} bits: valid`);
      assert.equal(mnemonicToPrivateKey(m).length, 32);
    }
    assert.equal(generateMnemonic().split(' ').length, 12);
  });

  it('gives a different mnemonic each call', () => {
    assert.notEqual(generateMnemonic(), generateMnemonic());
    assert.notEqual(generateMnemonic(256), generateMnemonic(256));
  });

  it('rejects unsupported strengths', () => {
    for (const bits of [0, 64, 127, 129, 512, '128']) {
      expectBadMnemonic(() => generateMnemonic(bits as unknown as 128), `strengthBits=${String(bits)}`);
    }
  });
});
