import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { loadContext, queryParams } from "../lib/http";
import { listDocument } from "../lib/jsonapi/document";
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
import { parseAllowInsecureHosts } from "../webhooks/ssrf";
import { listAlertsOfRule, serializeAlert } from "./rule-alerts";
import {
  type AlertRuleDeps,
  createAlertRule,
  deleteAlertRule,
  getAlertRule,
  getAlertSettings,
  listAlertRules,
  updateAlertRule,
  updateAlertSettings,
} from "./rule-service";
import {
  AlertListDocument,
  AlertRuleDocument,
  AlertRuleListDocument,
  AlertSettingsDocument,
  CreateAlertRuleBody,
  UpdateAlertRuleBody,
  UpdateAlertSettingsBody,
} from "./schemas";
import { alertRuleResource, serializeAlertRule, serializeAlertSettings } from "./serializer";

const tags = ["Alerts"];
const IdParam = pathIdParam("AlertRule");

/** The rule service's dependencies for this request (the allow list comes from `WEBHOOK_ALLOW_INSECURE_HOSTS`). */
export function alertRuleDeps(c: Context<AppEnv>): AlertRuleDeps {
  return {
    db: c.var.db,
    clock: c.var.clock,
    allowInsecureHosts: parseAllowInsecureHosts(c.env.WEBHOOK_ALLOW_INSECURE_HOSTS),
  };
}

const createRouteDef = createRoute({
  method: "post",
  path: "/alert_rules",
  tags,
  summary: "Create an alert rule",
  description:
    "A condition, an optional scope and one channel (e-mail, Slack, Teams or our signed webhook). Each (rule, box, episode) alerts once (docs/api.md §Alert rules). Every invalid field is reported, each with `source.pointer` and `code`; channel URLs pass the webhook SSRF rules.",
  request: { body: { content: jsonBodyContent(CreateAlertRuleBody), required: true } },
  responses: {
    201: { description: "Created.", content: jsonApiContent(AlertRuleDocument) },
    ...commonErrors,
    ...bodyErrors,
  },
});

