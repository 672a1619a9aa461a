/**
 * The legacy messaging keys (before access groups; backend routes/message.go
 * RegisterMessagingGroupKey, GetAllMessagingGroupKeys): register-messaging-group-key constructs
 * a MESSAGING_GROUP transaction registering one messaging key (no members, as the reference
 * builds it), get-all-messaging-group-keys lists a key's messaging keys from the pending state
 * (tip + mempool, the reference's mempool-augmented view). The chain rules
 * (chain/rules/messagingGroups.ts) decide at submit time; as in core, these keys are not
 * access groups and access groups are not these keys.
 *
 * Error texts keep the reference's wording after its handler prefix, but never echo a key
 * string back (a private key pasted by mistake must not reach logs).
 * @module
 */
import { MAX_MESSAGING_KEY_NAME_BYTES, MIN_MESSAGING_KEY_NAME_BYTES } from '../chain/rules/messagingGroups.js';
import type { AppDeps } from '../deps.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { allMessagingGroupKeys } from '../social/messagingGroups.js';
import { CONSTRUCTED_WITH_HASH, constructedResponse, constructFields, constructForRequest } from './constructed.js';
import { extraDataTextSchema } from './responses.js';
import { decodeKeyOr400 } from './requestKeys.js';
import { hexOr400 } from './requestHex.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const pkField = v.optional(v.string({ maxLength: 200 }), '');

const registerBody = v.object({
  OwnerPublicKeyBase58Check: pkField,
  MessagingPublicKeyBase58Check: pkField,
  MessagingGroupKeyName: v.optional(v.string({ maxLength: 1000 }), ''),
  /** DER signature of sha256d(MessagingPublicKey ‖ name) by the owner; only core's pre-fork default-key rule read it. */
  MessagingKeySignatureHex: v.optional(v.string({ maxLength: 1000 }), ''),
  ...constructFields,
});

const getAllBody = v.object({ OwnerPublicKeyBase58Check: pkField });

export const registerMessagingGroupKeyResponse = constructedResponse('RegisterMessagingGroupKeyResponse', CONSTRUCTED_WITH_HASH);

const messagingGroupEntrySchema = out.named(
  'MessagingGroupEntryResponse',
  out.object({
    GroupOwnerPublicKeyBase58Check: out.publicKey('The owner (the key that registered it; the base point for an unencrypted group)'),
    MessagingPublicKeyBase58Check: out.publicKey(),
    MessagingGroupKeyName: out.string('"" for the base key (the owner key itself)'),
    MessagingGroupMembers: out.nullable(
      out.array(
        out.object({
          GroupMemberPublicKeyBase58Check: out.publicKey(),
          GroupMemberKeyName: out.string("The member's messaging key the encrypted key is addressed to"),
          EncryptedKey: out.hex(),
        }),
        'Every member of a group the key owns; its own membership only in a group it joined; null when none',
      ),
    ),
    EncryptedKey: out.hex("The key's own encrypted copy of the group key; empty when it is not a member"),
    ExtraData: out.nullable(extraDataTextSchema),
  }),
);

export const getAllMessagingGroupKeysResponse = out.object({
  MessagingGroupEntries: out.array(messagingGroupEntrySchema, 'Base key first, then the groups the key registered (by name), then those it was added to'),
});

/** Core ValidateGroupPublicKeyAndName's name rule as the reference words it; null when valid. */
function keyNameProblem(name: Uint8Array): string | null {
  if (name.length < MIN_MESSAGING_KEY_NAME_BYTES) {
    return `ValidateGroupPublicKeyAndName: Too few characters in key name: min = ${MIN_MESSAGING_KEY_NAME_BYTES}, provided = ${name.length}: RuleErrorMessagingKeyNameTooShort`;
  }
  if (name.length > MAX_MESSAGING_KEY_NAME_BYTES) {
    return `ValidateGroupPublicKeyAndName: Too many characters in key name: max = ${MAX_MESSAGING_KEY_NAME_BYTES}; provided = ${name.length}: RuleErrorMessagingKeyNameTooLong`;
  }
  return null;
}

export function messagingGroupRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/register-messaging-group-key',
      summary: 'Construct a MESSAGING_GROUP transaction registering a legacy messaging key (before access groups)',
      body: registerBody,
      response: registerMessagingGroupKeyResponse,
      async handle({ body }) {
        const P = 'RegisterMessagingGroupKey';
        const owner = decodeKeyOr400(body.OwnerPublicKeyBase58Check, network, 'OwnerPublicKeyBase58Check', `${P}: Problem decoding sender base58 public key`);
        const messagingKey = decodeKeyOr400(body.MessagingPublicKeyBase58Check, network, 'MessagingPublicKeyBase58Check', `${P}: Problem decoding messaging base58 public key`);
        const name = utf8(body.MessagingGroupKeyName);
        const nameProblem = keyNameProblem(name);
        if (nameProblem !== null) throw badRequest(`${P}: Problem validating messaging public key and name ${nameProblem}`);
        const groupOwnerSignature = hexOr400(body.MessagingKeySignatureHex, `${P}: Problem decoding messaging public key signature: expected an even number of hex digits`);
        const r = await constructForRequest(deps, {
          publicKey: owner,
          metadata: {
            type: 'MESSAGING_GROUP',
            messagingPublicKey: messagingKey,
            messagingGroupKeyName: name,
            groupOwnerSignature,
            members: [],
          },
          fields: body,
        });
        const f = r.fields;
        return json({ TotalInputNanos: f.TotalInputNanos, ChangeAmountNanos: f.ChangeAmountNanos, FeeNanos: f.FeeNanos, Transaction: f.Transaction, TransactionHex: f.TransactionHex, TxnHashHex: f.TxnHashHex });
      },
    }),
    route({
      method: 'POST',
      path: '/get-all-messaging-group-keys',
      summary: "A key's legacy messaging keys (base key, registered, joined), from the tip plus the mempool",
      body: getAllBody,
      response: getAllMessagingGroupKeysResponse,
      async handle({ body }) {
        const owner = decodeKeyOr400(body.OwnerPublicKeyBase58Check, network, 'OwnerPublicKeyBase58Check', 'GetAllMessagingGroupKeys: Problem decoding sender base58 public key');
        return json({ MessagingGroupEntries: await allMessagingGroupKeys(await deps.chain.pendingView(), owner, network) });
      },
    }),
  ];
}
