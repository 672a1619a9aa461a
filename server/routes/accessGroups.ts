/**
 * Construction routes of access groups (reference node-api.md §4.2): create-access-group,
 * update-access-group, add-/remove-/update-access-group-members. They validate what the
 * reference validates, against the tip plus the mempool, and answer the unsigned transaction;
 * the chain rules (chain/rules/accessGroups.ts) decide at submit time.
 *
 * Error texts keep the reference's wording after the handler prefix (`CreateAccessGroup: …`),
 * but never echo a key string back: a private key pasted by mistake must not reach logs.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { txnJson } from '../chain/json.js';
import { getAccessGroup, getAccessGroupMember, groupId, isBaseGroupKeyName, padGroupKeyName } from '../chain/state/accessGroups.js';
import { AccessGroupMemberOperation, AccessGroupOperation, type AccessGroupMember, type TxnMetadata } from '../chain/txn/metadata.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { BASIC_CONSTRUCTED, constructedResponse, constructFields, constructForRequest, encodeExtraData, type ConstructedResponse } from './constructed.js';
import { decodeKeyOr400 } from './requestKeys.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
/** Go's `%v` of a fixed byte array: `[2 171 …]`. */
const goBytes = (b: Uint8Array): string => `[${[...b].join(' ')}]`;

/** Core ValidateAccessGroupPublicKeyAndName's name rule (1..32 bytes) as the reference words it; null when valid. */
export function keyNameProblem(name: Uint8Array): string | null {
  if (name.length < 1) return `ValidateAccessGroupPublicKeyAndName: Too few characters in key name: min = 1, provided = ${name.length}: RuleErrorAccessGroupKeyNameTooShort`;
  if (name.length > 32) return `ValidateAccessGroupPublicKeyAndName: Too many characters in key name: max = 32; provided = ${name.length}: RuleErrorAccessGroupKeyNameTooLong`;
  return null;
}

/** The five fields the reference's access-group constructors answer. */
function constructedReply(r: ConstructedResponse, txnMeta: Record<string, unknown>): Record<string, unknown> {
  return {
    TotalInputNanos: r.fields.TotalInputNanos,
    ChangeAmountNanos: r.fields.ChangeAmountNanos,
    FeeNanos: r.fields.FeeNanos,
    Transaction: txnJson(r.constructed.fields, txnMeta),
    TransactionHex: r.fields.TransactionHex,
  };
}

/** The Transaction's TxnMeta carries the group metadata here (base64 bytes, Go's names). */
export const accessGroupTxnResponse = constructedResponse('AccessGroupTxnResponse', BASIC_CONSTRUCTED);

const groupBody = v.object({
  AccessGroupOwnerPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  AccessGroupPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  AccessGroupKeyName: v.optional(v.string({ maxLength: 1000 }), ''),
  ...constructFields,
});

const memberBody = v.object({
  AccessGroupOwnerPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  AccessGroupKeyName: v.optional(v.string({ maxLength: 1000 }), ''),
  AccessGroupMemberList: v.optional(
    v.array(
      v.object({
        AccessGroupMemberPublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
        AccessGroupMemberKeyName: v.optional(v.string({ maxLength: 1000 }), ''),
        EncryptedKey: v.optional(v.string({ maxLength: 100_000 }), ''),
        ExtraData: v.optional(v.record(v.string({ maxLength: 100_000 }), 100), {}),
      }),
      10_000,
    ),
    [],
  ),
  ...constructFields,
});

const MEMBER_OPERATION_NAMES: Record<number, string> = {
  [AccessGroupMemberOperation.ADD]: 'AccessGroupMemberOperationTypeAdd',
  [AccessGroupMemberOperation.REMOVE]: 'AccessGroupMemberOperationTypeRemove',
  [AccessGroupMemberOperation.UPDATE]: 'AccessGroupMemberOperationTypeUpdate',
};

