/**
 * Tutorial status transitions (spec §3) and the featured-creator lists over the memory store.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { profileFlagKeys } from '../../server/social/profileEntry.js';
import {
  featuredCreatorKeys,
  getTutorialState,
  resetTutorialStatus,
  setFeaturedCreator,
  startOrSkipTutorial,
  TUTORIAL_STATUSES,
  tutorialKeys,
  updateTutorialStatus,
  type TutorialRecord,
} from '../../server/social/tutorial.js';
import { MemoryStore } from '../../server/store/index.js';

const pk = (): Uint8Array => new Uint8Array([3, ...randomBytes(32)]);

let store: MemoryStore;
beforeEach(() => {
  store = new MemoryStore();
});
afterEach(async () => {
  await store.close();
});

/** A user whose stored status is `status` ("" = nothing stored). */
async function userAt(status: TutorialRecord['status'], extra: Partial<TutorialRecord> = {}): Promise<Uint8Array> {
  const user = pk();
  if (status !== '' || Object.keys(extra).length > 0) {
    await store.set(tutorialKeys.status(user), { ...(await getTutorialState(store, user)), status, ...extra });
  }
  return user;
}

describe('tutorial keys', () => {
  it('the featured lists are the indexes the ProfileEntryResponse builder reads', () => {
    assert.equal(tutorialKeys.wellKnown, profileFlagKeys.tutorialWellKnown);
    assert.equal(tutorialKeys.upAndComing, profileFlagKeys.tutorialUpAndComing);
  });
});

describe('startOrSkipTutorial', () => {
  const startable = new Set(['', 'TutorialSkipped', 'TutorialComplete']);
  for (const from of ['', ...TUTORIAL_STATUSES] as const) {
    it(`from ${from || 'not started'}: start ${startable.has(from) ? 'allowed' : 'refused'}, skip allowed`, async () => {
      const user = await userAt(from);
      if (startable.has(from)) {
        assert.equal((await startOrSkipTutorial(store, user, false)).status, 'TutorialStarted');
      } else {
        await assert.rejects(startOrSkipTutorial(store, user, false), /^TutorialError: StartOrSkipTutorial: Can only start tutorial from empty, skipped, or completed state$/);
        assert.equal((await getTutorialState(store, user)).status, from, 'a refused start changes nothing');
      }
      const skipper = await userAt(from);
      assert.equal((await startOrSkipTutorial(store, skipper, true)).status, 'TutorialSkipped');
      assert.equal((await getTutorialState(store, skipper)).status, 'TutorialSkipped');
    });
  }

  it('a user who must complete the tutorial may not skip it, unless an admin', async () => {
    const user = await userAt('', { mustCompleteTutorial: true });
    await assert.rejects(startOrSkipTutorial(store, user, true), /You are not permitted to skip the tutorial/);
    assert.equal((await startOrSkipTutorial(store, user, true, { isAdmin: true })).status, 'TutorialSkipped');
  });

  it('two concurrent starts from not started: one wins, one is refused', async () => {
    const user = pk();
    const results = await Promise.allSettled([startOrSkipTutorial(store, user, false), startOrSkipTutorial(store, user, false)]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  });
});

describe('updateTutorialStatus', () => {
  it('sets any state from any state, keeps or clears the tutorial purchase', async () => {
    const creator = pk();
    const user = await userAt('TutorialSkipped', { creatorCoinsPurchasedInTutorial: 7n, mustCompleteTutorial: true });
    let r = await updateTutorialStatus(store, user, { status: 'InvestInOthersBuyComplete', creatorPurchasedInTutorial: creator });
    assert.deepEqual([r.status, r.creatorCoinsPurchasedInTutorial, r.mustCompleteTutorial], ['InvestInOthersBuyComplete', 7n, true]);
    r = await updateTutorialStatus(store, user, { status: 'GiveADiamondComplete', clearCreatorCoinsPurchasedInTutorial: true });
    assert.deepEqual([r.creatorCoinsPurchasedInTutorial, new Uint8Array(r.creatorPurchasedInTutorial!)], [0n, creator], 'cleared counter, creator kept');
    r = await updateTutorialStatus(store, user, { status: 'TutorialComplete' });
    assert.equal(r.mustCompleteTutorial, false, 'completing lifts the must-complete restriction');
    await resetTutorialStatus(store, user);
    assert.equal((await getTutorialState(store, user)).status, '');
  });
});

describe('setFeaturedCreator', () => {
  it('adds to one list, refuses a creator featured in either, removes from the named list', async () => {
    const [a, b] = [pk(), pk()];
    await setFeaturedCreator(store, a, 'wellKnown', false);
    await setFeaturedCreator(store, b, 'upAndComing', false);
    await assert.rejects(setFeaturedCreator(store, a, 'upAndComing', false), /already exists in well known index/);
    await assert.rejects(setFeaturedCreator(store, b, 'upAndComing', false), /already exists in up and coming index/);
    assert.deepEqual(await featuredCreatorKeys(store, 'wellKnown'), [a]);
    await setFeaturedCreator(store, a, 'wellKnown', true);
    assert.deepEqual(await featuredCreatorKeys(store, 'wellKnown'), []);
    assert.deepEqual(await featuredCreatorKeys(store, 'upAndComing'), [b]);
  });
});
