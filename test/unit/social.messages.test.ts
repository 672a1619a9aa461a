// Message read logic (server/social/messages.ts) on a state view over the memory store: the
// NewMessageEntryResponse shape (spec §2.3), the start-point parsing of the paginated routes,
// thread heads (latest message before now, newest first) and the default-key DM merge.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { groupId, putAccessGroup, putAccessGroupMember, type GroupId } from '../../server/chain/state/accessGroups.js';
import { putDmMessage, putGroupChatMessage, type NewMessageRecord } from '../../server/chain/state/messages.js';
import { StateView } from '../../server/chain/state/view.js';
import { encodePublicKey } from '../../server/keys/index.js';
import { dmThreadPage, groupChatPage, newMessageEntryResponse, parseStartTimestamp, partyOwners, threadHeads } from '../../server/social/messages.js';
import { MemoryStore } from '../../server/store/memory.js';
import { getPublicKey } from '../../wasm/secp256k1.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const key = (): Uint8Array => getPublicKey(new Uint8Array(randomBytes(32)), true);
const text = (m: NewMessageRecord): string => Buffer.from(m.encryptedText).toString();

function message(from: GroupId, to: GroupId, ts: bigint, body: string, extraData: Array<[Uint8Array, Uint8Array]> = []): NewMessageRecord {
  return {
    senderAccessGroupOwnerPublicKey: from.owner,
    senderAccessGroupKeyName: from.keyName,
    senderAccessGroupPublicKey: from.owner,
    recipientAccessGroupOwnerPublicKey: to.owner,
    recipientAccessGroupKeyName: to.keyName,
    recipientAccessGroupPublicKey: to.owner,
    encryptedText: utf8(body),
    timestampNanos: ts,
    extraData,
  };
}

describe('newMessageEntryResponse', () => {
  const a = key();
  const b = key();
  const m = message(groupId(a, utf8('default-key')), groupId(b, new Uint8Array(0)), 1_700_000_000_123_456_789n, 'hi', [[utf8('note'), utf8('x')]]);
  const cases: Array<{ name: string; chatType: 'DM' | 'GroupChat'; check: (r: ReturnType<typeof newMessageEntryResponse>) => void }> = [
    {
      name: 'a DM: sides, hex text, the exact stamp as a decimal string, ExtraData',
      chatType: 'DM',
      check: (r) => {
        assert.equal(r.ChatType, 'DM');
        assert.deepEqual(r.SenderInfo, { OwnerPublicKeyBase58Check: encodePublicKey(a, 'testnet'), AccessGroupPublicKeyBase58Check: encodePublicKey(a, 'testnet'), AccessGroupKeyName: 'default-key' });
        assert.equal(r.RecipientInfo.AccessGroupKeyName, '', 'the base group renders as ""');
        assert.equal(r.MessageInfo.EncryptedText, '6869');
        assert.equal(r.MessageInfo.TimestampNanos, 1_700_000_000_123_456_789n);
        assert.equal(r.MessageInfo.TimestampNanosString, '1700000000123456789');
        assert.deepEqual(r.MessageInfo.ExtraData, { note: 'x' });
      },
    },
    { name: 'a group-chat message', chatType: 'GroupChat', check: (r) => assert.equal(r.ChatType, 'GroupChat') },
    {
      name: 'no ExtraData renders null',
      chatType: 'DM',
      check: () => assert.equal(newMessageEntryResponse({ ...m, extraData: [] }, 'DM', 'testnet').MessageInfo.ExtraData, null),
    },
  ];
  for (const c of cases) it(c.name, () => c.check(newMessageEntryResponse(m, c.chatType, 'testnet')));
});

