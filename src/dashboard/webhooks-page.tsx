import { type Context, Hono } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { parsePage } from "../lib/jsonapi/pagination";
import { roleAllows } from "../sessions/session";
import type { WebhookNotificationView } from "../webhook-notifications/rows";
import {
  getWebhookNotification,
  listWebhookNotifications,
  resendWebhookNotification,
} from "../webhook-notifications/service";
import { isWebhookEvent, WEBHOOK_EVENTS } from "../webhooks/catalog";
import { webhookDeps } from "../webhooks/routes";
import { CreateWebhookBody, UpdateWebhookBody } from "../webhooks/schemas";
import type { WebhookRow } from "../webhooks/serializer";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  triggerWebhook,
  updateWebhook,
} from "../webhooks/service";
import {
  FormErrors,
  type FormValues,
  formChecked,
  formErrorsOf,
  formPairs,
  formString,
  formStrings,
  isFormError,
  parseWithSchema,
  readForm,
} from "./forms";
import { htmlErrors, type PageStatus, renderPage } from "./page-response";
import {
  DeliveriesSection,
  type LastDelivery,
  WEBHOOKS_PATH,
  type WebhookDetailExtras,
  WebhookDetailPage,
  type WebhookFormValues,
  WebhookListPage,
} from "./webhooks-views";

/** Least role that may create, change, test, rotate, resend or delete webhooks (docs/dashboard.md §Roles). */
export const WEBHOOK_WRITE_ROLE = "admin" as const;

/** Webhooks per page of the list. */
const LIST_PAGE_SIZE = 25;
/** Notifications shown on a webhook's page. */
const RECENT_DELIVERIES = 20;

function canWrite(c: Context<AppEnv>): boolean {
  return roleAllows(c.var.user.role, WEBHOOK_WRITE_ROLE);
}

function requireWrite(c: Context<AppEnv>): void {
  if (!canWrite(c)) throw new ApiError(403, [{ detail: `Changing webhooks needs the ${WEBHOOK_WRITE_ROLE} role.` }]);
}

/** The form's values: the URL, the ticked events (or the whole catalog), active. */
function webhookFormValues(form: FormValues): WebhookFormValues {
  const events = formChecked(form, "all_events") ? [...WEBHOOK_EVENTS] : formStrings(form, "events");
  return {
    url: formString(form, "url"),
    events,
    active: formChecked(form, "active"),
    headers: formString(form, "headers"),
  };
}

/** The REST attributes of the form: the headers parsed from their lines (the service checks each name and value). */
function webhookAttributes(form: FormValues) {
  const v = webhookFormValues(form);
  return { url: v.url, events: v.events, active: v.active, headers: formPairs(form, "headers") };
}

/** The newest notifications of a webhook with their attempts (the `GET /webhook_notifications` service). */
async function recentDeliveries(c: Context<AppEnv>, webhookId: string): Promise<WebhookNotificationView[]> {
  const { rows } = await listWebhookNotifications(
    c.var.db,
    c.var.user.accountId,
    { "filter[webhook_id]": webhookId },
    { number: 1, size: RECENT_DELIVERIES, sizeGiven: true, offset: 0 },
  );
  return rows;
}

async function listPage(c: Context<AppEnv>, form: WebhookFormValues, errors: FormErrors, status: PageStatus = 200) {
  const page = parsePage(new URL(c.req.url).searchParams, LIST_PAGE_SIZE);
  const accountId = c.var.user.accountId;
  const { rows, total } = await listWebhooks(c.var.db, accountId, page);
  // The newest notification of each webhook on the page, through the notifications list (one read each).
  const newest = await Promise.all(
    rows.map((w) =>
      listWebhookNotifications(
        c.var.db,
        accountId,
        { "filter[webhook_id]": w.id },
        { number: 1, size: 1, sizeGiven: true, offset: 0 },
      ),
    ),
  );
  const last = new Map<string, LastDelivery>(rows.map((w, i) => [w.id, newest[i]?.rows[0] ?? null]));
  return renderPage(
    c,
    <WebhookListPage
      user={c.var.user}
      canWrite={canWrite(c)}
      rows={rows}
      last={last}
      page={page}
      total={total}
      form={form}
      errors={errors}
    />,
    status,
  );
}

async function detailPage(
  c: Context<AppEnv>,
  webhook: WebhookRow,
  extras: WebhookDetailExtras = {},
  status: PageStatus = 200,
) {
  const deliveries = await recentDeliveries(c, webhook.id);
  return renderPage(
    c,
    <WebhookDetailPage
      user={c.var.user}
      canWrite={canWrite(c)}
      webhook={webhook}
      deliveries={deliveries}
      extras={extras}
    />,
    status,
  );
}

/**
 * The webhooks pages under /app/settings/webhooks (issue 28 §Settings; docs/dashboard.md §Webhooks). Each form calls
 * the service function of the REST operation it stands for, after the REST route's own body schema:
 * `POST /webhooks` (create; the secret shown once), `PATCH /webhooks/{id}` (edit), `DELETE /webhooks/{id}`,
 * `POST /webhooks/trigger` with the webhook's URL and secret ("Send test"; nothing stored, the outcome shown),
 * `POST /webhooks/{id}/rotate_secret` (the new secret shown once) and `POST /webhook_notifications/{id}/resend`.
 * The deliveries are `GET /webhook_notifications?filter[webhook_id]=`. Everybody signed in reads; writing needs
 * {@link WEBHOOK_WRITE_ROLE}. Another account's id is a 404 page; a refused field re-renders the form with the
 * service's message next to it and nothing stored.
 */
