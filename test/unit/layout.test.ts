/** The startup layout check (chain/state/layout.ts) over each kind of store content. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { DEV_CHAIN_PARAMS } from '../../server/chain/block/params.js';
import { Chain } from '../../server/chain/chain.js';
import { chainKeys, LAYOUT_VERSION } from '../../server/chain/state/keys.js';
import { layoutProblem } from '../../server/chain/state/layout.js';
import { InlineCrypto } from '../../server/crypto/inline.js';
import { MemoryStore } from '../../server/store/memory.js';

const tip = { hashHex: '00'.repeat(32), height: 5n, tstampSecs: 1n, targetHex: 'ff'.repeat(32) };

describe('state layout check', () => {
  it('accepts an empty store, and the chain genesis writes (with its layout version)', async () => {
    const store = new MemoryStore();
    assert.equal(await layoutProblem(store), null);
    const crypto = new InlineCrypto();
    try {
      await new Chain({ store, crypto, params: DEV_CHAIN_PARAMS, log: pino({ level: 'silent' }) }).init();
    } finally {
      await crypto.close();
    }
    assert.equal(await store.get(chainKeys.layout), LAYOUT_VERSION);
    assert.equal(await layoutProblem(store), null);
  });

  it('refuses a chain without a version (layout 1) or with another one, saying what to do', async () => {
    const old = new MemoryStore();
    await old.set(chainKeys.tip, tip);
    assert.match((await layoutProblem(old))!, /layout 1, written by an older version of this node; this version reads layout 5 only.*empty store/);
    const newer = new MemoryStore();
    await newer.commit([
      { op: 'set', key: chainKeys.tip, value: tip },
      { op: 'set', key: chainKeys.layout, value: LAYOUT_VERSION + 1 },
    ]);
    assert.match((await layoutProblem(newer))!, /layout 6, written by a newer version/);
    // Layout 2 lacks the social-graph indexes (follows, likes, diamonds, post reads, holders).
    const layout2 = new MemoryStore();
    await layout2.commit([
      { op: 'set', key: chainKeys.tip, value: tip },
      { op: 'set', key: chainKeys.layout, value: 2 },
    ]);
    assert.match((await layoutProblem(layout2))!, /layout 2, written by an older version of this node; this version reads layout 5 only/);
    // Layout 3 stored block transactions uncompressed, located transactions by a key each, and
    // had no per-key transaction index (K:) of the exchange API's transaction-info.
    const layout3 = new MemoryStore();
    await layout3.commit([
      { op: 'set', key: chainKeys.tip, value: tip },
      { op: 'set', key: chainKeys.layout, value: 3 },
    ]);
    assert.match((await layoutProblem(layout3))!, /layout 3, written by an older version of this node; this version reads layout 5 only/);
    // Layout 4 (briefly on main) lacked the K index.
    const layout4 = new MemoryStore();
    await layout4.commit([
      { op: 'set', key: chainKeys.tip, value: tip },
      { op: 'set', key: chainKeys.layout, value: 4 },
    ]);
    assert.match((await layoutProblem(layout4))!, /layout 4, written by an older version of this node; this version reads layout 5 only/);
  });
});
