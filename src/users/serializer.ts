import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import type { InvitationView } from "./invitations";
import type { UserRow } from "./service";

/** Serialises a user (docs/api.md §Team and API keys): address, name, role and dates; nothing about sessions. */
export function serializeUser(row: UserRow): ResourceObject {
  return {
    id: row.id,
    type: "user",
    attributes: {
      email: row.email,
      name: row.name,
      role: row.role,
      created_at: row.createdAt,
      last_signed_in_at: row.lastSignedInAt,
      disabled_at: row.disabledAt,
    },
    links: { self: `/v2/users/${row.id}` },
  };
}

/** JSON:API type `user`; nothing to include. */
export const userResource = registerResourceType<UserRow>({
  type: "user",
  serializerName: "V2::UserSerializer",
  serialize: serializeUser,
  relationships: {},
});

/** Serialises an invitation with its status (never the token or its hash). */
export function serializeInvitation(row: InvitationView): ResourceObject {
  return {
    id: row.id,
    type: "invitation",
    attributes: {
      email: row.email,
      role: row.role,
      status: row.status,
      invited_by_user_id: row.invitedByUserId,
      created_at: row.createdAt,
      expires_at: row.expiresAt,
      accepted_at: row.acceptedAt,
      revoked_at: row.revokedAt,
    },
    links: { self: `/v2/invitations/${row.id}` },
  };
}

/** JSON:API type `invitation`; nothing to include. */
export const invitationResource = registerResourceType<InvitationView>({
  type: "invitation",
  serializerName: "V2::InvitationSerializer",
  serialize: serializeInvitation,
  relationships: {},
});
