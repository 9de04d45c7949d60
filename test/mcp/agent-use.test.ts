import { createExecutionContext, env } from "cloudflare:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  McpError,
  type Progress,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LfdStatus, lfdStatusOf } from "../../src/containers/derived-views";
import { withCheckDigit } from "../../src/infer/iso6346";
import { toIsoSeconds } from "../../src/lib/clock";
import { handleMcpRequest } from "../../src/mcp/http";
import { TOOL_NAMES } from "../../src/mcp/register";
import { trimSchema } from "../../src/mcp/tools/calls";
import { apiJson, createAccount } from "../helpers/api";
import type { Many } from "../helpers/tracking";
import { expectMatchesOutputSchema, type TrackedAccount, trackedAccount } from "./fixtures";
import { connectMcp, initializeBody } from "./helpers";

// Issue 16: what an agent got wrong, each through a real MCP client (SDK Client over streamable HTTP into the Worker).

// biome-ignore lint/suspicious/noExplicitAny: structuredContent is validated against its schema; tests read it freely
type Structured = Record<string, any>;

let t: TrackedAccount;
let client: Client;
let tools: Map<string, Tool>;
/** The LFD of the second container: 2 minutes before the tests start (past, but rounds to 0.0 h at one decimal). */
let lfdJustPassed: string;

beforeAll(async () => {
  t = await trackedAccount();
  lfdJustPassed = toIsoSeconds(Date.now() - 2 * 60_000);
  await env.DB.prepare("UPDATE containers SET pickup_lfd_terminal = ?1, pickup_lfd = ?1 WHERE id = ?2")
    .bind(lfdJustPassed, second().id)
    .run();
  ({ client } = await connectMcp(t.account.key));
  tools = new Map((await client.listTools()).tools.map((x) => [x.name, x]));
});

afterAll(async () => {
  await client?.close();
});

const first = () => t.containers[0] ?? { id: "", number: "" };
const second = () => t.containers[1] ?? { id: "", number: "" };

async function call(name: string, args: Record<string, unknown> = {}, c: Client = client): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args })) as CallToolResult;
}

function ok(name: string, result: CallToolResult): Structured {
  const text = result.content.find((b) => b.type === "text");
  expect(result.isError ?? false, text && "text" in text ? text.text : "").toBe(false);
  expectMatchesOutputSchema(tools.get(name)?.outputSchema, result.structuredContent);
  return result.structuredContent as Structured;
}

function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  const block = result.content[0];
  return block && block.type === "text" ? block.text : "";
}

async function requestCount(key: string): Promise<number> {
  const { json } = await apiJson<Many>("/tracking_requests", { key });
  return json.meta?.total ?? -1;
}

