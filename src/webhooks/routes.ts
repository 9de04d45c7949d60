import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { loadContext, queryParams } from "../lib/http";
import { listDocument } from "../lib/jsonapi/document";
import { parsePage } from "../lib/jsonapi/pagination";
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
import {
  CreateWebhookBody,
  RotateSecretBody,
  TriggerResultSchema,
  TriggerWebhookBody,
  UpdateWebhookBody,
  WebhookDocument,
  WebhookEventCatalogDocument,
  WebhookListDocument,
  WebhookSourceIpsSchema,
} from "./schemas";
import { serializeEventCatalog, webhookResource } from "./serializer";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  triggerWebhook,
  updateWebhook,
  type WebhookDeps,
} from "./service";
import { webhookSourceIps } from "./source-ips";
import { parseAllowInsecureHosts } from "./ssrf";

const tags = ["Webhooks"];
const IdParam = pathIdParam("Webhook");

/** The service's dependencies for this request (the allow list comes from `WEBHOOK_ALLOW_INSECURE_HOSTS`). */
export function webhookDeps(c: Context<AppEnv>): WebhookDeps {
  return {
    db: c.var.db,
    clock: c.var.clock,
    allowInsecureHosts: parseAllowInsecureHosts(c.env.WEBHOOK_ALLOW_INSECURE_HOSTS),
  };
}

const eventsRouteDef = createRoute({
  method: "get",
  path: "/webhooks/events",
  tags,
  summary: "List the webhook event catalog",
  description:
    "Every event a webhook can subscribe to, grouped by category (`webhook_event_category` resources with `name` and `events: [{name, description}]`).",
  responses: {
    200: { description: "The catalog by category.", content: jsonApiContent(WebhookEventCatalogDocument) },
    ...commonErrors,
  },
});

const ipsRouteDef = createRoute({
  method: "get",
  path: "/webhooks/ips",
  tags,
  summary: "List the addresses webhook deliveries come from",
  description:
    "`{webhook_notification_ips, last_updated}` (a plain JSON object, as the reference serves it): the addresses or CIDR ranges the operator configured in `WEBHOOK_SOURCE_IPS` and the date in `WEBHOOK_SOURCE_IPS_UPDATED_AT`. On Cloudflare Workers deliveries leave from Cloudflare's shared egress ranges, which are not this service's alone, so the default list is empty and `last_updated` null: verify the delivery signature instead of the sender's address.",
  responses: {
    200: {
      description: "The configured delivery addresses.",
      content: { "application/json": { schema: WebhookSourceIpsSchema } },
    },
    ...commonErrors,
  },
});

const triggerRouteDef = createRoute({
  method: "post",
  path: "/webhooks/trigger",
  tags,
  summary: "Send a test delivery",
  description:
    "POSTs the example payload of `event` (the document `GET /webhook_notifications/examples?event=` returns) to `url`, signed when `secret` is given, and answers 200 with the attempt whatever the receiver answered (`succeeded` is true for 200/201/202/204). The URL must pass the same rules as a webhook's. No webhook is needed and nothing is stored. Body: a plain JSON object, not a JSON:API document.",
  request: { body: { content: jsonBodyContent(TriggerWebhookBody), required: true } },
  responses: {
    200: { description: "An attempt was made.", content: { "application/json": { schema: TriggerResultSchema } } },
    ...commonErrors,
    ...bodyErrors,
  },
});

const createRouteDef = createRoute({
  method: "post",
  path: "/webhooks",
  tags,
  summary: "Create a webhook",
  description:
    "Subscribes an HTTPS endpoint to events. Answers 201 with the webhook and its generated signing `secret` (`whsec_` + base64 of 32 random bytes). Every invalid field is reported, each with `source.pointer` and `code`.",
  request: { body: { content: jsonBodyContent(CreateWebhookBody), required: true } },
  responses: {
    201: { description: "Created.", content: jsonApiContent(WebhookDocument) },
    ...commonErrors,
    ...bodyErrors,
  },
});

