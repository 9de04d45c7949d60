import { describe, expect, it } from "vitest";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";

interface Doc {
  data: { id: string; type: string; attributes: Record<string, unknown> };
  errors?: { source?: { pointer?: string }; code?: string }[];
  meta?: Record<string, unknown>;
}

function body(attributes: Record<string, unknown>) {
  return { data: { type: "alert_rule", attributes } };
}

const slackRule = {
  condition: "free_time_ending",
  threshold_days: 2,
  scope: { ports: ["USLAX"], scacs: ["MAEU"] },
  channel: { type: "slack", url: "https://hooks.slack.com/services/T000/B000/XXXX" },
};

async function create(account: TestAccount, attributes: Record<string, unknown> = slackRule) {
  return apiJson<Doc>("/alert_rules", { key: account.key, body: body(attributes) });
}

describe("/v2/alert_rules", () => {
  it("creates, reads, lists, updates and deletes a rule", async () => {
    const a = await createAccount();
    const { res, json } = await create(a);
    expect(res.status).toBe(201);
    expect(json.data.type).toBe("alert_rule");
    expect(json.data.attributes).toMatchObject({
      condition: "free_time_ending",
      threshold_days: 2,
      threshold_hours: null,
      scope: { ports: ["USLAX"], scacs: ["MAEU"] },
      channel: { type: "slack", address: null, url: "https://hooks.slack.com/services/T000/B000/XXXX" },
      delivery: "immediate",
      active: true,
      signing_secret: null,
      last_delivery_status: null,
      failing_since: null,
    });
    const id = json.data.id;
    const got = await apiJson<Doc>(`/alert_rules/${id}`, { key: a.key });
    expect(got.res.status).toBe(200);
    expect(got.json.data.id).toBe(id);
    const list = await apiJson<{ data: Doc["data"][]; meta: { total?: number } }>("/alert_rules", { key: a.key });
    expect(list.json.data.map((r) => r.id)).toEqual([id]);
    const patched = await apiJson<Doc>(`/alert_rules/${id}`, {
      key: a.key,
      method: "PATCH",
      body: {
        data: { attributes: { channel: { type: "webhook", url: "https://hooks.example.com/alerts" }, active: false } },
      },
    });
    expect(patched.res.status).toBe(200);
    expect(patched.json.data.attributes.active).toBe(false);
    expect(String(patched.json.data.attributes.signing_secret)).toMatch(/^whsec_/);
    const del = await apiJson(`/alert_rules/${id}`, { key: a.key, method: "DELETE" });
    expect(del.res.status).toBe(200);
    expect((await apiJson(`/alert_rules/${id}`, { key: a.key })).res.status).toBe(404);
  });

  it("creates an e-mail rule and a Teams rule, and an eta rule with hours", async () => {
    const a = await createAccount();
    const mail = await create(a, {
      condition: "hold_changed",
      channel: { type: "email", address: "ops@example.com" },
      delivery: "digest",
    });
    expect(mail.res.status).toBe(201);
    expect(mail.json.data.attributes.channel).toEqual({ type: "email", address: "ops@example.com", url: null });
    expect(mail.json.data.attributes.delivery).toBe("digest");
    const eta = await create(a, {
      condition: "eta_changed",
      threshold_hours: 12,
      channel: {
        type: "teams",
        url: "https://prod-00.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke",
      },
    });
    expect(eta.res.status).toBe(201);
  });

  it("422s every bad field with its pointer, and writes nothing", async () => {
    const a = await createAccount();
    const { res, json } = await create(a, {
      condition: "free_time_ending",
      scope: { ports: ["los angeles"], scacs: ["maersk"] },
      channel: { type: "slack", url: "http://127.0.0.1:9000/hook" },
      delivery: "weekly",
    });
    expect(res.status).toBe(422);
    const pointers = (json.errors ?? []).map((e) => e.source?.pointer).sort();
    expect(pointers).toEqual([
      "/data/attributes/channel/url",
      "/data/attributes/delivery",
      "/data/attributes/scope/ports/0",
      "/data/attributes/scope/scacs/0",
      "/data/attributes/threshold_days",
    ]);
    const bad = await create(a, { condition: "sunny", channel: { type: "pager", url: "x" } });
    expect((bad.json.errors ?? []).map((e) => e.source?.pointer)).toEqual([
      "/data/attributes/condition",
      "/data/attributes/channel/type",
    ]);
    const email = await create(a, {
      condition: "available_for_pickup",
      threshold_days: 3,
      channel: { type: "email", address: "not-an-address" },
    });
    expect((email.json.errors ?? []).map((e) => e.source?.pointer)).toEqual([
      "/data/attributes/threshold_days",
      "/data/attributes/channel/address",
    ]);
    const named = await create(a, { ...slackRule, name: "LA\u0007boxes" });
    expect(named.json.errors?.map((e) => [e.source?.pointer, e.code])).toEqual([
      ["/data/attributes/name", "control_character"],
    ]);
    const typed = await create(a, { condition: 3, channel: { type: "email" } });
    expect(typed.res.status).toBe(422);
    const metadata = await create(a, {
      condition: "tracking_failed",
      channel: { type: "webhook", url: "https://metadata.google.internal/x" },
    });
    expect(metadata.json.errors?.[0]?.code).toBe("host_not_allowed");
    const list = await apiJson<{ data: unknown[] }>("/alert_rules", { key: a.key });
    expect(list.json.data).toHaveLength(0);
  });

  it("answers 401 without a key or with a bad one, and 404 for another account's rule", async () => {
    const a = await createAccount();
    const b = await createAccount("Other");
    const { json } = await create(a);
    const id = json.data.id;
    expect((await apiJson("/alert_rules", {})).res.status).toBe(401);
    expect((await apiJson("/alert_rules", { key: "svc_test_nope" })).res.status).toBe(401);
    expect((await apiJson(`/alert_rules/${id}`, { key: b.key })).res.status).toBe(404);
    const patch = await apiJson(`/alert_rules/${id}`, {
      key: b.key,
      method: "PATCH",
      body: { data: { attributes: { active: false } } },
    });
    expect(patch.res.status).toBe(404);
    expect((await apiJson(`/alert_rules/${id}`, { key: b.key, method: "DELETE" })).res.status).toBe(404);
    const listB = await apiJson<{ data: unknown[] }>("/alert_rules", { key: b.key });
    expect(listB.json.data).toHaveLength(0);
    const still = await apiJson<Doc>(`/alert_rules/${id}`, { key: a.key });
    expect(still.json.data.attributes.active).toBe(true);
  });
});