describe("§1 LFD urgency: anything past the LFD instant is overdue", () => {
  const container = (pickup_lfd: string, pod_timezone = "America/Los_Angeles") => ({
    current_status: "available" as const,
    pickup_lfd,
    import_deadlines: { pickup_lfd_line: null, pickup_lfd_rail: null, pickup_lfd_terminal: pickup_lfd },
    terminal_checked_at: null,
    pod_timezone,
    final_destination_timezone: null,
  });
  const at = (lfd: string, nowIso: string): LfdStatus => lfdStatusOf(container(lfd), null, Date.parse(nowIso));

  it("the reported case: 1 min 46 s after the LFD is overdue, never 0 hours", () => {
    const s = at("2026-11-25T11:12:52Z", "2026-11-25T11:14:38Z");
    expect(s).toMatchObject({ urgency: "overdue", days_remaining: -1 });
    expect(s.hours_remaining).toBeLessThan(0);
  });

  it.each([
    ["1 s", 1_000],
    ["1 min", 60_000],
    ["3 min", 180_000],
    ["2 h", 7_200_000],
  ])("%s past the LFD: overdue with negative hours", (_label, pastMs) => {
    const lfd = "2026-06-12T06:59:00Z";
    const s = lfdStatusOf(container(lfd), null, Date.parse(lfd) + pastMs);
    expect(s.urgency).toBe("overdue");
    expect(s.hours_remaining).toBeLessThan(0);
    expect(s.days_remaining).toBe(-1);
  });

  it("at the LFD instant and 1 s before it: imminent", () => {
    const lfd = "2026-06-12T06:59:00Z";
    expect(lfdStatusOf(container(lfd), null, Date.parse(lfd)).urgency).toBe("imminent");
    expect(lfdStatusOf(container(lfd), null, Date.parse(lfd) - 1_000).urgency).toBe("imminent");
  });

  it("an LFD at 23:59 in the terminal's zone: imminent at 23:58 local, overdue at 00:01 local the next day", () => {
    // 2026-06-11 23:59 America/Los_Angeles (PDT, UTC−7) = 2026-06-12T06:59:00Z.
    const lfd = "2026-06-12T06:59:00Z";
    const before = at(lfd, "2026-06-12T06:58:00Z");
    expect(before).toMatchObject({ urgency: "imminent", pickup_lfd_local: "2026-06-11 23:59 America/Los_Angeles" });
    const after = at(lfd, "2026-06-12T07:01:00Z"); // 00:01 local on the 12th
    expect(after.urgency).toBe("overdue");
    expect(after.hours_remaining).toBeLessThan(0);
  });

  it("48 h and 1 s ahead is upcoming, not imminent (the 48 h bound is exact, not rounded)", () => {
    const lfd = "2026-06-12T06:59:00Z";
    expect(lfdStatusOf(container(lfd), null, Date.parse(lfd) - 48 * 3_600_000 - 1_000).urgency).toBe("upcoming");
  });

  it("through get_container: an LFD 2 minutes ago is overdue with negative hours remaining", async () => {
    const s = ok("get_container", await call("get_container", { id: second().id }));
    expect(s.last_free_day.pickup_lfd).toBe(lfdJustPassed);
    expect(s.last_free_day.urgency).toBe("overdue");
    expect(s.last_free_day.hours_remaining).toBeLessThan(0);
    expect(s.last_free_day.days_remaining).toBe(-1);
  });
});

describe("§2 unknown arguments are rejected; the reference's names are aliases", () => {
  it("an unknown top-level argument is an error naming it (and the closest known name)", async () => {
    const text = errorText(await call("list_containers", { statusx: "on_ship" }));
    expect(text).toContain("`statusx`");
    expect(text).toContain("did you mean `status`");
    const other = errorText(await call("get_container", { id: first().id, verbose: true }));
    expect(other).toMatch(/^Unknown argument `verbose` for get_container\./);
  });

  it("list_shipments tracking_stopped (the reference's boolean) filters like status", async () => {
    const stopped = ok("list_shipments", await call("list_shipments", { tracking_stopped: true }));
    expect(stopped.total).toBe(0);
    expect(stopped.applied_filters.status).toBe("tracking_stopped");
    const tracking = ok("list_shipments", await call("list_shipments", { tracking_stopped: false }));
    expect(tracking.items.map((s: Structured) => s.id)).toEqual([t.shipmentId]);
  });

  it("two names for one argument with different values is an error; the same value is fine", async () => {
    const text = errorText(await call("list_shipments", { tracking_stopped: true, status: "tracking" }));
    expect(text).toMatch(/Conflicting arguments: .*`tracking_stopped`/);
    ok("list_shipments", await call("list_shipments", { tracking_stopped: true, status: "tracking_stopped" }));
  });

  it("track_container containerNumber and bookingNumber find what is tracked and create nothing", async () => {
    const before = await requestCount(t.account.key);
    const byBox = ok("track_container", await call("track_container", { containerNumber: first().number }));
    expect(byBox).toMatchObject({ outcome: "already_tracked", tracking_request_created: false });
    expect(byBox.containers[0].id).toBe(first().id);
    const byBooking = ok("track_container", await call("track_container", { bookingNumber: t.billOfLading }));
    expect(byBooking.outcome).toBe("already_tracked");
    expect(byBooking.shipment.id).toBe(t.shipmentId);
    expect(await requestCount(t.account.key)).toBe(before);
  });

  it("include as a comma-separated string, intent ignored", async () => {
    const s = ok(
      "get_container",
      await call("get_container", { id: first().id, include: "shipment, transport_events", intent: "check LFD" }),
    );
    expect(s.transport_events).toBeDefined();
    const listed = ok("list_containers", await call("list_containers", { include: "shipment" }));
    expect(listed.items[0].shipment).toBeDefined();
  });

  it("list_tracking_requests takes filter[...] keys, top level or inside filters, and page[size]", async () => {
    const created = ok("list_tracking_requests", await call("list_tracking_requests", { "filter[status]": "created" }));
    expect(created.total).toBe(1);
    const failed = ok("list_tracking_requests", await call("list_tracking_requests", { "filter[status]": "failed" }));
    expect(failed.total).toBe(0);
    const byNumber = ok(
      "list_tracking_requests",
      await call("list_tracking_requests", {
        filters: { "filter[request_number]": t.billOfLading, "page[size]": 5 },
      }),
    );
    expect(byNumber).toMatchObject({ total: 1, page_size: 5 });
    const none = ok(
      "list_tracking_requests",
      await call("list_tracking_requests", { "filter[request_number]": "NOPE12345678" }),
    );
    expect(none.total).toBe(0);
    const paged = ok("list_containers", await call("list_containers", { "page[size]": "1", "page[number]": 2 }));
    expect(paged).toMatchObject({ page: 2, page_size: 1, total: 2 });
  });
});