const listRouteDef = createRoute({
  method: "get",
  path: "/webhooks",
  tags,
  summary: "List webhooks",
  description: "Newest first; each webhook carries its secret.",
  request: { query: z.object(listQuery) },
  responses: {
    200: { description: "A page of webhooks.", content: jsonApiContent(WebhookListDocument) },
    ...commonErrors,
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/webhooks/{id}",
  tags,
  summary: "Get a webhook",
  request: { params: IdParam },
  responses: {
    200: { description: "The webhook.", content: jsonApiContent(WebhookDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const patchRouteDef = createRoute({
  method: "patch",
  path: "/webhooks/{id}",
  tags,
  summary: "Update a webhook",
  description:
    "Changes any of `url`, `events`, `active`, `headers` with the rules of create. `active: true` re-activates a webhook the service disabled after failures (410 Gone, or 5 days without a success).",
  request: { params: IdParam, body: { content: jsonBodyContent(UpdateWebhookBody), required: true } },
  responses: {
    200: { description: "The updated webhook.", content: jsonApiContent(WebhookDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const deleteRouteDef = createRoute({
  method: "delete",
  path: "/webhooks/{id}",
  tags,
  summary: "Delete a webhook",
  description:
    "Answers 200 with an empty body, as the reference service does. The webhook's notifications and their delivery attempts are deleted with it: pending deliveries are cancelled and nothing more is sent to its URL.",
  request: { params: IdParam },
  responses: {
    200: { description: "Deleted (empty body)." },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const rotateSecretRouteDef = createRoute({
  method: "post",
  path: "/webhooks/{id}/rotate_secret",
  tags,
  summary: "Rotate a webhook's signing secret",
  description:
    "Replaces the webhook's `secret` with a new generated one and answers 200 with the webhook. For a grace period (default 24 hours; body `{\"grace_period_seconds\": 0…604800}` to choose, 0 for none) every delivery's `webhook-signature` carries a `v1,` signature of the new secret and one of the replaced secret, space-separated (Standard Webhooks libraries accept a delivery when any signature matches), so receivers can switch when ready; `X-SVC-Webhook-Signature` uses the new secret at once. `previous_secret_expires_at` says when the replaced secret stops signing; the replaced secret is never shown. Rotating again within a grace period drops the older secret. The body is optional: a plain JSON object, not a JSON:API document.",
  request: {
    params: IdParam,
    body: { content: jsonBodyContent(RotateSecretBody), required: false },
  },
  responses: {
    200: { description: "The webhook with its new secret.", content: jsonApiContent(WebhookDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

/**
 * Routes of `/webhooks` (docs/webhooks.md §Webhook endpoints, §Trigger, docs/decisions.md §Webhooks) and
 * `POST /webhooks/{id}/rotate_secret` (issue 11 §5). `/webhooks/events`, `/webhooks/ips` and `/webhooks/trigger` are
 * registered before `/webhooks/{id}` so that they are never read as an id.
 */
export const webhookRoutes = new OpenAPIHono<AppEnv>()
  .openapi(eventsRouteDef, (c) => sendJsonApi(c, { data: serializeEventCatalog(), links: { self: c.req.url } }))
  .openapi(ipsRouteDef, (c) => c.json(webhookSourceIps(c.env), 200))
  .openapi(triggerRouteDef, async (c) => {
    const body = c.req.valid("json");
    const result = await triggerWebhook(
      { allowInsecureHosts: parseAllowInsecureHosts(c.env.WEBHOOK_ALLOW_INSECURE_HOSTS), clock: c.var.clock },
      { url: body.url, event: body.event, secret: body.secret ?? null },
    );
    return c.json(result, 200);
  })
  .openapi(createRouteDef, async (c) => {
    const a = c.req.valid("json").data.attributes;
    const row = await createWebhook(webhookDeps(c), c.var.principal.accountId, {
      url: a.url,
      events: a.events,
      active: a.active,
      headers: a.headers,
    });
    return sendJsonApi(c, { data: webhookResource.serialize(row) }, 201);
  })
  .openapi(listRouteDef, async (c) => {
    const page = parsePage(queryParams(c));
    const ctx = loadContext(c);
    const { rows, total } = await listWebhooks(ctx.db, ctx.accountId, page);
    return sendJsonApi(c, await listDocument(ctx, webhookResource, rows, new Map(), c.req.url, page, total));
  })
  .openapi(getRouteDef, async (c) => {
    const row = await getWebhook(c.var.db, c.var.principal.accountId, c.req.valid("param").id);
    return sendJsonApi(c, { data: webhookResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(patchRouteDef, async (c) => {
    const body = c.req.valid("json");
    const a = body.data.attributes;
    const row = await updateWebhook(webhookDeps(c), c.var.principal.accountId, c.req.valid("param").id, {
      bodyId: body.data.id,
      url: a.url,
      events: a.events,
      active: a.active,
      headers: a.headers,
    });
    return sendJsonApi(c, { data: webhookResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(rotateSecretRouteDef, async (c) => {
    const body = c.req.valid("json");
    const row = await rotateWebhookSecret(
      webhookDeps(c),
      c.var.principal.accountId,
      c.req.valid("param").id,
      body.grace_period_seconds,
    );
    // The document's self link is the URL that produced it, absolute, as for the shipments' stop/resume actions.
    return sendJsonApi(c, { data: webhookResource.serialize(row), links: { self: c.req.url } });
  })
  .openapi(deleteRouteDef, async (c) => {
    await deleteWebhook(c.var.db, c.var.principal.accountId, c.req.valid("param").id);
    return c.body(null, 200) as never;
  });
