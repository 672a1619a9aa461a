/**
 * Diamond routes (reference social-graph.md §4): `send-diamonds` builds a BASIC_TRANSFER to the
 * post's author carrying ExtraData `DiamondLevel` and `DiamondPostHash` (rules/diamonds.ts),
 * and three reads over the pending view: `get-diamonds-for-public-key`,
 * `get-diamonds-for-post`, `get-diamonded-posts` (social/diamonds.ts).
 *
 * Errors keep the reference's handler prefixes (`SendDiamonds: …`); a key that fails to decode
 * is never echoed (it could be a private key pasted by mistake), nor is a malformed post hash.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { getProfileByUsername } from '../chain/state/profiles.js';
import type { TxnOutput } from '../chain/txn/envelope.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { postEntrySchema, profileEntrySchema } from './responses.js';
import { diamondedPosts, diamondsForPost, diamondsForPublicKey, prepareDiamond } from '../social/diamonds.js';
import { parsePostHashHex } from '../social/feed.js';
import { completeTutorialDiamond } from '../social/tutorial.js';
import { CONSTRUCTED_WITH_SPEND, constructedResponse, constructFields, constructForRequest } from './constructed.js';
import { decodeKeyOr400 } from './requestKeys.js';

const MAX_INT = Number.MAX_SAFE_INTEGER;
const U32_MAX = 2 ** 32 - 1;
const keyField = v.optional(v.string({ maxLength: 200 }), '');
const hashField = v.optional(v.string({ maxLength: 200 }), '');

export const sendDiamondsBody = v.object({
  SenderPublicKeyBase58Check: keyField,
  /** Only checked against the sender (the reference's quirk): a diamond always pays the post's author. */
  ReceiverPublicKeyBase58Check: keyField,
  DiamondPostHashHex: hashField,
  /** 1..8 (get-app-state DiamondLevelMap), above the level the sender already gave the post. */
  DiamondLevel: v.optional(v.int(-MAX_INT, MAX_INT), 0),
  /** Moves the sender's tutorial from InvestInYourselfComplete to GiveADiamondComplete. */
  InTutorial: v.optional(v.boolean(), false),
  ...constructFields,
});

export const getDiamondsForPublicKeyBody = v.object({
  PublicKeyBase58Check: keyField,
  /** false: the diamonds the key received (one summary per sender); true: those it gave. */
  FetchYouDiamonded: v.optional(v.boolean(), false),
});

export const getDiamondsForPostBody = v.object({
  PostHashHex: hashField,
  Offset: v.optional(v.int(0, U32_MAX), 0),
  /** 0 ⇒ no senders (the reference has no default). */
  Limit: v.optional(v.int(0, U32_MAX), 0),
  ReaderPublicKeyBase58Check: keyField,
});

export const getDiamondedPostsBody = v.object({
  ReceiverPublicKeyBase58Check: keyField,
  ReceiverUsername: v.optional(v.string({ maxLength: 100 }), ''),
  SenderPublicKeyBase58Check: keyField,
  SenderUsername: v.optional(v.string({ maxLength: 100 }), ''),
  ReaderPublicKeyBase58Check: keyField,
  /** Start after this post; "" (or a post not in the list) for the top. */
  StartPostHashHex: hashField,
  /** 0 ⇒ no posts; at most MAX_DIAMONDED_POSTS_PER_PAGE are served. */
  NumToFetch: v.optional(v.int(0, MAX_INT), 0),
});

export const sendDiamondsResponse = constructedResponse('SendDiamondsResponse', CONSTRUCTED_WITH_SPEND);

export const getDiamondsForPublicKeyResponse = out.object({
  DiamondSenderSummaryResponses: out.array(
    out.object({
      SenderPublicKeyBase58Check: out.publicKey(),
      ReceiverPublicKeyBase58Check: out.publicKey(),
      TotalDiamonds: out.int(),
      HighestDiamondLevel: out.int(),
      DiamondLevelMap: out.record(out.int(), 'Posts diamonded at each level, by level'),
      ProfileEntryResponse: out.nullable(profileEntrySchema),
    }),
    'One summary per counterparty, profiles first by coin value',
  ),
  TotalDiamonds: out.int(),
});

export const getDiamondsForPostResponse = out.object({
  DiamondSenders: out.array(out.object({ DiamondSenderProfile: profileEntrySchema, DiamondLevel: out.int() })),
});

export const getDiamondedPostsResponse = out.object({
  DiamondedPosts: out.array(postEntrySchema, 'Each with DiamondsFromSender, the reader’s state and, for a comment, ParentPosts'),
  TotalDiamondsGiven: out.int(),
  ReceiverProfileEntryResponse: out.nullable(profileEntrySchema),
  SenderProfileEntryResponse: out.nullable(profileEntrySchema),
});

