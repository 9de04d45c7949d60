import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { DASHBOARD_CONTENT_SECURITY_POLICY } from "../../src/dashboard/headers";
import { setWebhookFetch } from "../../src/webhooks/send";
import { createAccount } from "../helpers/api";
import { csrfOf, fieldErrorOf, getPage, postForm } from "../helpers/page-forms";
import { insertNotification, insertWebhook, RecordingReceiver } from "../helpers/receiver";
import { createAccountWithWebUser, createWebUser, type TestWebUser, WEB_ORIGIN, web } from "../helpers/web-session";

// /app/settings/webhooks (issue 28 §Settings; docs/dashboard.md §Webhooks): the pages call the REST operations'
// services (create, edit, delete, trigger, rotate_secret, resend), a refused field comes back next to it with nothing
// stored, viewers and members read only, and another account's ids are 404 pages.

const PATH = "/app/settings/webhooks";
const URL_OK = "https://hooks.acme-logistics.com/events";

afterEach(() => setWebhookFetch(null));

async function webhookCount(accountId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM webhooks WHERE account_id = ?1")
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

async function storedWebhook(id: string) {
  return env.DB.prepare("SELECT url, events, active, secret FROM webhooks WHERE id = ?1")
    .bind(id)
    .first<{ url: string; events: string; active: number; secret: string }>();
}

async function storedHeaders(id: string): Promise<string | undefined> {
  const row = await env.DB.prepare("SELECT headers FROM webhooks WHERE id = ?1").bind(id).first<{ headers: string }>();
  return row?.headers;
}

describe("the webhooks list and create form", () => {
  it("renders the list under the dashboard's CSP and creates a webhook through the form, its secret shown once", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    const res = await web(PATH, { user });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CONTENT_SECURITY_POLICY);
    const page = await res.text();
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page).toContain("<h1>Webhooks</h1>");
    expect(page).toContain('value="container.transport.vessel_arrived"');
    expect(page).toContain('value="source_outage.started"');

    const created = await postForm(PATH, user, [
      ["url", URL_OK],
      ["events", "container.transport.vessel_arrived"],
      ["events", "container.updated"],
      ["active", "on"],
    ]);
    expect(created.res.status).toBe(201);
    const [row] = (
      await env.DB.prepare("SELECT id, secret, events, active FROM webhooks WHERE account_id = ?1")
        .bind(accountId)
        .all<{ id: string; secret: string; events: string; active: number }>()
    ).results;
    expect(row).toBeDefined();
    expect(JSON.parse(row?.events ?? "[]")).toEqual(["container.transport.vessel_arrived", "container.updated"]);
    expect(row?.active).toBe(1);
    expect(created.html).toContain(row?.secret);
    expect(created.html).toContain("<h1>Webhook</h1>");

    const list = await getPage(PATH, user);
    expect(list).toContain(`href="${PATH}/${row?.id}"`);
    expect(list).toContain(URL_OK);
    const detail = await getPage(`${PATH}/${row?.id}`, user);
    expect(detail).toContain(URL_OK);
    expect(detail).not.toContain(row?.secret);
  });

  it("subscribes to the whole catalog with one box", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    const created = await postForm(PATH, user, [
      ["url", URL_OK],
      ["all_events", "on"],
    ]);
    expect(created.res.status).toBe(201);
    const row = await env.DB.prepare("SELECT events FROM webhooks WHERE account_id = ?1")
      .bind(accountId)
      .first<{ events: string }>();
    expect(JSON.parse(row?.events ?? "[]")).toHaveLength(43);
  });

  it("shows the SSRF refusal and a missing event next to their fields, keeps what was typed, stores nothing", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    const refused = await postForm(PATH, user, [["url", "http://127.0.0.1:9999/hook"]]);
    expect(refused.res.status).toBe(422);
    expect(fieldErrorOf(refused.html, "f-url")).toMatch(/https|http/i);
    expect(fieldErrorOf(refused.html, "f-events")).not.toBeNull();
    expect(refused.html).toContain('value="http://127.0.0.1:9999/hook"');
    expect(refused.html).toContain('role="alert"');
    expect(await webhookCount(accountId)).toBe(0);

    const unknown = await postForm(PATH, user, [
      ["url", URL_OK],
      ["events", "no.such.event"],
    ]);
    expect(unknown.res.status).toBe(422);
    expect(fieldErrorOf(unknown.html, "f-events")).toContain("no.such.event");
    expect(await webhookCount(accountId)).toBe(0);
  });

  it("takes custom headers one a line, refuses a reserved one next to the field, and shows a viewer the names only", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    const refused = await postForm(PATH, user, [
      ["url", URL_OK],
      ["events", "container.updated"],
      ["headers", "X-Team: ops\nContent-Type: text/plain"],
    ]);
    expect(refused.res.status).toBe(422);
    expect(fieldErrorOf(refused.html, "f-headers")).not.toBeNull();
    expect(refused.html).toContain("X-Team: ops\nContent-Type: text/plain</textarea>");
    expect(await webhookCount(accountId)).toBe(0);

    const created = await postForm(PATH, user, [
      ["url", URL_OK],
      ["events", "container.updated"],
      ["headers", "X-Team: ops\r\n\r\nAuthorization: Bearer abc:def"],
    ]);
    expect(created.res.status).toBe(201);
    const row = await env.DB.prepare("SELECT id, headers FROM webhooks WHERE account_id = ?1")
      .bind(accountId)
      .first<{ id: string; headers: string }>();
    expect(JSON.parse(row?.headers ?? "[]")).toEqual([
      { name: "X-Team", value: "ops" },
      { name: "Authorization", value: "Bearer abc:def" },
    ]);
    const path = `${PATH}/${row?.id}`;
    expect(await getPage(path, user)).toContain("X-Team: ops\nAuthorization: Bearer abc:def</textarea>");
    const viewer = await createWebUser(accountId, "viewer");
    const seen = await getPage(path, viewer);
    expect(seen).toContain("X-Team, Authorization");
    expect(seen).not.toContain("Bearer abc");

    // Saving the form unchanged keeps them; emptying the field removes them.
    await postForm(path, user, [
      ["url", URL_OK],
      ["events", "container.updated"],
      ["headers", "X-Team: ops"],
    ]);
    expect(JSON.parse((await storedHeaders(row?.id ?? "")) ?? "[]")).toEqual([{ name: "X-Team", value: "ops" }]);
    await postForm(path, user, [
      ["url", URL_OK],
      ["events", "container.updated"],
      ["headers", ""],
    ]);
    expect(JSON.parse((await storedHeaders(row?.id ?? "")) ?? "[]")).toEqual([]);
  });

  it("answers a bad page parameter with a 400 page", async () => {
    const { user } = await createAccountWithWebUser("viewer");
    const res = await web(`${PATH}?page[number]=first`, { user });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("<h1>That did not work</h1>");
  });

  it("offers the catalog for a test when the webhook lists extension events only", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "admin");
    const hook = await insertWebhook(account, { url: URL_OK, events: ["source_outage.started"] });
    const page = await getPage(`${PATH}/${hook.id}`, user);
    expect(page).toMatch(/<select id="f-test-event" name="event"><option value="container.transport.vessel_arrived"/);
    const receiver = new RecordingReceiver(() => 204);
    setWebhookFetch(receiver.fetch);
    const from = `${PATH}/${hook.id}`;
    const { html } = await postForm(`${from}/test`, user, {}, { from });
    expect(html).toContain("Succeeded: HTTP 204");
    expect(receiver.requests).toHaveLength(1);
  });

  it("sends an action's URL opened with GET to the webhook's page", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "admin");
    const hook = await insertWebhook(account, { url: URL_OK });
    for (const action of ["test", "rotate-secret", "delete"]) {
      const res = await web(`${PATH}/${hook.id}/${action}`, { user });
      expect(res.status, action).toBe(303);
      expect(res.headers.get("location")).toBe(`${PATH}/${hook.id}`);
    }
    expect((await storedWebhook(hook.id))?.secret).toBe(hook.secret);
  });

  it("renders typed markup inert when the form comes back", async () => {
    const { user } = await createAccountWithWebUser("admin");
    const attack = `"><img src=x onerror=alert(1)><script>alert(1)</script>`;
    const { res, html } = await postForm(PATH, user, [
      ["url", attack],
      ["events", "container.updated"],
    ]);
    expect(res.status).toBe(422);
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script&gt;");
  });

  it("lets viewers and members read but not create; no CSRF token or no session changes nothing", async () => {
    const { user: viewer, ...account } = await createAccountWithWebUser("viewer");
    const { accountId } = account;
    const member = await createWebUser(accountId, "member");
    await insertWebhook(account, { url: URL_OK });
    const page = await getPage(PATH, viewer);
    expect(page).toContain(URL_OK);
    expect(page).not.toContain('action="/app/settings/webhooks"');
    for (const user of [viewer, member]) {
      const { res } = await postForm(
        PATH,
        user,
        [
          ["url", URL_OK],
          ["events", "container.updated"],
        ],
        { from: PATH },
      );
      expect(res.status).toBe(403);
    }
    const admin = await createWebUser(accountId, "admin");
    const noToken = await postForm(
      PATH,
      admin,
      [
        ["url", URL_OK],
        ["events", "container.updated"],
      ],
      { csrf: null },
    );
    expect(noToken.res.status).toBe(403);
    const anonymous = await web(PATH, { form: { url: URL_OK, events: "container.updated" } });
    expect(anonymous.status).toBe(401);
    const anonymousPage = await web(PATH);
    expect(anonymousPage.status).toBe(303);
    expect(await webhookCount(accountId)).toBe(1);
  });
});

