import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { primaryContext, queryParams } from "../lib/http";
import { listLinksAndMeta, parsePage } from "../lib/jsonapi/pagination";
import {
  bodyErrors,
  commonErrors,
  jsonApiContent,
  jsonBodyContent,
  listQuery,
  notFoundResponse,
  pathIdParam,
  sendJsonApi,
} from "../lib/openapi";
import { checkBodyId } from "../lib/validation";
import { invitationTransport } from "./invitation-mail";
import {
  getInvitation,
  INVITATION_STATUSES,
  type InvitationDeps,
  type InvitationStatus,
  invitationBaseUrl,
  inviteUser,
  listInvitations,
  revokeInvitation,
} from "./invitations";
import {
  CreateInvitationBody,
  InvitationDocument,
  InvitationListDocument,
  UpdateUserBody,
  UserDocument,
  UserListDocument,
} from "./schemas";
import { invitationResource, userResource } from "./serializer";
import { getUser, listUsers, removeUser, type UserDeps, updateUser } from "./service";

const tags = ["Team"];
const UserId = pathIdParam("User");
const InvitationId = pathIdParam("Invitation");
const AS_ADMIN = "An API key acts as an admin of its account.";
const LAST_ADMIN =
  "An account keeps at least one admin: demoting or removing the last one is a 422 with code `last_admin`.";

/** The team services' dependencies of a request (REST and the dashboard alike). */
export function userDeps(c: Context<AppEnv>): UserDeps {
  return { db: c.get("primaryDb"), d1: c.env.DB, clock: c.get("clock") };
}

/** The invitation services' dependencies of a request: the link's origin is PUBLIC_BASE_URL or the request's. */
export function invitationDeps(c: Context<AppEnv>): InvitationDeps {
  return {
    db: c.get("primaryDb"),
    clock: c.get("clock"),
    transport: invitationTransport(c.env),
    baseUrl: invitationBaseUrl(c.env.PUBLIC_BASE_URL, c.req.url),
  };
}

const listUsersRoute = createRoute({
  method: "get",
  path: "/users",
  tags,
  summary: "List the team's users",
  description: `The account's active users (removed ones are left out), oldest first. ${AS_ADMIN}`,
  request: { query: z.object(listQuery) },
  responses: {
    200: { description: "A page of users.", content: jsonApiContent(UserListDocument) },
    ...commonErrors,
  },
});