export function diamondRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  const view = () => deps.chain.pendingView();
  const optionalKey = (s: string, field: string, prefix: string): Uint8Array | null => (s === '' ? null : decodeKeyOr400(s, network, field, prefix));

  return [
    route({
      method: 'POST',
      path: '/send-diamonds',
      summary: "Construct a diamond: a BASIC_TRANSFER paying the post's author the new level's nanos minus the sender's previous level's, with ExtraData DiamondLevel and DiamondPostHash; sign and submit it",
      body: sendDiamondsBody,
      response: sendDiamondsResponse,
      async handle({ body }) {
        const P = 'SendDiamonds';
        if (body.SenderPublicKeyBase58Check === '' || body.ReceiverPublicKeyBase58Check === '' || body.DiamondPostHashHex === '') {
          throw badRequest(`${P}: Must provide a sender, a receiver, and a post hash to diamond.`);
        }
        const sender = decodeKeyOr400(body.SenderPublicKeyBase58Check, network, 'SenderPublicKeyBase58Check', `${P}: Problem decoding sender public key`);
        const receiver = decodeKeyOr400(body.ReceiverPublicKeyBase58Check, network, 'ReceiverPublicKeyBase58Check', `${P}: Problem decoding receiver public key`);
        const postHash = parsePostHashHex(body.DiamondPostHashHex);
        if (postHash === null) throw badRequest(`${P}: Invalid DiamondPostHashHex: expected 64 hex characters (a 32-byte post hash)`);
        if (Buffer.compare(sender, receiver) === 0) throw badRequest(`${P}: Sender and receiver cannot be the same.`);

        const diamond = await prepareDiamond(await view(), sender, postHash, BigInt(body.DiamondLevel));
        // As the reference: the request's fee outputs first, then the author's payment.
        const outputs: TxnOutput[] = [
          ...body.TransactionFees.map((f) => ({ publicKey: f.PublicKeyBase58Check.bytes, amountNanos: f.AmountNanos })),
          { publicKey: diamond.author, amountNanos: diamond.nanos },
        ];
        const { fields } = await constructForRequest(deps, {
          publicKey: sender,
          metadata: { type: 'BASIC_TRANSFER' },
          outputs,
          // The diamond's own keys win over the request's ExtraData of the same names.
          extraData: diamond.extraData,
          fields: { ...body, TransactionFees: [] },
        });
        if (body.InTutorial) await completeTutorialDiamond(deps.store, sender);
        return json({
          SpendAmountNanos: fields.SpendAmountNanos,
          TotalInputNanos: fields.TotalInputNanos,
          ChangeAmountNanos: fields.ChangeAmountNanos,
          FeeNanos: fields.FeeNanos,
          Transaction: fields.Transaction,
          TransactionHex: fields.TransactionHex,
          TxnHashHex: fields.TxnHashHex,
        });
      },
    }),
    route({
      method: 'POST',
      path: '/get-diamonds-for-public-key',
      summary: 'Diamonds a public key received (or, FetchYouDiamonded, gave): one summary per counterparty (total, highest level, posts per level, profile), profiles first by coin value',
      body: getDiamondsForPublicKeyBody,
      response: getDiamondsForPublicKeyResponse,
      async handle({ body }) {
        const pk = decodeKeyOr400(body.PublicKeyBase58Check, network, 'PublicKeyBase58Check', 'GetDiamondsForPublicKey: Problem decoding user public key');
        return json(await diamondsForPublicKey(deps, await view(), pk, body.FetchYouDiamonded));
      },
    }),
    route({
      method: 'POST',
      path: '/get-diamonds-for-post',
      summary: "A post's diamond senders with a profile and their levels, by coin value, level, then key, paged by Offset and Limit",
      body: getDiamondsForPostBody,
      response: getDiamondsForPostResponse,
      async handle({ body }) {
        const P = 'GetDiamondsForPost';
        const postHash = parsePostHashHex(body.PostHashHex);
        if (postHash === null) throw badRequest(`${P}: PostHashHex must be a post hash: 64 hex characters`);
        const reader = optionalKey(body.ReaderPublicKeyBase58Check, 'ReaderPublicKeyBase58Check', `${P}: Problem decoding user public key`);
        return json(await diamondsForPost(deps, await view(), { postHash, offset: body.Offset, limit: body.Limit, reader }));
      },
    }),
    route({
      method: 'POST',
      path: '/get-diamonded-posts',
      summary: "The receiver's posts a sender diamonded, highest level first then newest, with DiamondsFromSender, the reader's state and comment parents; paged after StartPostHashHex",
      body: getDiamondedPostsBody,
      response: getDiamondedPostsResponse,
      async handle({ body }) {
        const P = 'GetDiamondedPosts';
        const state = await view();
        const party = async (pkText: string, username: string, role: 'Receiver' | 'Sender'): Promise<Uint8Array> => {
          if (pkText !== '') return decodeKeyOr400(pkText, network, `${role}PublicKeyBase58Check`, `${P}: Problem decoding ${role.toLowerCase()} public key`);
          if (username !== '') {
            const profile = await getProfileByUsername(state, username);
            if (profile === undefined) throw badRequest(`${P}: No profile entry found for ${role.toLowerCase()} username: ${username}`);
            return profile.publicKey;
          }
          throw badRequest(`${P}: Neither ${role}PublicKeyBase58Check nor ${role}Username provided`);
        };
        const receiver = await party(body.ReceiverPublicKeyBase58Check, body.ReceiverUsername, 'Receiver');
        const sender = await party(body.SenderPublicKeyBase58Check, body.SenderUsername, 'Sender');
        const reader = optionalKey(body.ReaderPublicKeyBase58Check, 'ReaderPublicKeyBase58Check', `${P}: Problem decoding reader public key`);
        let startPostHash: Uint8Array | null = null;
        if (body.StartPostHashHex !== '') {
          startPostHash = parsePostHashHex(body.StartPostHashHex);
          if (startPostHash === null) throw badRequest(`${P}: StartPostHashHex must be a post hash: 64 hex characters`);
        }
        const tip = await deps.chain.tip();
        return json(await diamondedPosts(deps, state, { receiver, sender, reader, startPostHash, numToFetch: body.NumToFetch, tipHeight: tip.height }));
      },
    }),
  ];
}