describe('parseStartTimestamp', () => {
  const cases: Array<{ name: string; s: string; n: bigint; want: bigint | RegExp }> = [
    { name: 'the string wins', s: '1700000000123456789', n: 5n, want: 1_700_000_000_123_456_789n },
    { name: 'the number when the string is empty', s: '', n: 5n, want: 5n },
    { name: 'u64 max', s: '18446744073709551615', n: 0n, want: (1n << 64n) - 1n },
    { name: 'above u64', s: '18446744073709551616', n: 0n, want: /^strconv.ParseUint: parsing "18446744073709551616": value out of range$/ },
    { name: 'not a number', s: '12a', n: 0n, want: /^strconv.ParseUint: parsing "12a": invalid syntax$/ },
    { name: 'negative', s: '-1', n: 0n, want: /invalid syntax$/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = parseStartTimestamp(c.s, c.n);
      if (c.want instanceof RegExp) assert.match(String(got), c.want);
      else assert.equal(got, c.want);
    });
  }
});

describe('thread heads and pages', () => {
  const alice = key();
  const bob = key();
  const carol = key();
  const base = (k: Uint8Array): GroupId => groupId(k, new Uint8Array(0));
  const dflt = (k: Uint8Array): GroupId => groupId(k, utf8('default-key'));
  const chat = groupId(alice, utf8('friends'));

  async function state(): Promise<StateView> {
    const view = StateView.over(new MemoryStore());
    for (let i = 1n; i <= 5n; i++) putDmMessage(view, message(base(alice), base(bob), i * 10n, `base ${i}`));
    putDmMessage(view, message(dflt(bob), dflt(alice), 25n, 'default'));
    putDmMessage(view, message(base(alice), dflt(bob), 33n, 'base to default'));
    putDmMessage(view, message(base(carol), base(alice), 40n, 'carol'));
    putDmMessage(view, message(base(carol), base(alice), 1000n, 'from the future'));
    putAccessGroup(view, { ownerPublicKey: alice, keyName: chat.keyName, accessGroupPublicKey: key(), extraData: [] });
    putAccessGroupMember(view, chat, { memberPublicKey: bob, memberKeyName: new Uint8Array(32), encryptedKey: utf8('k'), extraData: [] });
    putGroupChatMessage(view, message(base(bob), chat, 45n, 'chat'));
    return view;
  }

  it('heads: the latest message before now of each thread, newest first', async () => {
    const heads = await threadHeads(await state(), alice, { dms: true, groupChats: true }, 100n);
    assert.deepEqual(heads.map((h) => [h.chatType, text(h.message)]), [
      ['DM', 'base 5'],
      ['GroupChat', 'chat'],
      ['DM', 'carol'],
      ['DM', 'base to default'],
      ['DM', 'default'],
    ]);
    assert.equal(partyOwners(heads.map((h) => h.message)).length, 3, 'alice, bob, carol once each');
  });

  it('heads of one kind only', async () => {
    const s = await state();
    assert.deepEqual((await threadHeads(s, bob, { dms: false, groupChats: true }, 100n)).map((h) => text(h.message)), ['chat']);
    assert.deepEqual((await threadHeads(s, carol, { dms: true, groupChats: false }, 100n)).map((h) => text(h.message)), ['carol']);
  });

  it('a DM page between two default-key groups merges the base and mixed threads', async () => {
    const s = await state();
    const page = await dmThreadPage(s, dflt(alice), dflt(bob), { before: 45n, limit: 4 });
    assert.deepEqual(page.map(text), ['base 4', 'base to default', 'base 3', 'default']);
    assert.deepEqual((await dmThreadPage(s, dflt(alice), dflt(bob), { before: 25n, limit: 10 })).map(text), ['base 2', 'base 1']);
  });

  it('other group pairs read their own thread only', async () => {
    const s = await state();
    assert.deepEqual((await dmThreadPage(s, base(bob), base(alice), { before: 35n, limit: 10 })).map(text), ['base 3', 'base 2', 'base 1']);
    assert.deepEqual((await dmThreadPage(s, dflt(alice), base(bob), { before: 1000n, limit: 10 })).map(text), []);
  });

  it('a group-chat page; start 0 gives nothing', async () => {
    const s = await state();
    assert.deepEqual((await groupChatPage(s, chat, { before: 46n, limit: 5 })).map(text), ['chat']);
    assert.deepEqual(await groupChatPage(s, chat, { before: 0n, limit: 5 }), []);
  });
});
