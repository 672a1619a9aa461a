/**
 * Construction routes of NEW_MESSAGE (reference node-api.md §4.2): send-dm-message,
 * update-dm-message, send-group-chat-message, update-group-chat-message. As the reference they
 * only check the request's form (keys, names, hex text, the update's timestamp); groups,
 * membership, duplicates and length are the chain rules' to refuse at submit time.
 *
 * A new message is stamped with this server's clock in nanoseconds (visible in
 * `Transaction.TxnMeta.TimestampNanos`); the reference's `TstampNanos` response field is always 0.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { txnJson } from '../chain/json.js';
import { padGroupKeyName } from '../chain/state/accessGroups.js';
import { NewMessageOperation, NewMessageType, type NewMessageMetadata } from '../chain/txn/metadata.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { keyNameProblem } from './accessGroups.js';
import { decodeKeyOr400 } from './requestKeys.js';
import { BASIC_CONSTRUCTED, constructedResponse, constructFields, constructForRequest } from './constructed.js';

const U64_MAX = (1n << 64n) - 1n;

const messageBody = v.object({
  SenderAccessGroupOwnerPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  SenderAccessGroupPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  SenderAccessGroupKeyName: v.optional(v.string({ maxLength: 1000 }), ''),
  RecipientAccessGroupOwnerPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  RecipientAccessGroupPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  RecipientAccessGroupKeyName: v.optional(v.string({ maxLength: 1000 }), ''),
  // Hex; generous so an over-long text reaches the chain rule that names the limit.
  EncryptedMessageText: v.optional(v.string({ maxLength: 400_000 }), ''),
  TimestampNanosString: v.optional(v.string({ maxLength: 100 }), ''),
  ...constructFields,
});

/** The Transaction's TxnMeta carries the message metadata (Go's names; fixed-size keys as arrays of numbers). */
export const newMessageTxnResponse = constructedResponse('NewMessageTxnResponse', BASIC_CONSTRUCTED, {
  TstampNanos: out.literal(0, 'Always 0, as the reference; the timestamp is Transaction.TxnMeta.TimestampNanos'),
});

/** Go's hex.DecodeString, with its error texts (an invalid byte is reported before an odd length). */
export function decodeHexLikeGo(s: string): Uint8Array | string {
  const bad = s.search(/[^0-9a-fA-F]/);
  if (bad !== -1) {
    const cp = s.codePointAt(bad)!;
    return `encoding/hex: invalid byte: U+${cp.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(String.fromCodePoint(cp)).replace(/^"|"$/g, "'")}`;
  }
  if (s.length % 2 === 1) return 'encoding/hex: odd length hex string';
  return new Uint8Array(Buffer.from(s, 'hex'));
}

let lastStamp = 0n;
/** Wall-clock nanoseconds, strictly increasing within this process so two constructs never share one. */
function nowNanos(): bigint {
  const stamp = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  lastStamp = stamp > lastStamp ? stamp : lastStamp + 1n;
  return lastStamp;
}

