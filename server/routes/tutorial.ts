/**
 * The tutorial, spec §4.7 (reference node-api.md §2.5), and the reference's admin routes that
 * curate its featured creators (backend routes/admin_tutorial.go). Logic and storage in
 * social/tutorial.ts. Every failure is a 400 (spec §7) except credentials (401/403).
 *
 * Creator profiles are read from the pending view (tip plus mempool), as the reference reads
 * its mempool-augmented view.
 */
import type { AppDeps } from '../deps.js';
import { adminRoute, isAdmin, requireUserJwt } from './adminAuth.js';
import { badRequest } from '../http/errors.js';
import { empty, json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { profileEntrySchema } from './responses.js';
import { decodePublicKey, encodePublicKey } from '../keys/index.js';
import {
  isTutorialStatus,
  MAX_TUTORIAL_RESPONSE_LIMIT,
  randomFeaturedCreators,
  resetTutorialStatus,
  setFeaturedCreator,
  startOrSkipTutorial,
  TUTORIAL_STATUSES,
  updateTutorialStatus,
} from '../social/tutorial.js';
import { decodeKeyOr400 } from './requestKeys.js';

const KEY = { maxLength: 200 };

export const getTutorialCreatorsBody = v.object({
  ResponseLimit: v.int(0, MAX_TUTORIAL_RESPONSE_LIMIT),
});

export const startOrSkipTutorialBody = v.object({
  PublicKeyBase58Check: v.string(KEY),
  // Optional in the schema so that a missing token is a 401 from the verifier, not a 400.
  JWT: v.optional(v.string(), ''),
  IsSkip: v.optional(v.boolean(), false),
});

export const updateTutorialStatusBody = v.object({
  PublicKeyBase58Check: v.string(KEY),
  JWT: v.optional(v.string(), ''),
  TutorialStatus: v.string({ maxLength: 100 }),
  CreatorPurchasedInTutorialPublicKey: v.optional(v.string(KEY), ''),
  ClearCreatorCoinPurchasedInTutorial: v.optional(v.boolean(), false),
});

export const adminUpdateTutorialCreatorsBody = v.object({
  PublicKeyBase58Check: v.publicKey(),
  IsRemoval: v.optional(v.boolean(), false),
  IsWellKnown: v.optional(v.boolean(), false),
});

export const adminResetTutorialStatusBody = v.object({
  PublicKeyBase58Check: v.publicKey(),
});

export const tutorialCreatorsResponse = out.named(
  'TutorialCreatorsResponse',
  out.object({ WellKnownProfileEntryResponses: out.array(profileEntrySchema), UpAndComingProfileEntryResponses: out.array(profileEntrySchema) }),
);

export function tutorialRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;

  const creators = async (limit: number, includeAnyReward: boolean): Promise<Record<string, unknown>> => {
    const state = await deps.chain.pendingView();
    const [WellKnownProfileEntryResponses, UpAndComingProfileEntryResponses] = await Promise.all([
      randomFeaturedCreators(deps, state, 'wellKnown', limit, { includeAnyReward }),
      randomFeaturedCreators(deps, state, 'upAndComing', limit, { includeAnyReward }),
    ]);
    return { WellKnownProfileEntryResponses, UpAndComingProfileEntryResponses };
  };

  return [
    route({
      method: 'POST',
      path: '/get-tutorial-creators',
      summary: `Up to ResponseLimit (at most ${MAX_TUTORIAL_RESPONSE_LIMIT}) random featured creators per category, founder reward ≤ 10% (spec §4.7)`,
      body: getTutorialCreatorsBody,
      response: tutorialCreatorsResponse,
      handle: async ({ body }) => json(await creators(body.ResponseLimit, false)),
    }),
    route({
      method: 'POST',
      path: '/start-or-skip-tutorial',
      auth: 'user-jwt',
      summary: 'Starts or skips the tutorial for the user (JWT of the user; spec §3, §4.7)',
      body: startOrSkipTutorialBody,
      response: out.empty(),
      async handle({ body, caller }) {
        await requireUserJwt(deps, caller, body.PublicKeyBase58Check, body.JWT, 'StartOrSkipTutorial: Error validating JWT: ');
        const pk = decodePublicKey(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check');
        await startOrSkipTutorial(deps.store, pk, body.IsSkip, { isAdmin: isAdmin(deps, encodePublicKey(pk, network)) });
        return empty();
      },
    }),
    route({
      method: 'POST',
      path: '/update-tutorial-status',
      auth: 'user-jwt',
      summary: 'Sets the user’s tutorial status to any state of spec §3 (JWT of the user)',
      body: updateTutorialStatusBody,
      response: out.empty(),
      async handle({ body, caller }) {
        const P = 'UpdateTutorialStatus: ';
        await requireUserJwt(deps, caller, body.PublicKeyBase58Check, body.JWT, `${P}Error validating JWT: `);
        const pk = decodePublicKey(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check');
        if (!isTutorialStatus(body.TutorialStatus)) {
          throw badRequest(`${P}Invalid TutorialStatus ${JSON.stringify(body.TutorialStatus)}; expected one of ${TUTORIAL_STATUSES.join(', ')}`);
        }
        let creator: Uint8Array | undefined;
        if (body.CreatorPurchasedInTutorialPublicKey !== '') {
          creator = decodeKeyOr400(body.CreatorPurchasedInTutorialPublicKey, network, 'CreatorPurchasedInTutorialPublicKey', `${P}Failed to decode public key bytes`);
        }
        await updateTutorialStatus(deps.store, pk, {
          status: body.TutorialStatus,
          ...(creator ? { creatorPurchasedInTutorial: creator } : {}),
          clearCreatorCoinsPurchasedInTutorial: body.ClearCreatorCoinPurchasedInTutorial,
        });
        return empty();
      },
    }),
    adminRoute(deps, {
      path: '/admin/update-tutorial-creators',
      summary: 'Features a creator in the tutorial (IsWellKnown picks the list) or removes one (IsRemoval)',
      level: 'superAdmin',
      body: adminUpdateTutorialCreatorsBody,
      response: out.empty(),
      async handle({ body }) {
        await setFeaturedCreator(deps.store, body.PublicKeyBase58Check.bytes, body.IsWellKnown ? 'wellKnown' : 'upAndComing', body.IsRemoval);
        return empty();
      },
    }),
    adminRoute(deps, {
      path: '/admin/reset-tutorial-status',
      summary: 'Puts a user’s tutorial back to not started',
      level: 'admin',
      body: adminResetTutorialStatusBody,
      response: out.empty(),
      async handle({ body }) {
        await resetTutorialStatus(deps.store, body.PublicKeyBase58Check.bytes);
        return empty();
      },
    }),
    adminRoute(deps, {
      path: '/admin/get-tutorial-creators',
      summary: 'Random featured creators per category, founder reward not filtered',
      level: 'admin',
      body: getTutorialCreatorsBody,
      response: tutorialCreatorsResponse,
      handle: async ({ body }) => json(await creators(body.ResponseLimit, true)),
    }),
  ];
}