const listRouteDef = createRoute({
  method: "get",
  path: "/alert_rules",
  tags,
  summary: "List alert rules",
  description:
    "Newest first, with each channel's delivery state (`last_delivery_status`, `last_error`, `failing_since`).",
  request: { query: z.object(listQuery) },
  responses: {
    200: { description: "A page of alert rules.", content: jsonApiContent(AlertRuleListDocument) },
    ...commonErrors,
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/alert_rules/{id}",
  tags,
  summary: "Get an alert rule",
  request: { params: IdParam },
  responses: {
    200: { description: "The rule.", content: jsonApiContent(AlertRuleDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const patchRouteDef = createRoute({
  method: "patch",
  path: "/alert_rules/{id}",
  tags,
  summary: "Update an alert rule",
  description:
    "Any attribute of create; the whole rule is checked again. A new channel starts its delivery state afresh.",
  request: { params: IdParam, body: { content: jsonBodyContent(UpdateAlertRuleBody), required: true } },
  responses: {
    200: { description: "The updated rule.", content: jsonApiContent(AlertRuleDocument) },
    ...commonErrors,
    ...notFoundResponse,
    ...bodyErrors,
  },
});

const deleteRouteDef = createRoute({
  method: "delete",
  path: "/alert_rules/{id}",
  tags,
  summary: "Delete an alert rule",
  description: "Answers 200 with an empty body, as webhooks do. Its pending alerts are not sent.",
  request: { params: IdParam },
  responses: { 200: { description: "Deleted (empty body)." }, ...commonErrors, ...notFoundResponse },
});

const listAlertsRouteDef = createRoute({
  method: "get",
  path: "/alert_rules/{id}/alerts",
  tags,
  summary: "List the alerts a rule raised",
  description:
    "Extension: the rule's alerts, newest first and paged, each with its `status` (`pending`, `digest`, `digested`, `succeeded`, `failed`), `attempts`, `last_error`, `delivered_at` and the box (`container` relationship): the rule's recent deliveries. Another account's rule answers 404.",
  request: { params: IdParam, query: z.object(listQuery) },
  responses: {
    200: { description: "A page of the rule's alerts.", content: jsonApiContent(AlertListDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const getSettingsDef = createRoute({
  method: "get",
  path: "/alert_settings",
  tags,
  summary: "Get the account's alert settings",
  description:
    "The time zone the daily digest hour and the quiet hours are read in (defaults: UTC, 08:00, no quiet hours).",
  responses: { 200: { description: "The settings.", content: jsonApiContent(AlertSettingsDocument) }, ...commonErrors },
});

const patchSettingsDef = createRoute({
  method: "patch",
  path: "/alert_settings",
  tags,
  summary: "Update the account's alert settings",
  description:
    "`time_zone` (IANA), `digest_hour` (0–23 local), `quiet_hours_start` / `quiet_hours_end` (local hours, both or neither; start > end wraps midnight). Alerts due in quiet hours are held and sent when they end.",
  request: { body: { content: jsonBodyContent(UpdateAlertSettingsBody), required: true } },
  responses: {
    200: { description: "The updated settings.", content: jsonApiContent(AlertSettingsDocument) },
    ...commonErrors,
    ...bodyErrors,
  },
});

/** Routes of `/alert_rules` and `/alert_settings` (issue 27 §2, docs/api.md §Alert rules). */
export const alertRoutes = new OpenAPIHono<AppEnv>()
  .openapi(createRouteDef, async (c) => {
    const a = c.req.valid("json").data.attributes;
    const row = await createAlertRule(alertRuleDeps(c), c.var.principal.accountId, a);
    return sendJsonApi(c, { data: serializeAlertRule(row) }, 201);
  })
  .openapi(listRouteDef, async (c) => {
    const page = parsePage(queryParams(c));
    const ctx = loadContext(c);
    const { rows, total } = await listAlertRules(ctx.db, ctx.accountId, page);
    return sendJsonApi(c, await listDocument(ctx, alertRuleResource, rows, new Map(), c.req.url, page, total));
  })
  .openapi(getRouteDef, async (c) => {
    const row = await getAlertRule(c.var.db, c.var.principal.accountId, c.req.valid("param").id);
    return sendJsonApi(c, { data: serializeAlertRule(row), links: { self: c.req.url } });
  })
  .openapi(patchRouteDef, async (c) => {
    const body = c.req.valid("json");
    const id = c.req.valid("param").id;
    if (body.data.id !== undefined && body.data.id !== id) {
      await getAlertRule(c.var.db, c.var.principal.accountId, id);
      throw ApiError.invalidField("/data/id", "data.id does not match the id in the path", "invalid");
    }
    const row = await updateAlertRule(alertRuleDeps(c), c.var.principal.accountId, id, body.data.attributes);
    return sendJsonApi(c, { data: serializeAlertRule(row), links: { self: c.req.url } });
  })
  .openapi(deleteRouteDef, async (c) => {
    await deleteAlertRule(c.var.db, c.var.principal.accountId, c.req.valid("param").id);
    return c.body(null, 200) as never;
  })
  .openapi(listAlertsRouteDef, async (c) => {
    const page = parsePage(queryParams(c));
    const { rows, total } = await listAlertsOfRule(c.var.db, c.var.principal.accountId, c.req.valid("param").id, page);
    const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, total);
    return sendJsonApi(c, { data: rows.map(serializeAlert), links, meta });
  })
  .openapi(getSettingsDef, async (c) => {
    const row = await getAlertSettings(c.var.db, c.var.principal.accountId);
    return sendJsonApi(c, { data: serializeAlertSettings(row), links: { self: c.req.url } });
  })
  .openapi(patchSettingsDef, async (c) => {
    const a = c.req.valid("json").data.attributes;
    const row = await updateAlertSettings({ db: c.var.db, clock: c.var.clock }, c.var.principal.accountId, a);
    return sendJsonApi(c, { data: serializeAlertSettings(row), links: { self: c.req.url } });
  });