const getUserRoute = createRoute({
  method: "get",
  path: "/users/{id}",
  tags,
  summary: "Get a user",
  description: "Also answers for a removed user (with `disabled_at`).",
  request: { params: UserId },
  responses: {
    200: { description: "The user.", content: jsonApiContent(UserDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const updateUserRoute = createRoute({
  method: "patch",
  path: "/users/{id}",
  tags,
  summary: "Change a user's role or name",
  description: `\`role\` (admin, member, viewer) and/or \`name\` (null clears it). ${LAST_ADMIN} A removed user is a 422 with code \`removed\`.`,
  request: { params: UserId, body: { content: jsonBodyContent(UpdateUserBody), required: true } },
  responses: {
    200: { description: "The user.", content: jsonApiContent(UserDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const removeUserRoute = createRoute({
  method: "delete",
  path: "/users/{id}",
  tags,
  summary: "Remove a user from the team",
  description: `Sets \`disabled_at\` and ends every session of the user at once; they can no longer sign in (invite them again to restore them). Removing a removed user changes nothing. ${LAST_ADMIN} Answers 200 with an empty body, as the other deletes do.`,
  request: { params: UserId },
  responses: {
    200: { description: "Removed (empty body)." },
    422: { description: "The account's last admin.", content: bodyErrors[422].content },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const listInvitationsRoute = createRoute({
  method: "get",
  path: "/invitations",
  tags,
  summary: "List invitations",
  description: "The account's invitations, newest first, each with its `status`; never their tokens.",
  request: {
    query: z.object({
      ...listQuery,
      "filter[status]": z
        .enum(INVITATION_STATUSES as [InvitationStatus, ...InvitationStatus[]])
        .optional()
        .openapi({ description: "Only invitations in this status.", example: "pending" }),
    }),
  },
  responses: {
    200: { description: "A page of invitations.", content: jsonApiContent(InvitationListDocument) },
    ...commonErrors,
  },
});

const createInvitationRoute = createRoute({
  method: "post",
  path: "/invitations",
  tags,
  summary: "Invite someone to the team",
  description:
    "E-mails `email` a one-time link to `/invitations/accept?token=…` (origin: `PUBLIC_BASE_URL`, else the request's), valid 7 days; accepting creates the user with `role` and signs them in. Only the token's SHA-256 is stored and it is never served. A newer invitation of the same address replaces a pending one. An address that already belongs to a user is a 422 (code `taken`); at most 100 pending invitations per account (422 `limit`). When the e-mail cannot be sent (no SMTP relay configured, or the relay refused) the answer is 503 and nothing is kept; locally, with `SIGN_IN_LINKS_TO_CONSOLE` = `true` and no relay, the link is written to the Worker's console instead.",
  request: { body: { content: jsonBodyContent(CreateInvitationBody), required: true } },
  responses: {
    201: { description: "Invited.", content: jsonApiContent(InvitationDocument) },
    503: {
      description: "The invitation e-mail could not be sent; nothing was kept.",
      content: bodyErrors[422].content,
    },
    ...commonErrors,
    ...bodyErrors,
  },
});

const getInvitationRoute = createRoute({
  method: "get",
  path: "/invitations/{id}",
  tags,
  summary: "Get an invitation",
  request: { params: InvitationId },
  responses: {
    200: { description: "The invitation.", content: jsonApiContent(InvitationDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const revokeInvitationRoute = createRoute({
  method: "delete",
  path: "/invitations/{id}",
  tags,
  summary: "Revoke an invitation",
  description:
    "Its link stops working. Revoking a revoked or expired invitation changes nothing; an accepted one is a 422 (code `accepted`: remove the user instead). Answers 200 with an empty body.",
  request: { params: InvitationId },
  responses: {
    200: { description: "Revoked (empty body)." },
    422: { description: "Already accepted.", content: bodyErrors[422].content },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/** Routes of `/users` and `/invitations` (issue 28; docs/api.md §Team and API keys), account-scoped. */
export const userRoutes = new OpenAPIHono<AppEnv>()
  .openapi(listUsersRoute, async (c) => {
    const { db, accountId } = primaryContext(c);
    const page = parsePage(queryParams(c));
    const { rows, total } = await listUsers(db, accountId, page);
    const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, total);
    return sendJsonApi(c, { data: rows.map(userResource.serialize), links, meta });
  })
  .openapi(getUserRoute, async (c) => {
    const { db, accountId } = primaryContext(c);
    const row = await getUser(db, accountId, c.req.valid("param").id);
    return sendJsonApi(c, { data: userResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(updateUserRoute, async (c) => {
    const { accountId } = primaryContext(c);
    const { id } = c.req.valid("param");
    const data = c.req.valid("json").data;
    checkBodyId(data.id, id);
    const row = await updateUser(userDeps(c), accountId, id, data.attributes);
    return sendJsonApi(c, { data: userResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(removeUserRoute, async (c) => {
    await removeUser(userDeps(c), c.get("principal").accountId, c.req.valid("param").id);
    return c.body(null, 200) as never;
  })
  .openapi(listInvitationsRoute, async (c) => {
    const { db, accountId } = primaryContext(c);
    const page = parsePage(queryParams(c));
    const status = c.req.valid("query")["filter[status]"];
    const { rows, total } = await listInvitations(db, accountId, page, c.get("clock").now(), status);
    const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, total);
    return sendJsonApi(c, { data: rows.map(invitationResource.serialize), links, meta });
  })
  .openapi(createInvitationRoute, async (c) => {
    const attributes = c.req.valid("json").data.attributes;
    const row = await inviteUser(invitationDeps(c), c.get("principal").accountId, attributes, null);
    const self = `${new URL(c.req.url).origin}/v2/invitations/${row.id}`;
    return sendJsonApi(c, { data: invitationResource.serialize(row), links: { self } }, 201);
  })
  .openapi(getInvitationRoute, async (c) => {
    const { db, accountId } = primaryContext(c);
    const row = await getInvitation(db, accountId, c.req.valid("param").id, c.get("clock").now());
    return sendJsonApi(c, { data: invitationResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(revokeInvitationRoute, async (c) => {
    await revokeInvitation(
      { db: c.get("primaryDb"), clock: c.get("clock") },
      c.get("principal").accountId,
      c.req.valid("param").id,
    );
    return c.body(null, 200) as never;
  });
