import { describe, expect, it } from "vitest";
import { insertAlert } from "../helpers/alert-rows";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";

// GET /alert_rules/{id}/alerts (extension, issue 28 §Settings; docs/api.md §Alert rules): the alerts a rule raised,
// newest first and paged, with their delivery state; another account's rule is a 404.

interface ListDoc {
  data: { id: string; type: string; attributes: Record<string, unknown>; relationships: Record<string, unknown> }[];
  meta?: { total?: number };
  links?: Record<string, string>;
  errors?: unknown[];
}

async function createRule(account: TestAccount): Promise<string> {
  const { res, json } = await apiJson<{ data: { id: string } }>("/alert_rules", {
    key: account.key,
    body: {
      data: {
        type: "alert_rule",
        attributes: { condition: "hold_changed", channel: { type: "email", address: "ops@acme-logistics.com" } },
      },
    },
  });
  expect(res.status).toBe(201);
  return json.data.id;
}

describe("GET /alert_rules/{id}/alerts", () => {
  it("lists the rule's alerts newest first with their status, attempts, error and box, paged", async () => {
    const account = await createAccount();
    const ruleId = await createRule(account);
    const other = await createRule(account);
    const older = await insertAlert(account.accountId, ruleId, { createdAt: "2030-01-01T00:00:00Z" });
    const newer = await insertAlert(account.accountId, ruleId, {
      createdAt: "2030-01-02T00:00:00Z",
      status: "failed",
      attempts: 5,
      lastError: "SMTP 550 mailbox unavailable",
      containerId: "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60",
    });
    await insertAlert(account.accountId, other);
    const { res, json } = await apiJson<ListDoc>(`/alert_rules/${ruleId}/alerts`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data.map((a) => a.id)).toEqual([newer, older]);
    expect(json.data[0]).toMatchObject({
      type: "alert",
      attributes: {
        condition: "hold_changed",
        status: "failed",
        attempts: 5,
        last_error: "SMTP 550 mailbox unavailable",
        channel_type: "email",
        created_at: "2030-01-02T00:00:00Z",
      },
      relationships: {
        container: { data: { id: "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60", type: "container" } },
        alert_rule: { data: { id: ruleId, type: "alert_rule" } },
      },
    });
    expect(json.data[0]?.attributes).not.toHaveProperty("channel_target");
    expect(json.meta?.total).toBe(2);
    const page = await apiJson<ListDoc>(`/alert_rules/${ruleId}/alerts?page[size]=1&page[number]=2`, {
      key: account.key,
    });
    expect(page.json.data.map((a) => a.id)).toEqual([older]);
  });

  it("answers 404 for another account's or an unknown rule, 400 for a bad page, 401 without a key", async () => {
    const account = await createAccount();
    const theirs = await createRule(await createAccount("Other"));
    expect((await api(`/alert_rules/${theirs}/alerts`, { key: account.key })).status).toBe(404);
    expect((await api("/alert_rules/0190f5c2-0000-7000-8000-000000000000/alerts", { key: account.key })).status).toBe(
      404,
    );
    const mine = await createRule(account);
    expect((await api(`/alert_rules/${mine}/alerts?page[number]=x`, { key: account.key })).status).toBe(400);
    expect((await api(`/alert_rules/${mine}/alerts`)).status).toBe(401);
    expect((await api(`/alert_rules/${mine}/alerts`, { key: "svc_test_not_a_key" })).status).toBe(401);
  });
});
