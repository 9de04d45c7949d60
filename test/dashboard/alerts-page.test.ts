import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { insertAlert } from "../helpers/alert-rows";
import { createAccount } from "../helpers/api";
import { csrfOf, fieldErrorOf, getPage, postForm } from "../helpers/page-forms";
import { createAccountWithWebUser, createWebUser, web } from "../helpers/web-session";

// /app/settings/alerts (issue 28 §Settings; docs/dashboard.md §Alerts): the alert settings and the alert rules
// through the REST operations' schemas and services (src/alerts/rule-service.ts), refusals next to their field with
// nothing stored, members write, viewers read, another account's rule a 404 page.

const PATH = "/app/settings/alerts";

const RULE: Record<string, string> = {
  name: "LA boxes: free time",
  condition: "free_time_ending",
  threshold_days: "2",
  threshold_hours: "",
  scope_ports: "uslax, USLGB",
  scope_scacs: "",
  scope_customers: "",
  channel_type: "email",
  channel_address: "ops@acme-logistics.com",
  channel_url: "",
  delivery: "immediate",
  active: "on",
};

interface RuleRow {
  id: string;
  name: string | null;
  condition: string;
  threshold_days: number | null;
  threshold_hours: number | null;
  scope: string;
  channel_type: string;
  channel_address: string | null;
  channel_url: string | null;
  secret: string | null;
  active: number;
}

async function rulesOf(accountId: string): Promise<RuleRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM alert_rules WHERE account_id = ?1 ORDER BY created_at")
    .bind(accountId)
    .all<RuleRow>();
  return results;
}

async function insertRule(accountId: string, name = "Holds at LA"): Promise<string> {
  const id = crypto.randomUUID();
  await env.DB.prepare(
    `INSERT INTO alert_rules (id, account_id, name, condition, scope, channel_type, channel_address, delivery, active,
       created_at, updated_at)
     VALUES (?1, ?2, ?3, 'hold_changed', '{}', 'email', 'ops@acme-logistics.com', 'immediate', 1, ?4, ?4)`,
  )
    .bind(id, accountId, name, "2030-01-01T00:00:00Z")
    .run();
  return id;
}