/** A form post to the app under `overrides` of its vars (as `npm start` passes WEBHOOK_ALLOW_INSECURE_HOSTS). */
async function postWithVars(path: string, user: TestWebUser, fields: [string, string][], vars: Record<string, string>) {
  const csrf = csrfOf(await getPage(PATH, user));
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`${WEB_ORIGIN}${path}`, {
      method: "POST",
      headers: {
        Cookie: user.cookie,
        Origin: WEB_ORIGIN,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams([...fields, ["_csrf", csrf]]).toString(),
    }),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { res, html: await res.text() };
}

describe("a local receiver (npm start allows http://127.0.0.1)", () => {
  it("is created and tested from the pages, and the test delivery verifies with the secret the page showed", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    const vars = { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1,localhost" };
    const local = "http://127.0.0.1:9999/hook";
    const created = await postWithVars(
      PATH,
      user,
      [
        ["url", local],
        ["events", "container.updated"],
        ["active", "on"],
      ],
      vars,
    );
    expect(created.res.status).toBe(201);
    const secret = /id="webhook-secret"[^>]*value="([^"]+)"/.exec(created.html)?.[1];
    expect(secret).toMatch(/^whsec_/);
    const row = await env.DB.prepare("SELECT id, url FROM webhooks WHERE account_id = ?1")
      .bind(accountId)
      .first<{ id: string; url: string }>();
    expect(row?.url).toBe(local);

    const receiver = new RecordingReceiver(() => 200);
    setWebhookFetch(receiver.fetch);
    const tested = await postWithVars(`${PATH}/${row?.id}/test`, user, [["event", "container.updated"]], vars);
    expect(tested.res.status).toBe(200);
    expect(tested.html).toContain("Succeeded: HTTP 200");
    const [delivery] = receiver.requests;
    expect(delivery?.url).toBe(local);
    const headers = Object.fromEntries(delivery?.headers ?? []);
    expect(() => new Webhook(secret ?? "").verify(delivery?.body ?? "", headers)).not.toThrow();
    // Under the deployed configuration (no allow list) the same URL is refused next to the field.
    const refused = await postForm(PATH, user, [
      ["url", local],
      ["events", "container.updated"],
    ]);
    expect(fieldErrorOf(refused.html, "f-url")).not.toBeNull();
  });
});

