/**
 * Routes of this area: update-profile (reference node-api.md §4.2): the backend's checks and
 * texts, then an unsigned UPDATE_PROFILE. Creating a profile adds the node's
 * `createProfileFeeNanos` to the spend (the rule burns it). The picture must be a base64 data
 * URL of a png/jpeg/webp/gif and is stored as sent: this node does not re-encode it to webp.
 * @module
 */
import type { AppDeps } from '../deps.js';
import { getBalance } from '../chain/state/balances.js';
import { getProfile, getProfileByUsername } from '../chain/state/profiles.js';
import { isValidUsername, parseProfilePicDataUrl, PROFILE_LIMITS, type ProfilePicType } from '../chain/rules/profiles.js';
import { badRequest } from '../http/errors.js';
import { json, route, type Route } from '../http/route.js';
import { out, v } from '../schema.js';
import { PUBLIC_KEY_STRING_START } from '../keys/index.js';
import { CONSTRUCTED_WITH_HASH, constructedResponse, constructFields, constructForRequest } from './constructed.js';
import { decodeKeyOr400 } from './requestKeys.js';

export const updateProfileBody = v.object({
  UpdaterPublicKeyBase58Check: v.string({ maxLength: 200 }),
  /** "" = the updater's own profile; another key only for param updaters (checked on chain). */
  ProfilePublicKeyBase58Check: v.optional(v.string({ maxLength: 200 }), ''),
  NewUsername: v.optional(v.string({ maxLength: 1_000 }), ''),
  NewDescription: v.optional(v.string({ maxLength: 1_000_000 }), ''),
  NewProfilePic: v.optional(v.string({ maxLength: 5_000_000 }), ''),
  NewCreatorBasisPoints: v.optional(v.uint64(), 0n),
  NewStakeMultipleBasisPoints: v.optional(v.uint64(), 0n),
  IsHidden: v.optional(v.boolean(), false),
  ...constructFields,
});

export const updateProfileResponse = constructedResponse('UpdateProfileResponse', CONSTRUCTED_WITH_HASH, {
  CompProfileCreationTxnHashHex: out.literal('', 'Always "": this node does not comp profile creation'),
});

/** Leading bytes of each accepted image type. */
const IMAGE_MAGIC: Record<ProfilePicType, (b: Buffer) => boolean> = {
  png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (b) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  gif: (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
  webp: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};

/** Why `pic` is not an acceptable profile picture, or null. */
export function profilePicProblem(pic: string): string | null {
  const parsed = parseProfilePicDataUrl(pic);
  if ('problem' in parsed) return parsed.problem;
  if (!IMAGE_MAGIC[parsed.type](Buffer.from(parsed.base64, 'base64'))) return `the data is not a ${parsed.type} image`;
  return null;
}

const DECODE_ERROR = 'UpdateProfile: Problem decoding public key';

export function profileRoutes(deps: AppDeps): Route[] {
  const network = deps.config.network;
  return [
    route({
      method: 'POST',
      path: '/update-profile',
      summary: 'Construct an UPDATE_PROFILE transaction (reference §4.2); sign and submit it',
      body: updateProfileBody,
      response: updateProfileResponse,
      async handle({ body }) {
        const updater = decodeKeyOr400(body.UpdaterPublicKeyBase58Check, network, 'UpdaterPublicKeyBase58Check', DECODE_ERROR);
        const pending = await deps.chain.pendingView();
        // The fee in force on chain (global params; `--create-profile-fee-nanos` until updated).
        const createFee = (await deps.chain.globalParams(pending)).createProfileFeeNanos;

        // Who may write a profile: one who has a named profile, or can pay the creation fee.
        const own = await getProfile(pending, updater);
        if ((own === undefined || own.username === '') && (await getBalance(pending, updater)) < createFee) {
          throw badRequest('UpdateProfile: Not allowed to update profile. Please verify your phone number or buy DeSo.');
        }
        const profileKey = body.ProfilePublicKeyBase58Check === '' ? updater : decodeKeyOr400(body.ProfilePublicKeyBase58Check, network, 'ProfilePublicKeyBase58Check', DECODE_ERROR);

        const username = body.NewUsername;
        const prefix = PUBLIC_KEY_STRING_START[network];
        if (username.startsWith(prefix)) throw badRequest(`UpdateProfile: Username cannot start with ${prefix}`);
        const usernameBytes = new TextEncoder().encode(username);
        if (usernameBytes.length > PROFILE_LIMITS.maxUsernameBytes) throw badRequest('RuleErrorProfileUsernameTooLong');
        const description = new TextEncoder().encode(body.NewDescription);
        if (description.length > PROFILE_LIMITS.maxDescriptionBytes) throw badRequest('RuleErrorProfileDescriptionTooLong');
        const pic = new TextEncoder().encode(body.NewProfilePic);
        if (body.NewProfilePic !== '') {
          const problem = profilePicProblem(body.NewProfilePic);
          if (problem !== null) throw badRequest(`Problem resizing profile picture: ${problem}`);
          if (pic.length > PROFILE_LIMITS.maxProfilePicBytes) throw badRequest('RuleErrorMaxProfilePicSize');
        }
        if (body.NewCreatorBasisPoints > PROFILE_LIMITS.maxCreatorBasisPoints) {
          throw badRequest(`UpdateProfile: Creator percentage must be less than ${PROFILE_LIMITS.maxCreatorBasisPoints / 100n} percent`);
        }
        if (username !== '') {
          const owner = await getProfileByUsername(pending, username);
          if (owner !== undefined && Buffer.compare(owner.publicKey, profileKey) !== 0) throw badRequest(`UpdateProfile: Username ${owner.username} already exists`);
          if (!isValidUsername(usernameBytes)) throw badRequest('RuleErrorInvalidUsername');
        }

        // Creating a profile pays the creation fee on top of the network fee.
        const creating = (await getProfile(pending, profileKey)) === undefined;
        const { fields } = await constructForRequest(deps, {
          publicKey: updater,
          metadata: {
            type: 'UPDATE_PROFILE',
            profilePublicKey: body.ProfilePublicKeyBase58Check === '' ? new Uint8Array(0) : profileKey,
            newUsername: usernameBytes,
            newDescription: description,
            newProfilePic: pic,
            newCreatorBasisPoints: body.NewCreatorBasisPoints,
            newStakeMultipleBasisPoints: body.NewStakeMultipleBasisPoints,
            isHidden: body.IsHidden,
          },
          fields: body,
          extraSpendNanos: creating ? createFee : 0n,
        });
        return json({
          TotalInputNanos: fields.TotalInputNanos,
          ChangeAmountNanos: fields.ChangeAmountNanos,
          FeeNanos: fields.FeeNanos,
          Transaction: fields.Transaction,
          TransactionHex: fields.TransactionHex,
          TxnHashHex: fields.TxnHashHex,
          // This node does not comp profile creation (no phone verification or starter seed).
          CompProfileCreationTxnHashHex: '',
        });
      },
    }),
  ];
}