describe("the alerts page", () => {
  it("creates a rule through the form: the codes upper-cased, only the condition's threshold sent", async () => {
    const { accountId, user } = await createAccountWithWebUser("member");
    const page = await getPage(PATH, user);
    expect(page).toContain("<h1>Alerts</h1>");
    expect(page).toContain('<option value="America/Los_Angeles">America/Los Angeles</option>');
    const { res, html } = await postForm(PATH, user, { ...RULE, threshold_hours: "12" });
    expect(res.status).toBe(201);
    expect(html).toContain("Alert rule created.");
    const [row] = await rulesOf(accountId);
    expect(row).toMatchObject({
      name: "LA boxes: free time",
      condition: "free_time_ending",
      threshold_days: 2,
      threshold_hours: null,
      channel_type: "email",
      channel_address: "ops@acme-logistics.com",
      channel_url: null,
      active: 1,
    });
    expect(JSON.parse(row?.scope ?? "{}")).toEqual({ ports: ["USLAX", "USLGB"] });
    expect(await getPage(PATH, user)).toContain(`href="${PATH}/${row?.id}"`);
  });

  it("shows a webhook channel's signing secret once, and a Slack URL's host only in the list", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    const created = await postForm(PATH, user, {
      ...RULE,
      condition: "available_for_pickup",
      channel_type: "webhook",
      channel_address: "left-over@example.com",
      channel_url: "https://hooks.acme-logistics.com/alerts",
    });
    expect(created.res.status).toBe(201);
    const [row] = await rulesOf(accountId);
    expect(row?.channel_address).toBeNull();
    expect(row?.threshold_days).toBeNull();
    expect(row?.secret).toMatch(/^whsec_/);
    expect(created.html).toContain(row?.secret);
    expect(await getPage(`${PATH}/${row?.id}`, user)).not.toContain(row?.secret);

    await postForm(PATH, user, {
      ...RULE,
      channel_type: "slack",
      channel_url: "https://hooks.slack.com/services/T000/B000/SECRETPART",
    });
    const list = await getPage(PATH, user);
    expect(list).toContain("Slack to hooks.slack.com");
    expect(list).not.toContain("SECRETPART");
  });

  it("puts each refusal next to its field and stores nothing", async () => {
    const { accountId, user } = await createAccountWithWebUser("member");
    const { res, html } = await postForm(PATH, user, {
      ...RULE,
      threshold_days: "99",
      scope_ports: "LOSANGELES",
      channel_address: "not an address",
    });
    expect(res.status).toBe(422);
    expect(fieldErrorOf(html, "f-threshold_days")).toContain("0–60");
    expect(fieldErrorOf(html, "f-scope_ports")).toContain("LOSANGELES");
    expect(fieldErrorOf(html, "f-channel_address")).toContain("e-mail");
    expect(html).toContain('value="not an address"');

    const refusedUrl = await postForm(PATH, user, { ...RULE, channel_type: "teams", channel_url: "http://10.0.0.1/x" });
    expect(refusedUrl.res.status).toBe(422);
    expect(fieldErrorOf(refusedUrl.html, "f-channel_url")).not.toBeNull();
    const missing = await postForm(PATH, user, { ...RULE, threshold_days: "" });
    expect(fieldErrorOf(missing.html, "f-threshold_days")).toContain("required");
    const notANumber = await postForm(PATH, user, { ...RULE, threshold_days: "two" });
    expect(notANumber.res.status).toBe(422);
    expect(fieldErrorOf(notANumber.html, "f-threshold_days")).not.toBeNull();
    expect(await rulesOf(accountId)).toEqual([]);
  });

  it("saves the alert settings from the selects, and refuses quiet hours with one end", async () => {
    const { accountId, user } = await createAccountWithWebUser("member");
    const saved = await postForm(
      `${PATH}/settings`,
      user,
      { time_zone: "America/Los_Angeles", digest_hour: "7", quiet_hours_start: "20", quiet_hours_end: "6" },
      { from: PATH },
    );
    expect(saved.res.status).toBe(200);
    expect(saved.html).toContain("Alert settings saved.");
    expect(saved.html).toContain('<option value="America/Los_Angeles" selected="">');
    const settings = () =>
      env.DB.prepare(
        "SELECT time_zone, digest_hour, quiet_hours_start, quiet_hours_end FROM alert_settings WHERE account_id = ?1",
      )
        .bind(accountId)
        .first();
    expect(await settings()).toEqual({
      time_zone: "America/Los_Angeles",
      digest_hour: 7,
      quiet_hours_start: 20,
      quiet_hours_end: 6,
    });
    const refused = await postForm(
      `${PATH}/settings`,
      user,
      { time_zone: "Mars/Olympus_Mons", digest_hour: "9", quiet_hours_start: "22", quiet_hours_end: "" },
      { from: PATH },
    );
    expect(refused.res.status).toBe(422);
    expect(fieldErrorOf(refused.html, "f-time_zone")).toContain("Mars/Olympus_Mons");
    expect(fieldErrorOf(refused.html, "f-quiet_hours_end")).not.toBeNull();
    expect((await settings())?.digest_hour).toBe(7);
  });
});