describe("a webhook's page", () => {
  it("edits through the form, and a refused edit changes nothing", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "admin");
    const hook = await insertWebhook(account, { url: URL_OK, events: ["container.updated"] });
    const path = `${PATH}/${hook.id}`;
    const saved = await postForm(path, user, [
      ["url", "https://hooks.acme-logistics.com/v2"],
      ["events", "container.transport.full_out"],
    ]);
    expect(saved.res.status).toBe(200);
    expect(saved.html).toContain("Saved.");
    let row = await storedWebhook(hook.id);
    expect(row?.url).toBe("https://hooks.acme-logistics.com/v2");
    expect(JSON.parse(row?.events ?? "[]")).toEqual(["container.transport.full_out"]);
    expect(row?.active).toBe(0);

    const refused = await postForm(path, user, [
      ["url", "https://localhost/hook"],
      ["events", "container.updated"],
      ["active", "on"],
    ]);
    expect(refused.res.status).toBe(422);
    expect(fieldErrorOf(refused.html, "f-url")).not.toBeNull();
    row = await storedWebhook(hook.id);
    expect(row?.url).toBe("https://hooks.acme-logistics.com/v2");
    expect(row?.active).toBe(0);
  });

  it("sends a test delivery to the receiver, signed with the webhook's secret, and shows its outcome", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "admin");
    const hook = await insertWebhook(account, { url: URL_OK, events: ["container.transport.vessel_arrived"] });
    const receiver = new RecordingReceiver(() => 202);
    setWebhookFetch(receiver.fetch);
    const from = `${PATH}/${hook.id}`;
    const { res, html } = await postForm(
      `${from}/test`,
      user,
      { event: "container.transport.vessel_arrived" },
      { from },
    );
    expect(res.status).toBe(200);
    expect(html).toContain("Succeeded: HTTP 202");
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.url).toBe(URL_OK);
    expect(receiver.requests[0]?.headers.get("webhook-signature")).toMatch(/^v1,/);
    expect(JSON.parse(receiver.requests[0]?.body ?? "{}").data.attributes.event).toBe(
      "container.transport.vessel_arrived",
    );

    receiver.reply = () => 500;
    const failed = await postForm(`${from}/test`, user, { event: "container.transport.vessel_arrived" }, { from });
    expect(failed.html).toContain("Failed: HTTP 500");
  });

  it("rotates the secret (the new one shown once) and deletes only when confirmed", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "admin");
    const hook = await insertWebhook(account, { url: URL_OK });
    const path = `${PATH}/${hook.id}`;
    const rotated = await postForm(`${path}/rotate-secret`, user, {}, { from: path });
    expect(rotated.res.status).toBe(200);
    const row = await storedWebhook(hook.id);
    expect(row?.secret).not.toBe(hook.secret);
    expect(rotated.html).toContain(row?.secret);
    expect(rotated.html).not.toContain(hook.secret);

    const unconfirmed = await postForm(`${path}/delete`, user, {}, { from: path });
    expect(unconfirmed.res.status).toBe(422);
    expect(fieldErrorOf(unconfirmed.html, "f-confirm")).toContain("confirm");
    expect(await webhookCount(account.accountId)).toBe(1);
    const deleted = await postForm(`${path}/delete`, user, { confirm: "on" }, { from: path });
    expect(deleted.res.status).toBe(303);
    expect(deleted.res.headers.get("location")).toBe(PATH);
    expect(await webhookCount(account.accountId)).toBe(0);
  });

  it("lists the deliveries with their attempts, resends a failed one, and refuses to resend a pending one", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "admin");
    const hook = await insertWebhook(account, { url: URL_OK });
    setWebhookFetch(new RecordingReceiver(() => 200).fetch);
    const failed = await insertNotification(hook, { status: "failed", attempts: 3 });
    await env.DB.prepare(
      `INSERT INTO webhook_deliveries (id, notification_id, seq, attempt, status_code, latency_ms, error, created_at)
       VALUES ('00000000-0000-7000-8000-00000000d001', ?1, 1, 1, 500, 40, 'HTTP 500', '2030-01-01T00:01:00Z')`,
    )
      .bind(failed.id)
      .run();
    const pending = await insertNotification(hook, { status: "pending", createdAt: "2030-01-02T00:00:00Z" });
    const path = `${PATH}/${hook.id}`;
    const page = await getPage(path, user);
    expect(page).toContain("HTTP 500");
    expect(page).toContain(`${path}/notifications/${failed.id}/resend`);
    expect(page).not.toContain(`${path}/notifications/${pending.id}/resend`);
    const fragment = await getPage(`${path}/deliveries`, user);
    expect(fragment).toContain(`data-poll="${path}/deliveries"`);
    expect(fragment).not.toContain("<html");

    const resent = await postForm(`${path}/notifications/${failed.id}/resend`, user, {}, { from: path });
    expect(resent.res.status).toBe(200);
    expect(resent.html).toContain("Queued for delivery again.");
    const again = await postForm(`${path}/notifications/${pending.id}/resend`, user, {}, { from: path });
    expect(again.res.status).toBe(409);
    expect(again.html).toContain("still being delivered");
  });

  it("answers 404 pages for another account's webhook or notification, and 403 to a viewer's actions", async () => {
    const mine = await createAccountWithWebUser("admin");
    const other = await createAccount("Other");
    const theirs = await insertWebhook(other, { url: URL_OK });
    const theirNotification = await insertNotification(theirs, { status: "failed" });
    const ownHook = await insertWebhook(mine, { url: URL_OK });
    const csrf = csrfOf(await getPage(PATH, mine.user));
    const res = await web(`${PATH}/${theirs.id}`, { user: mine.user });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(await res.text()).toContain("<h1>Not found</h1>");
    expect((await web(`${PATH}/${theirs.id}/deliveries`, { user: mine.user })).status).toBe(404);
    for (const action of ["", "/test", "/rotate-secret", "/delete"]) {
      const posted = await web(`${PATH}/${theirs.id}${action}`, {
        user: mine.user,
        form: { _csrf: csrf, url: "https://evil.example.com/x", events: "container.updated", confirm: "on" },
      });
      expect(posted.status, action).toBe(404);
    }
    const resend = await web(`${PATH}/${ownHook.id}/notifications/${theirNotification.id}/resend`, {
      user: mine.user,
      form: { _csrf: csrf },
    });
    expect(resend.status).toBe(404);
    expect((await storedWebhook(theirs.id))?.url).toBe(URL_OK);

    const viewer = await createWebUser(mine.accountId, "viewer");
    const viewerCsrf = csrfOf(await getPage(`${PATH}/${ownHook.id}`, viewer));
    expect(await getPage(`${PATH}/${ownHook.id}`, viewer)).not.toContain("Send test");
    for (const action of ["", "/test", "/rotate-secret", "/delete"]) {
      const posted = await web(`${PATH}/${ownHook.id}${action}`, {
        user: viewer,
        form: { _csrf: viewerCsrf, confirm: "on", url: URL_OK, events: "container.updated" },
      });
      expect(posted.status, action).toBe(403);
    }
    expect(await webhookCount(mine.accountId)).toBe(1);
  });
});