describe("/v2/alert_settings", () => {
  it("has defaults, is updated, and 422s a bad time zone or half-set quiet hours", async () => {
    const a = await createAccount();
    const got = await apiJson<Doc>("/alert_settings", { key: a.key });
    expect(got.json.data.attributes).toMatchObject({ time_zone: "UTC", digest_hour: 8, quiet_hours_start: null });
    const patched = await apiJson<Doc>("/alert_settings", {
      key: a.key,
      method: "PATCH",
      body: {
        data: {
          attributes: { time_zone: "America/Los_Angeles", digest_hour: 7, quiet_hours_start: 20, quiet_hours_end: 6 },
        },
      },
    });
    expect(patched.res.status).toBe(200);
    expect(patched.json.data.attributes).toMatchObject({
      time_zone: "America/Los_Angeles",
      digest_hour: 7,
      quiet_hours_start: 20,
      quiet_hours_end: 6,
    });
    const bad = await apiJson<Doc>("/alert_settings", {
      key: a.key,
      method: "PATCH",
      body: { data: { attributes: { time_zone: "Mars/Olympus", quiet_hours_end: null } } },
    });
    expect(bad.res.status).toBe(422);
    expect((bad.json.errors ?? []).map((e) => e.source?.pointer)).toEqual([
      "/data/attributes/time_zone",
      "/data/attributes/quiet_hours_end",
    ]);
    const hour = await apiJson("/alert_settings", {
      key: a.key,
      method: "PATCH",
      body: { data: { attributes: { digest_hour: 24 } } },
    });
    expect(hour.res.status).toBe(422);
    const b = await createAccount("Other");
    const other = await apiJson<Doc>("/alert_settings", { key: b.key });
    expect(other.json.data.attributes.time_zone).toBe("UTC");
    expect((await apiJson("/alert_settings", {})).res.status).toBe(401);
  });
});
