import { z } from "@hono/zod-openapi";
import { USER_ROLES } from "../db/schema/users";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { freeText } from "../lib/validation";
import { INVITATION_STATUSES } from "./invitations";

/** Longest display name of a user, in characters. */
export const MAX_USER_NAME_LENGTH = 100;

const role = z.enum(USER_ROLES).openapi({
  description:
    "`admin` manages the team, API keys, webhooks, tariffs and alert rules; `member` tracks boxes and edits custom fields and documents; `viewer` only reads.",
  example: "member",
});

/** An e-mail address as typed: trimmed, kept lowercase (addresses are unique across the service), at most 254. */
export const EmailAddress = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: "must be an e-mail address (name@domain)" }).max(254))
  .openapi({ example: "dispatch@example.com" });

/** Attributes of a user as served. */
export const UserAttributes = z.object({
  email: z.string(),
  name: z.string().nullable(),
  role,
  created_at: z.string(),
  last_signed_in_at: z.string().nullable(),
  disabled_at: z.string().nullable().openapi({ description: "When the user was removed from the team; null: active." }),
});
/** JSON:API `user` resource. */
export const UserSchema = resourceSchema("user", UserAttributes, "User");
export const UserDocument = singleDocumentSchema(UserSchema, "UserDocument");
export const UserListDocument = listDocumentSchema(UserSchema, "UserList");

/** Body of `PATCH /users/{id}`. */
export const UpdateUserBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("user"),
      id: z.string().optional(),
      attributes: z.strictObject({ role: role.optional(), name: freeText(MAX_USER_NAME_LENGTH).nullable().optional() }),
    }),
  })
  .openapi("UpdateUserBody");

/** Attributes of an invitation as served (never its token). */
export const InvitationAttributes = z.object({
  email: z.string(),
  role,
  status: z.enum(INVITATION_STATUSES as [string, ...string[]]).openapi({
    description: "`pending` (the link works), `accepted`, `revoked` (withdrawn or replaced by a newer one), `expired`.",
  }),
  invited_by_user_id: z
    .string()
    .nullable()
    .openapi({ description: "The admin who invited; null when an API key did." }),
  created_at: z.string(),
  expires_at: z.string(),
  accepted_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
/** JSON:API `invitation` resource. */
export const InvitationSchema = resourceSchema("invitation", InvitationAttributes, "Invitation");
export const InvitationDocument = singleDocumentSchema(InvitationSchema, "InvitationDocument");
export const InvitationListDocument = listDocumentSchema(InvitationSchema, "InvitationList");

/** Body of `POST /invitations`. */
export const CreateInvitationBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("invitation"),
      attributes: z.strictObject({ email: EmailAddress, role }),
    }),
  })
  .openapi("CreateInvitationBody");