describe("§3 errors name the argument the agent sent", () => {
  it("a date the API rejects is reported under updated_after, not filter[updated_at][start]", async () => {
    const text = errorText(await call("list_shipments", { updated_after: "2025-13-45" }));
    expect(text).toMatch(/^Invalid argument `updated_after`/);
    expect(text).not.toContain("filter[");
  });

  it("…and under the alias when the agent used one", async () => {
    const text = errorText(await call("list_tracking_requests", { "filter[updated_at][start]": "2025-13-45" }));
    expect(text).toMatch(/^Invalid argument `filter\[updated_at\]\[start\]`/);
    const alias = errorText(await call("list_shipments", { tracking_stopped: "yes" }));
    expect(alias).toMatch(/^Invalid argument `tracking_stopped`/);
  });

  it("a schema error is one line naming the argument, without the SDK's prefix", async () => {
    const text = errorText(await call("list_containers", { port: "LAX" }));
    expect(text).toMatch(/^Invalid argument `port`: /);
    expect(text).not.toContain("MCP error");
    expect(text).not.toContain("\n");
    expect(errorText(await call("track_container", {}))).toBe("Invalid argument `number`: required");
  });
});

describe("§4 protocol errors are -32602 with a one-line message", () => {
  async function rpcError(promise: Promise<unknown>): Promise<McpError> {
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }

  it("a malformed resource URI", async () => {
    const error = await rpcError(client.readResource({ uri: "svc://container/%ZZ" }));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^MCP error -32602: Invalid params: malformed percent-encoding/);
  });

  it("tools/call without a name, with non-object arguments, or for an unknown tool", async () => {
    const noName = await rpcError(client.request({ method: "tools/call", params: {} }, CallToolResultSchema));
    expect(noName.code).toBe(-32602);
    expect(noName.message).toBe(
      "MCP error -32602: Invalid params: `name` (the tool to call) is missing or not a string.",
    );
    const badArgs = await rpcError(
      client.request(
        { method: "tools/call", params: { name: "get_container", arguments: "MSCU1234566" } },
        CallToolResultSchema,
      ),
    );
    expect(badArgs.code).toBe(-32602);
    expect(badArgs.message).toBe(
      "MCP error -32602: Invalid params: `arguments` of get_container must be a JSON object.",
    );
    const unknown = await rpcError(client.callTool({ name: "get_containers", arguments: {} }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).not.toContain("\n");
  });

  it("a not-found resource carries the code prefix once", async () => {
    const error = await rpcError(client.readResource({ uri: `svc://container/${crypto.randomUUID()}` }));
    expect(error.code).toBe(-32002);
    expect(error.message.match(/MCP error/g)).toHaveLength(1);
  });
});

