import { env } from "cloudflare:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { trackSandboxShipment } from "../helpers/tracking";
import { expectMatchesOutputSchema } from "./fixtures";
import { connectMcp } from "./helpers";

// get_demurrage_report (docs/mcp.md §Tools): the charges of GET /v2/containers/{id}/charges and GET /v2/charges
// through a real MCP client, for one box (by id or number) and for the portfolio; another account's box is not found.

async function withCharges(account: TestAccount) {
  const { containerIds } = await trackSandboxShipment(account);
  const id = containerIds[0] ?? "";
  const { res } = await apiJson("/tariffs", {
    key: account.key,
    body: {
      data: {
        type: "tariff",
        attributes: {
          kind: "demurrage",
          free_days: 4,
          clock_starts_at: "discharged",
          tiers: [{ from_day: 1, to_day: null, rate_per_day: "100.00", currency_code: "USD" }],
        },
      },
    },
  });
  expect(res.status).toBe(201);
  const shipment = await env.DB.prepare("SELECT shipment_id, number FROM containers WHERE id = ?1")
    .bind(id)
    .first<{ shipment_id: string; number: string }>();
  await env.DB.batch([
    env.DB.prepare(
      `UPDATE containers SET pod_locode = 'USLAX', pod_timezone = 'America/Los_Angeles', pod_discharged_at = ?2,
         availability_known = 1, available_for_pickup = 1, pod_full_out_at = NULL, pickup_lfd_terminal = NULL,
         holds_at_pod_terminal = '[]' WHERE id = ?1`,
    ).bind(id, "2026-11-19T18:00:00Z"),
    env.DB.prepare(
      `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, timestamp, data_source, created_at)
       VALUES (?1, ?2, ?3, ?4, 'container.transport.available', '2026-11-19T18:00:00Z', 'terminal', '2026-11-19T18:00:00Z')`,
    ).bind(newId(), account.accountId, id, shipment?.shipment_id),
  ]);
  return { id, number: shipment?.number ?? "" };
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === "text" ? first.text : "";
}

describe("get_demurrage_report", () => {
  it("reports one box with its ledger (by id or number), and the portfolio with totals", async () => {
    const a = await createAccount("Alpha");
    const { id, number } = await withCharges(a);
    const { client } = await connectMcp(a.key);
    const tool = (await client.listTools()).tools.find((t) => t.name === "get_demurrage_report");
    expect(tool).toBeDefined();

    const one = (await client.callTool({
      name: "get_demurrage_report",
      arguments: { id: number, as_of: "2026-11-29" },
    })) as CallToolResult;
    expect(one.isError ?? false, textOf(one)).toBe(false);
    expectMatchesOutputSchema(tool?.outputSchema, one.structuredContent);
    // LFD 23 Nov; chargeable 24..29 Nov at 100.
    expect(one.structuredContent).toMatchObject({
      scope: "container",
      boxes: [{ container_id: id, demurrage: { last_free_day: "2026-11-23", amount_to_date: "600.00" } }],
    });
    expect(textOf(one)).toContain("600.00 USD to date, 700.00 if out tomorrow");

    const all = (await client.callTool({
      name: "get_demurrage_report",
      arguments: { as_of: "2026-11-29" },
    })) as CallToolResult;
    expectMatchesOutputSchema(tool?.outputSchema, all.structuredContent);
    expect(all.structuredContent).toMatchObject({
      scope: "portfolio",
      accruing: 1,
      totals: [{ currency_code: "USD", amount_to_date: "600.00", boxes: 1 }],
    });
    expect(textOf(all)).toMatch(/^1 box\(es\) accruing, 0 at risk/);
    await client.close();
  });

  it("does not find another account's box, and says when nothing needs attention", async () => {
    const a = await createAccount("Alpha");
    const { id } = await withCharges(a);
    const b = await createAccount("Beta");
    const { client } = await connectMcp(b.key);
    const theirs = (await client.callTool({ name: "get_demurrage_report", arguments: { id } })) as CallToolResult;
    expect(theirs.isError).toBe(true);
    expect(textOf(theirs)).not.toContain("USD");
    const empty = (await client.callTool({ name: "get_demurrage_report", arguments: {} })) as CallToolResult;
    expect(textOf(empty)).toContain("No box is accruing charges or at risk");
    await client.close();
  });
});

describe("check-demurrage", () => {
  it("asks for get_demurrage_report with the container's id", async () => {
    const a = await createAccount("Alpha");
    const { id } = await withCharges(a);
    const { client } = await connectMcp(a.key);
    const prompt = await client.getPrompt({ name: "check-demurrage", arguments: { container_id: id } });
    const first = prompt.messages[0]?.content;
    const text = first && first.type === "text" ? first.text : "";
    expect(text).toContain(`Then call get_demurrage_report with id "${id}"`);
    expect(text).toContain("not chargeable");
    await client.close();
  });
});