describe("an alert rule's page", () => {
  it("edits (custom-field pairs one a line) and deletes when confirmed", async () => {
    const { accountId, user } = await createAccountWithWebUser("member");
    const id = await insertRule(accountId);
    await env.DB.prepare(`UPDATE alert_rules SET scope = '{"custom_fields":{"lane":"transpacific"}}' WHERE id = ?1`)
      .bind(id)
      .run();
    const path = `${PATH}/${id}`;
    const page = await getPage(path, user);
    expect(page).toContain("lane = transpacific</textarea>");
    const saved = await postForm(path, user, {
      ...RULE,
      condition: "eta_changed",
      threshold_hours: "24",
      scope_custom_fields: "lane = transpacific\r\n\r\n customer_ref =  PO 12=3 ",
    });
    expect(saved.res.status).toBe(200);
    let [row] = await rulesOf(accountId);
    expect(row).toMatchObject({ condition: "eta_changed", threshold_hours: 24, threshold_days: null });
    expect(JSON.parse(row?.scope ?? "{}")).toEqual({
      custom_fields: { lane: "transpacific", customer_ref: "PO 12=3" },
      ports: ["USLAX", "USLGB"],
    });
    const tooLong = await postForm(path, user, { ...RULE, scope_custom_fields: `${"x".repeat(201)} = y` });
    expect(tooLong.res.status).toBe(422);
    expect(fieldErrorOf(tooLong.html, "f-scope_custom_fields")).not.toBeNull();

    const refused = await postForm(path, user, { ...RULE, condition: "no_such_condition" });
    expect(refused.res.status).toBe(422);
    expect(fieldErrorOf(refused.html, "f-condition")).toContain("free_time_ending");
    [row] = await rulesOf(accountId);
    expect(row?.condition).toBe("eta_changed");

    const unconfirmed = await postForm(`${path}/delete`, user, {}, { from: path });
    expect(unconfirmed.res.status).toBe(422);
    expect(await rulesOf(accountId)).toHaveLength(1);
    const deleted = await postForm(`${path}/delete`, user, { confirm: "on" }, { from: path });
    expect(deleted.res.status).toBe(303);
    expect(await rulesOf(accountId)).toHaveLength(0);
  });

  it("shows the rule's recent alerts with their status and last error (GET /alert_rules/{id}/alerts)", async () => {
    const { accountId, user } = await createAccountWithWebUser("viewer");
    const id = await insertRule(accountId);
    const empty = await getPage(`${PATH}/${id}`, user);
    expect(empty).toContain("This rule has raised no alert yet.");
    await insertAlert(accountId, id, {
      containerId: "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60",
      status: "failed",
      attempts: 5,
      lastError: "SMTP 550 <mailbox> unavailable",
      episodeKey: "hold:CUSTOMS:placed:2030-01-02T00:00:00Z",
    });
    const page = await getPage(`${PATH}/${id}`, user);
    expect(page).toContain('href="/app/containers/0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60"');
    expect(page).toContain("hold:CUSTOMS:placed:2030-01-02T00:00:00Z");
    expect(page).toContain("<td>Failed</td>");
    expect(page).toContain("SMTP 550 &lt;mailbox&gt; unavailable");
  });

  it("renders a rule name and a custom field value with markup inert, on the list and the rule's page", async () => {
    const { accountId, user } = await createAccountWithWebUser("member");
    const attack = `<script>alert(1)</script>"><img src=x onerror=alert(1)>`;
    const id = await insertRule(accountId, attack);
    await env.DB.prepare("UPDATE alert_rules SET scope = ?1 WHERE id = ?2")
      .bind(JSON.stringify({ custom_fields: { lane: attack } }), id)
      .run();
    for (const html of [await getPage(PATH, user), await getPage(`${PATH}/${id}`, user)]) {
      expect(html).not.toContain("<script>alert(1)</script>");
      expect(html).not.toContain("<img src=x");
      expect(html).toContain("lane = &lt;script&gt;alert(1)&lt;/script&gt;");
    }
  });

  it("lets a viewer read without forms; refuses viewer writes (403), missing CSRF (403) and others' rules (404)", async () => {
    const { accountId, user: viewer } = await createAccountWithWebUser("viewer");
    const id = await insertRule(accountId);
    const list = await getPage(PATH, viewer);
    expect(list).toContain("Holds at LA");
    expect(list).not.toContain(`action="${PATH}"`);
    expect(await getPage(`${PATH}/${id}`, viewer)).not.toContain("Save changes");
    const csrf = csrfOf(list);
    for (const path of [PATH, `${PATH}/settings`, `${PATH}/${id}`, `${PATH}/${id}/delete`]) {
      const res = await web(path, { user: viewer, form: { ...RULE, _csrf: csrf, confirm: "on", time_zone: "UTC" } });
      expect(res.status, path).toBe(403);
    }
    const member = await createWebUser(accountId, "member");
    const noToken = await postForm(PATH, member, RULE, { csrf: null });
    expect(noToken.res.status).toBe(403);
    expect((await web(PATH, { form: RULE })).status).toBe(401);

    const other = await createAccount("Other");
    const theirs = await insertRule(other.accountId, "Their rule");
    const memberCsrf = csrfOf(await getPage(PATH, member));
    expect((await web(`${PATH}/${theirs}`, { user: member })).status).toBe(404);
    for (const path of [`${PATH}/${theirs}`, `${PATH}/${theirs}/delete`]) {
      const res = await web(path, { user: member, form: { ...RULE, _csrf: memberCsrf, confirm: "on" } });
      expect(res.status, path).toBe(404);
    }
    expect(await rulesOf(other.accountId)).toHaveLength(1);
    expect(await rulesOf(accountId)).toHaveLength(1);
  });
});
