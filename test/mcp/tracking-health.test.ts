import { env } from "cloudflare:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trackingHealthOf } from "../../src/containers/derived-views";
import { apiJson } from "../helpers/api";
import { expectMatchesOutputSchema, type TrackedAccount, trackedAccount } from "./fixtures";
import { connectMcp } from "./helpers";

// Issue 13 §1 through MCP: a container whose sources failed shows when and why on the MCP tools as on REST
// (`terminal_tracking_*`, `rail_tracking_*` on the container, `line_tracking_*` on its shipment), so an agent reading
// a container can tell stale data from news. The failures are written straight in D1 after the sandbox shipment is
// tracked (the engine's own writes are covered by test/tracking/source-health*.test.ts).

// biome-ignore lint/suspicious/noExplicitAny: structuredContent is validated against its schema; tests read it freely
type Structured = Record<string, any>;

const ATTEMPTED = "2026-11-25T10:00:00Z";
const ANSWERED = "2026-11-24T08:00:00Z";
const LINE_ATTEMPTED = "2026-11-25T09:30:00Z";
const LINE_SUCCEEDED = "2026-11-25T06:00:00Z";

let t: TrackedAccount;
let client: Client;
let tools: Map<string, Tool>;

const failing = () => t.containers[0] ?? { id: "", number: "" };
const healthy = () => t.containers[1] ?? { id: "", number: "" };

beforeAll(async () => {
  t = await trackedAccount();
  await env.DB.batch([
    env.DB.prepare(
      `UPDATE containers SET terminal_tracking_last_attempted_at = ?2, terminal_tracking_failed_reason = ?3,
         pod_last_tracking_request_at = ?4, rail_tracking_last_attempted_at = ?2, rail_tracking_failed_reason = ?5
       WHERE id = ?1`,
    ).bind(failing().id, ATTEMPTED, "terminal_credentials_rejected", ANSWERED, "terminal_unreachable"),
    env.DB.prepare(
      `UPDATE shipments SET line_tracking_last_attempted_at = ?2, line_tracking_last_succeeded_at = ?3,
         line_tracking_failed_reason = ?4 WHERE id = ?1`,
    ).bind(t.shipmentId, LINE_ATTEMPTED, LINE_SUCCEEDED, "shipping_line_unreachable"),
  ]);
  ({ client } = await connectMcp(t.account.key));
  tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
});

afterAll(async () => {
  await client?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<{ s: Structured; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError ?? false).toBe(false);
  expectMatchesOutputSchema(tools.get(name)?.outputSchema, result.structuredContent);
  const text = result.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  return { s: result.structuredContent as Structured, text };
}

describe("a container whose sources failed, through MCP", () => {
  it("get_container gives each source's last attempt, last answer and failure reason, as REST serves them", async () => {
    const { s, text } = await call("get_container", { id: failing().id });
    expect(s.tracking_health).toEqual({
      line_tracking_last_attempted_at: LINE_ATTEMPTED,
      line_tracking_last_succeeded_at: LINE_SUCCEEDED,
      line_tracking_failed_reason: "shipping_line_unreachable",
      terminal_tracking_last_attempted_at: ATTEMPTED,
      terminal_tracking_failed_reason: "terminal_credentials_rejected",
      pod_last_tracking_request_at: ANSWERED,
      rail_tracking_last_attempted_at: ATTEMPTED,
      rail_tracking_failed_reason: "terminal_unreachable",
      rail_last_tracking_request_at: null,
      failing_sources: ["shipping_line", "pod_terminal", "rail"],
      explanation: expect.stringContaining("refused the service's credentials"),
    });
    // The same values as the REST API's container and shipment.
    const rest = await apiJson<{ data: { attributes: Record<string, unknown> } }>(`/containers/${failing().id}`, {
      key: t.account.key,
    });
    expect(rest.json.data.attributes).toMatchObject({
      terminal_tracking_last_attempted_at: s.tracking_health.terminal_tracking_last_attempted_at,
      terminal_tracking_failed_reason: s.tracking_health.terminal_tracking_failed_reason,
      rail_tracking_failed_reason: s.tracking_health.rail_tracking_failed_reason,
    });
    // The text an agent reads names the failing source and the reason.
    expect(text).toContain("terminal_credentials_rejected");
    expect(text).toMatch(/POD terminal/);
  });

  it("a container whose sources answered says so, with no reasons", async () => {
    const { s, text } = await call("get_container", { id: healthy().id });
    expect(s.tracking_health).toMatchObject({
      terminal_tracking_failed_reason: null,
      rail_tracking_failed_reason: null,
      line_tracking_failed_reason: "shipping_line_unreachable",
      failing_sources: ["shipping_line"],
    });
    expect(text).not.toContain("terminal_credentials_rejected");
  });

  it("the container resource shows the failure too", async () => {
    const resource = await client.readResource({ uri: `svc://container/${failing().id}` });
    const first = resource.contents[0];
    expect(first && "text" in first ? first.text : "").toContain("terminal_credentials_rejected");
  });
});

describe("trackingHealthOf (pure)", () => {
  it("reads attributes a server does not send (an older REST API) as null, and nothing as failing", () => {
    expect(trackingHealthOf({}, null)).toEqual({
      line_tracking_last_attempted_at: null,
      line_tracking_last_succeeded_at: null,
      line_tracking_failed_reason: null,
      terminal_tracking_last_attempted_at: null,
      terminal_tracking_failed_reason: null,
      pod_last_tracking_request_at: null,
      rail_tracking_last_attempted_at: null,
      rail_tracking_failed_reason: null,
      rail_last_tracking_request_at: null,
      failing_sources: [],
      explanation: "Every source asked answered at its latest attempt.",
    });
  });

  it("names a source that never answered, and an unknown reason as it is", () => {
    const health = trackingHealthOf(
      { rail_tracking_failed_reason: "rate_limited", rail_tracking_last_attempted_at: ATTEMPTED },
      null,
    );
    expect(health.failing_sources).toEqual(["rail"]);
    expect(health.explanation).toBe(
      "The inland rail ramp failed (rate_limited; last attempt 2026-11-25 10:00 UTC; its data as of its last answer, none yet).",
    );
  });
});