describe("§5 completions", () => {
  const complete = async (name: string, argument: string, value: string) =>
    (
      await client.complete({
        ref: { type: "ref/prompt", name: "track-shipment" },
        argument: { name: argument, value },
      })
    ).completion.values.concat(name === "" ? [] : []);

  it("the track-shipment carrier completes from names: maer → MAEU", async () => {
    expect(await complete("x", "carrier", "maer")).toContain("MAEU");
    expect(await complete("x", "carrier", "MSC")).toContain("MSCU");
  });

  it("the track-shipment container_number completes from the account's containers", async () => {
    expect((await complete("x", "container_number", "")).sort()).toEqual(t.containers.map((c) => c.number).sort());
    expect(await complete("x", "container_number", first().number.slice(0, 6))).toContain(first().number);
  });
});

describe("§6 search: a BL match brings its containers", () => {
  it("returns the shipment with its containers' ids, numbers and statuses", async () => {
    const s = ok("search_container", await call("search_container", { query: t.billOfLading }));
    expect(s.shipments).toHaveLength(1);
    const boxes = s.shipments[0].containers as Structured[];
    expect(boxes.map((c) => c.id).sort()).toEqual(t.containers.map((c) => c.id).sort());
    for (const c of boxes) {
      expect(c.number).toBe(t.containers.find((x) => x.id === c.id)?.number);
      expect(c.current_status).toBe("available");
    }
  });
});

describe("§7 track_container checks the number before creating anything", () => {
  it("ABC is impossible: invalid_number, nothing created", async () => {
    const account = await createAccount();
    const { client: c } = await connectMcp(account.key);
    try {
      for (const args of [{ number: "ABC" }, { number: "ABCD12345", numberType: "container" }]) {
        const result = await call("track_container", args, c);
        const s = ok("track_container", result);
        expect(s).toMatchObject({ outcome: "invalid_number", tracking_request_created: false, tracking_request: null });
        expect((result.content[0] as { text: string }).text).toMatch(/^Not tracked: /);
      }
      expect(await requestCount(account.key)).toBe(0);
    } finally {
      await c.close();
    }
  });

  it("a wrong check digit asks for confirmation with the corrected number; confirm_number goes ahead", async () => {
    const account = await createAccount();
    const { client: c } = await connectMcp(account.key);
    try {
      const right = withCheckDigit("ZZQU123456");
      const wrong = `${right.slice(0, 10)}${(Number(right.slice(10)) + 1) % 10}`;
      const s = ok("track_container", await call("track_container", { number: wrong }, c));
      expect(s).toMatchObject({
        outcome: "needs_confirmation",
        suggested_number: right,
        tracking_request_created: false,
      });
      expect(s.next_step).toContain(right);
      expect(s.next_step).toContain("confirm_number");
      expect(await requestCount(account.key)).toBe(0);
      const confirmed = ok(
        "track_container",
        await call("track_container", { number: wrong, confirm_number: true }, c),
      );
      expect(confirmed.outcome).toBe("needs_carrier");
    } finally {
      await c.close();
    }
  });
});

describe("§8 tools/list size", () => {
  it("is at most 25 KB for the 11 tools of issue 16 plus 2.3 KB per tool added since, with no safe-integer bounds", async () => {
    const listed = JSON.stringify(await client.listTools());
    // 25 KB was the budget of issue 16's 11 tools (about 2.3 KB each); the document tools (issue 26) list in 4.5 KB.
    expect(listed.length).toBeLessThanOrEqual(25_000 + 2_300 * (TOOL_NAMES.length - 11));
    expect(listed).not.toContain("9007199254740991");
    // Real bounds stay: page ≥ 1.
    const page = ((tools.get("list_containers")?.inputSchema.properties ?? {}) as Structured).page;
    expect(page.minimum).toBe(1);
  });

  it("trimSchema drops only the safe-integer bounds and $schema", () => {
    expect(
      trimSchema({
        $schema: "x",
        type: "object",
        properties: {
          n: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
          m: { minimum: 1 },
        },
      }),
    ).toEqual({ type: "object", properties: { n: { type: "integer" }, m: { minimum: 1 } } });
  });
});