export const webhookPages = new Hono<AppEnv>();
webhookPages.use("*", htmlErrors);

webhookPages.get("/", (c) => listPage(c, { url: "", events: [], active: true, headers: "" }, FormErrors.none));

webhookPages.post("/", async (c) => {
  requireWrite(c);
  const form = await readForm(c);
  const values = webhookFormValues(form);
  try {
    const body = parseWithSchema(CreateWebhookBody, { data: { type: "webhook", attributes: webhookAttributes(form) } });
    const a = body.data.attributes;
    const row = await createWebhook(webhookDeps(c), c.var.user.accountId, {
      url: a.url,
      events: a.events,
      active: a.active,
      headers: a.headers,
    });
    return detailPage(c, row, { secret: row.secret, secretWhat: "Webhook created." }, 201);
  } catch (err) {
    if (isFormError(err)) return listPage(c, values, formErrorsOf(err), err.status);
    throw err;
  }
});

// An action's URL opened with GET (the address bar after a form post, a bookmark) goes to its page instead of a 405.
webhookPages.get("/:id/:action{test|rotate-secret|delete}", (c) =>
  c.redirect(`${WEBHOOKS_PATH}/${encodeURIComponent(c.req.param("id"))}`, 303),
);

webhookPages.get("/:id", async (c) => {
  const row = await getWebhook(c.var.db, c.var.user.accountId, c.req.param("id"));
  return detailPage(c, row);
});

webhookPages.get("/:id/deliveries", async (c) => {
  const row = await getWebhook(c.var.db, c.var.user.accountId, c.req.param("id"));
  const rows = await recentDeliveries(c, row.id);
  return c.html(<DeliveriesSection user={c.var.user} webhook={row} rows={rows} canWrite={canWrite(c)} />);
});

webhookPages.post("/:id", async (c) => {
  requireWrite(c);
  const id = c.req.param("id");
  const current = await getWebhook(c.var.db, c.var.user.accountId, id);
  const form = await readForm(c);
  const values = webhookFormValues(form);
  try {
    const body = parseWithSchema(UpdateWebhookBody, {
      data: { type: "webhook", id, attributes: webhookAttributes(form) },
    });
    const a = body.data.attributes;
    const row = await updateWebhook(webhookDeps(c), c.var.user.accountId, id, {
      url: a.url,
      events: a.events,
      active: a.active,
      headers: a.headers,
    });
    return detailPage(c, row, { notice: "Saved." });
  } catch (err) {
    if (isFormError(err)) return detailPage(c, current, { form: values, errors: formErrorsOf(err) }, err.status);
    throw err;
  }
});

webhookPages.post("/:id/test", async (c) => {
  requireWrite(c);
  const row = await getWebhook(c.var.db, c.var.user.accountId, c.req.param("id"));
  const event = formString(await readForm(c), "event") || (row.events.find(isWebhookEvent) ?? WEBHOOK_EVENTS[0] ?? "");
  try {
    const test = await triggerWebhook(webhookDeps(c), { url: row.url, event, secret: row.secret });
    return detailPage(c, row, { test });
  } catch (err) {
    if (isFormError(err)) return detailPage(c, row, { actionErrors: formErrorsOf(err, "") }, err.status);
    throw err;
  }
});

webhookPages.post("/:id/rotate-secret", async (c) => {
  requireWrite(c);
  const row = await rotateWebhookSecret(webhookDeps(c), c.var.user.accountId, c.req.param("id"));
  return detailPage(c, row, { secret: row.secret, secretWhat: "Secret rotated." });
});

webhookPages.post("/:id/delete", async (c) => {
  requireWrite(c);
  const id = c.req.param("id");
  const row = await getWebhook(c.var.db, c.var.user.accountId, id);
  if (!formChecked(await readForm(c), "confirm")) {
    const errors = new FormErrors([{ field: "confirm", detail: "Tick the box to confirm the deletion." }]);
    return detailPage(c, row, { actionErrors: errors }, 422);
  }
  await deleteWebhook(c.var.db, c.var.user.accountId, id);
  return c.redirect(WEBHOOKS_PATH, 303);
});

webhookPages.post("/:id/notifications/:notificationId/resend", async (c) => {
  requireWrite(c);
  const row = await getWebhook(c.var.db, c.var.user.accountId, c.req.param("id"));
  const notificationId = c.req.param("notificationId");
  // Only this webhook's notifications are resent from its page: another webhook's (or account's) id is a 404.
  const notification = await getWebhookNotification(c.var.db, c.var.user.accountId, notificationId);
  if (notification.webhookId !== row.id) throw ApiError.notFound("Couldn't find WebhookNotification");
  try {
    await resendWebhookNotification(
      { db: c.var.db, clock: c.var.clock, queue: c.env.WEBHOOK_DELIVERIES_QUEUE },
      c.var.user.accountId,
      notificationId,
    );
    return detailPage(c, row, { notice: "Queued for delivery again." });
  } catch (err) {
    if (isFormError(err)) return detailPage(c, row, { actionErrors: formErrorsOf(err) }, err.status);
    throw err;
  }
});