export function accessGroupRoutes(deps: AppDeps): Route[] {
  const groupRoute = (path: string, prefix: string, operationType: number, summary: string): Route =>
    route({
      method: 'POST',
      path,
      summary,
      body: groupBody,
      response: accessGroupTxnResponse,
      async handle({ body }) {
        const owner = decodeKeyOr400(body.AccessGroupOwnerPublicKeyBase58Check, deps.config.network, 'AccessGroupOwnerPublicKeyBase58Check', `${prefix}: problem decoding ownerbase58 public key`);
        const name = utf8(body.AccessGroupKeyName);
        const nameProblem = keyNameProblem(name);
        if (nameProblem !== null) throw badRequest(`${prefix}: problem validating access group owner public key and access group key name ${body.AccessGroupKeyName}: ${nameProblem}`);
        if (isBaseGroupKeyName(name)) throw badRequest(`${prefix}: access group key cannot be same as base key (all zeros).access group key name ${body.AccessGroupKeyName}`);
        const accessKey = decodeKeyOr400(body.AccessGroupPublicKeyBase58Check, deps.config.network, 'AccessGroupPublicKeyBase58Check', `${prefix}: problem decoding access group base58 public key`);

        const existing = await getAccessGroup(await deps.chain.pendingView(), groupId(owner, name));
        if (operationType === AccessGroupOperation.UPDATE && existing === undefined) throw badRequest(`${prefix}: cannot update an access group entry that does not exist or has been deleted`);
        if (operationType === AccessGroupOperation.CREATE && existing !== undefined) throw badRequest(`${prefix}: cannot create an access group entry that already exists`);

        const metadata: TxnMetadata = { type: 'ACCESS_GROUP', ownerPublicKey: owner, accessGroupPublicKey: accessKey, keyName: name, operationType };
        const r = await constructForRequest(deps, { publicKey: owner, metadata, fields: body });
        return json(
          constructedReply(r, {
            AccessGroupOwnerPublicKey: b64(owner),
            AccessGroupPublicKey: b64(accessKey),
            AccessGroupKeyName: b64(name),
            AccessGroupOperationType: operationType,
          }),
        );
      },
    });

  const memberRoute = (path: string, prefix: string, operationType: number, summary: string): Route =>
    route({
      method: 'POST',
      path,
      summary,
      body: memberBody,
      response: accessGroupTxnResponse,
      async handle({ body }) {
        const owner = decodeKeyOr400(body.AccessGroupOwnerPublicKeyBase58Check, deps.config.network, 'AccessGroupOwnerPublicKeyBase58Check', `${prefix}: problem decoding ownerbase58 public key`);
        const name = utf8(body.AccessGroupKeyName);
        if (isBaseGroupKeyName(padGroupKeyName(name))) throw badRequest(`${prefix}: access group key cannot be same as base key (all zeros). access group key name ${body.AccessGroupKeyName}`);
        const nameProblem = keyNameProblem(name);
        if (nameProblem !== null) throw badRequest(`${prefix}: problem validating access group owner public key and access group key name ${body.AccessGroupKeyName}: ${nameProblem}`);
        const group = groupId(owner, name);
        const view = await deps.chain.pendingView();

        const members: AccessGroupMember[] = [];
        const seen = new Set<string>();
        for (const [i, member] of body.AccessGroupMemberList.entries()) {
          const field = `AccessGroupMemberList[${i}].AccessGroupMemberPublicKeyBase58Check`;
          const memberKey = decodeKeyOr400(member.AccessGroupMemberPublicKeyBase58Check, deps.config.network, field, `${prefix}: problem decoding memberbase58 public key`);
          // The reference's spelling of the base group for a member: one zero byte.
          const memberKeyName = member.AccessGroupMemberKeyName === '' ? Uint8Array.of(0) : utf8(member.AccessGroupMemberKeyName);
          const memberNameProblem = keyNameProblem(memberKeyName);
          if (memberNameProblem !== null) {
            throw badRequest(`${prefix}: problem validating access group member public key and access group key name ${member.AccessGroupMemberKeyName}: ${memberNameProblem}`);
          }
          if (Buffer.compare(owner, memberKey) === 0 && Buffer.compare(group.keyName, padGroupKeyName(memberKeyName)) === 0) {
            throw badRequest(`${prefix}: can't include the owner of the group in the member list of the group using the same group key name.`);
          }
          if (operationType === AccessGroupMemberOperation.REMOVE && member.EncryptedKey !== '') throw badRequest(`${prefix}: encryptedKey should be empty for remove operations`);
          if (operationType === AccessGroupMemberOperation.REMOVE && Object.keys(member.ExtraData).length !== 0) throw badRequest(`${prefix}: extraData should be empty for remove operations`);
          const seenKey = Buffer.from(memberKey).toString('hex');
          if (seen.has(seenKey)) throw badRequest(`${prefix}: duplicate member entry in the member list for (${goBytes(memberKey)})cannot be empty`);
          seen.add(seenKey);

          const existing = await getAccessGroupMember(view, memberKey, group);
          if (operationType === AccessGroupMemberOperation.REMOVE || operationType === AccessGroupMemberOperation.UPDATE) {
            if (existing === undefined) throw badRequest(`${prefix}: access group member entry not found for publicKey ${member.AccessGroupMemberPublicKeyBase58Check}`);
            if (Buffer.compare(existing.memberKeyName, padGroupKeyName(memberKeyName)) !== 0) {
              throw badRequest(`${prefix}: can't ${MEMBER_OPERATION_NAMES[operationType]} group member with a different access group key name`);
            }
          }
          if (operationType === AccessGroupMemberOperation.ADD && existing !== undefined) {
            throw badRequest(`${prefix}: access group member entry already exists for publicKey ${member.AccessGroupMemberPublicKeyBase58Check}`);
          }
          members.push({ memberPublicKey: memberKey, memberKeyName, encryptedKey: utf8(member.EncryptedKey), extraData: encodeExtraData(member.ExtraData, deps) });
        }

        const metadata: TxnMetadata = { type: 'ACCESS_GROUP_MEMBERS', ownerPublicKey: owner, keyName: name, members, operationType };
        const r = await constructForRequest(deps, { publicKey: owner, metadata, fields: body });
        return json(
          constructedReply(r, {
            AccessGroupOwnerPublicKey: b64(owner),
            AccessGroupKeyName: b64(name),
            AccessGroupMembersList: members.map((m) => ({
              AccessGroupMemberPublicKey: b64(m.memberPublicKey),
              AccessGroupMemberKeyName: b64(m.memberKeyName),
              EncryptedKey: b64(m.encryptedKey),
              ExtraData: m.extraData.length === 0 ? null : Object.fromEntries(m.extraData.map(([k, val]) => [Buffer.from(k).toString('utf8'), b64(val)])),
            })),
            AccessGroupMemberOperationType: operationType,
          }),
        );
      },
    });

  return [
    groupRoute('/create-access-group', 'CreateAccessGroup', AccessGroupOperation.CREATE, 'Construct an ACCESS_GROUP create transaction (reference §4.2)'),
    groupRoute('/update-access-group', 'UpdateAccessGroup', AccessGroupOperation.UPDATE, 'Construct an ACCESS_GROUP update transaction (reference §4.2)'),
    memberRoute('/add-access-group-members', 'AddAccessGroupMembers', AccessGroupMemberOperation.ADD, 'Construct an ACCESS_GROUP_MEMBERS add transaction (reference §4.2)'),
    memberRoute('/remove-access-group-members', 'RemoveAccessGroupMembers', AccessGroupMemberOperation.REMOVE, 'Construct an ACCESS_GROUP_MEMBERS remove transaction (reference §4.2)'),
    memberRoute('/update-access-group-members', 'UpdateAccessGroupMembers', AccessGroupMemberOperation.UPDATE, 'Construct an ACCESS_GROUP_MEMBERS update transaction (reference §4.2)'),
  ];
}