describe("§9 guide resources and progress", () => {
  it("lists and reads the query guidance (every tool named) and the list display columns", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(["svc://docs/mcp-query-guidance", "svc://docs/list-display-columns"]));
    const guide = (await client.readResource({ uri: "svc://docs/mcp-query-guidance" })).contents[0] as {
      text: string;
      mimeType: string;
    };
    expect(guide.mimeType).toBe("text/markdown");
    for (const name of tools.keys()) expect(guide.text).toContain(name);
  });

  it("every display column is a field of that list tool's items", async () => {
    const read = (await client.readResource({ uri: "svc://docs/list-display-columns" })).contents[0] as {
      text: string;
      mimeType: string;
    };
    expect(read.mimeType).toBe("application/json");
    const catalog = JSON.parse(read.text) as Record<string, Record<string, { field: string }[]>>;
    expect(Object.keys(catalog).sort()).toEqual([
      "list_containers",
      "list_documents",
      "list_shipments",
      "list_tracking_requests",
    ]);
    for (const [tool, sets] of Object.entries(catalog)) {
      const properties = (tools.get(tool)?.outputSchema?.properties ?? {}) as Structured;
      const items = properties.items.items.properties as Structured;
      expect(Object.keys(sets)).toContain("default");
      for (const columns of Object.values(sets))
        for (const c of columns) expect(Object.keys(items), tool).toContain(c.field);
    }
  });

  it("a call with a progress token gets increasing progress notifications before its result", async () => {
    const seen: Progress[] = [];
    const result = (await client.callTool(
      { name: "track_container", arguments: { number: withCheckDigit("ZZQU765432") } },
      CallToolResultSchema,
      { onprogress: (p) => seen.push(p) },
    )) as CallToolResult;
    ok("track_container", result);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    const values = seen.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(seen.at(-1)?.total).toBe(seen.at(-1)?.progress);
  });
});

describe("§10 MCP_ALLOWED_HOSTS unset: the Worker's own host over HTTPS, the DNS-rebinding guard kept", () => {
  const post = (url: string, headers: Record<string, string> = {}, hosts = "") =>
    handleMcpRequest(
      new Request(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(initializeBody()),
      }),
      { ...env, MCP_ALLOWED_HOSTS: hosts },
      createExecutionContext(),
    );

  it("a fresh deploy serves its own host over HTTPS (a session opens with a key)", async () => {
    expect(env.MCP_ALLOWED_HOSTS ?? "").toBe("");
    expect((await post("https://tracking.example.com/mcp")).status).toBe(401);
    const opened = await post("https://tracking.example.com/mcp", { Authorization: `Token ${t.account.key}` });
    expect(opened.status).toBe(200);
    expect(opened.headers.get("mcp-session-id")).toBeTruthy();
  });

  it("over plain HTTP a foreign host is still refused (a rebound name reaching wrangler dev)", async () => {
    expect((await post("http://tracking.example.com/mcp")).status).toBe(403);
  });

  it("a foreign Origin is refused; the own origin passes", async () => {
    const url = "https://tracking.example.com/mcp";
    expect((await post(url, { Origin: "https://evil.example" })).status).toBe(403);
    expect((await post(url, { Origin: "https://tracking.example.com" })).status).toBe(401);
  });

  it("a configured MCP_ALLOWED_HOSTS replaces the default", async () => {
    expect((await post("https://tracking.example.com/mcp", {}, "mcp.example.com")).status).toBe(403);
    expect((await post("https://mcp.example.com/mcp", {}, "mcp.example.com")).status).toBe(401);
  });
});