export function messageRoutes(deps: AppDeps): Route[] {
  /** An owner key and raw key name; `""` is the base group (reference helper, §2.2). */
  const party = (pk: string, name: string, prefix: string, side: 'sender' | 'recipient', field: string): { owner: Uint8Array; keyName: Uint8Array } => {
    const owner = decodeKeyOr400(pk, deps.config.network, field, `${prefix}: Problem validating ${side} public key and access group name: ValidateAccessGroupPublicKeyAndName: Problem decoding base58 public key`);
    const keyName = new TextEncoder().encode(name);
    if (keyName.length === 0) return { owner, keyName };
    const problem = keyNameProblem(keyName);
    if (problem !== null) throw badRequest(`${prefix}: Problem validating ${side} public key and access group name ${name}: ${problem}`);
    return { owner, keyName };
  };

  const messageRoute = (path: string, prefix: string, newMessageType: number, newMessageOperation: number, summary: string): Route =>
    route({
      method: 'POST',
      path,
      summary,
      body: messageBody,
      response: newMessageTxnResponse,
      async handle({ body }) {
        const sender = party(body.SenderAccessGroupOwnerPublicKeyBase58Check, body.SenderAccessGroupKeyName, prefix, 'sender', 'SenderAccessGroupOwnerPublicKeyBase58Check');
        const recipient = party(body.RecipientAccessGroupOwnerPublicKeyBase58Check, body.RecipientAccessGroupKeyName, prefix, 'recipient', 'RecipientAccessGroupOwnerPublicKeyBase58Check');
        const text = decodeHexLikeGo(body.EncryptedMessageText);
        if (typeof text === 'string') throw badRequest(`${prefix}: Problem decoding encrypted message text hex: ${text}`);
        const senderAccessKey = decodeKeyOr400(body.SenderAccessGroupPublicKeyBase58Check, deps.config.network, 'SenderAccessGroupPublicKeyBase58Check', `${prefix}: Problem validating sender base58 public key`);
        const recipientAccessKey = decodeKeyOr400(body.RecipientAccessGroupPublicKeyBase58Check, deps.config.network, 'RecipientAccessGroupPublicKeyBase58Check', `${prefix}: Problem validating recipient base58 public key`);

        let timestampNanos: bigint;
        if (newMessageOperation === NewMessageOperation.UPDATE) {
          const s = body.TimestampNanosString;
          if (!/^\d+$/.test(s) || BigInt(s) > U64_MAX) {
            const why = /^\d+$/.test(s) ? 'value out of range' : 'invalid syntax';
            throw badRequest(`${prefix}: Problem converting TimestampNanosString to uint64: : strconv.ParseUint: parsing ${JSON.stringify(s)}: ${why}`);
          }
          timestampNanos = BigInt(s);
          if (timestampNanos === 0n) throw badRequest(`${prefix}: TimestampNanosString cannot be 0`);
        } else {
          timestampNanos = nowNanos();
        }

        const metadata: NewMessageMetadata = {
          type: 'NEW_MESSAGE',
          senderAccessGroupOwnerPublicKey: sender.owner,
          senderAccessGroupKeyName: sender.keyName,
          senderAccessGroupPublicKey: senderAccessKey,
          recipientAccessGroupOwnerPublicKey: recipient.owner,
          recipientAccessGroupKeyName: recipient.keyName,
          recipientAccessGroupPublicKey: recipientAccessKey,
          encryptedText: text,
          timestampNanos,
          newMessageType,
          newMessageOperation,
        };
        const r = await constructForRequest(deps, { publicKey: sender.owner, metadata, fields: body });
        // Go writes the fixed-size key and name arrays of the metadata as arrays of numbers.
        const txnMeta = {
          SenderAccessGroupOwnerPublicKey: [...sender.owner],
          SenderAccessGroupKeyName: [...padGroupKeyName(sender.keyName)],
          SenderAccessGroupPublicKey: [...senderAccessKey],
          RecipientAccessGroupOwnerPublicKey: [...recipient.owner],
          RecipientAccessGroupKeyName: [...padGroupKeyName(recipient.keyName)],
          RecipientAccessGroupPublicKey: [...recipientAccessKey],
          EncryptedText: Buffer.from(text).toString('base64'),
          TimestampNanos: timestampNanos,
          NewMessageType: newMessageType,
          NewMessageOperation: newMessageOperation,
        };
        return json({
          TstampNanos: 0,
          TotalInputNanos: r.fields.TotalInputNanos,
          ChangeAmountNanos: r.fields.ChangeAmountNanos,
          FeeNanos: r.fields.FeeNanos,
          Transaction: txnJson(r.constructed.fields, txnMeta),
          TransactionHex: r.fields.TransactionHex,
        });
      },
    });

  const { DM, GROUP_CHAT } = NewMessageType;
  const { CREATE, UPDATE } = NewMessageOperation;
  return [
    messageRoute('/send-dm-message', 'SendDmMessage', DM, CREATE, 'Construct a NEW_MESSAGE DM (reference §4.2)'),
    messageRoute('/update-dm-message', 'UpdateDmMessage', DM, UPDATE, 'Construct a NEW_MESSAGE DM update (reference §4.2)'),
    messageRoute('/send-group-chat-message', 'SendGroupChatMessage', GROUP_CHAT, CREATE, 'Construct a NEW_MESSAGE group-chat message (reference §4.2)'),
    messageRoute('/update-group-chat-message', 'UpdateGroupChatMessage', GROUP_CHAT, UPDATE, 'Construct a NEW_MESSAGE group-chat update (reference §4.2)'),
  ];
}
