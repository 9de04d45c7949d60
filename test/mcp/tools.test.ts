import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withCheckDigit } from "../../src/infer/iso6346";
import { TOOL_NAMES } from "../../src/mcp/register";
import { apiJson, createAccount } from "../helpers/api";
import type { Many } from "../helpers/tracking";
import {
  expectMatchesOutputSchema,
  matchesOutputSchema,
  seedTransshipmentJourney,
  type TrackedAccount,
  trackedAccounts,
} from "./fixtures";
import { connectMcp } from "./helpers";

// Every tool through a real MCP client (SDK Client over streamable HTTP into the Worker): results are checked for
// content, and every structuredContent is validated against the output schema the tool advertises.

// biome-ignore lint/suspicious/noExplicitAny: structuredContent is validated against its schema; tests read it freely
type Structured = Record<string, any>;

let shared: TrackedAccount;
/** An account with the same data but without the `routing` feature. */
let plain: TrackedAccount;
let client: Client;
let tools: Map<string, Tool>;
let eta: string;

beforeAll(async () => {
  // Every account that tracks the sandbox shipment is made here, before the terminal facts are written (fixtures.ts).
  [shared, plain] = (await trackedAccounts([["routing"], []])) as [TrackedAccount, TrackedAccount];
  ({ eta } = await seedTransshipmentJourney(shared, shared.containers[0]?.id ?? ""));
  ({ client } = await connectMcp(shared.account.key));
  tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
});

afterAll(async () => {
  await client?.close();
});

/** Calls a tool and returns the result (the SDK client has already validated structuredContent when present). */
async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args })) as CallToolResult;
}

/** Asserts a successful result: not an error, a text summary first, structuredContent valid for the tool. */
function ok(name: string, result: CallToolResult): Structured {
  const text = result.content.find((b) => b.type === "text");
  expect(result.isError ?? false, text && "text" in text ? text.text : "").toBe(false);
  expect(result.content[0]?.type).toBe("text");
  expectMatchesOutputSchema(tools.get(name)?.outputSchema, result.structuredContent);
  return result.structuredContent as Structured;
}

/** The text of an error result. */
function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  const first = result.content[0];
  return first && first.type === "text" ? first.text : "";
}

const first = () => shared.containers[0] ?? { id: "", number: "" };
const second = () => shared.containers[1] ?? { id: "", number: "" };

describe("tools/list", () => {
  it("lists the tools, each with a description, input and output schema and annotations", () => {
    expect([...tools.keys()].sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools.values()) {
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.annotations?.destructiveHint, tool.name).toBe(false);
    }
  });

  it("marks track_container as the one write, open-world tool; the others read-only and closed-world", () => {
    for (const tool of tools.values()) {
      const write = tool.name === "track_container";
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(!write);
      expect(tool.annotations?.openWorldHint, tool.name).toBe(write);
    }
  });

  it('uses no `type: [..., "null"]` arrays in any schema (portable JSON Schema; nullable is anyOf)', () => {
    const offenders: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) {
        for (const [i, n] of node.entries()) walk(n, `${path}[${i}]`);
      } else if (node && typeof node === "object") {
        for (const [k, v] of Object.entries(node)) {
          if (k === "type" && Array.isArray(v)) offenders.push(path);
          walk(v, `${path}.${k}`);
        }
      }
    };
    for (const tool of tools.values()) walk({ in: tool.inputSchema, out: tool.outputSchema }, tool.name);
    expect(offenders).toEqual([]);
  });

  it("the schema check can fail: a structuredContent missing a required field does not validate", async () => {
    const result = await call(client, "get_container", { id: first().id });
    const structured = { ...(result.structuredContent as Structured) };
    delete structured.readiness;
    expect(matchesOutputSchema(tools.get("get_container")?.outputSchema, structured)).toBe(false);
  });
});

describe("search_container", () => {
  it("finds a container by number (case and dashes ignored) and the shipment by its BL number", async () => {
    const byBox = ok(
      "search_container",
      await call(client, "search_container", {
        query: first()
          .number.toLowerCase()
          .replace(/^(....)/, "$1-"),
      }),
    );
    expect(byBox.containers.map((c: Structured) => c.id)).toEqual([first().id]);
    expect(byBox.containers[0].resource_uri).toBe(`svc://container/${first().id}`);
    expect(byBox.containers[0].active_holds).toEqual(["customs"]);

    const byBl = ok("search_container", await call(client, "search_container", { query: shared.billOfLading }));
    expect(byBl.shipments.map((s: Structured) => s.id)).toEqual([shared.shipmentId]);
    expect(byBl.shipments[0]).toMatchObject({
      shipping_line_scac: "TEST",
      port_of_discharge_locode: "USLAX",
      container_count: 2,
    });
    expect(byBl.tracking_requests[0]).toMatchObject({ status: "created", shipment_id: shared.shipmentId });
    expect(byBl.total_results).toBe(byBl.shipments.length + byBl.tracking_requests.length + byBl.containers.length);
  });

  it("finds what GET /v2/search finds, in its order: a port finds the shipment and its containers", async () => {
    const byPort = ok("search_container", await call(client, "search_container", { query: "uslax" }));
    expect(byPort.shipments.map((s: Structured) => [s.id, s.match])).toEqual([[shared.shipmentId, "exact"]]);
    expect(byPort.containers.map((c: Structured) => c.match)).toEqual(["exact", "exact"]);
    const { json } = await apiJson<Many>("/search?query=uslax", { key: shared.account.key });
    expect(json.data.map((r) => r.id)).toEqual([
      ...byPort.shipments.map((s: Structured) => s.id),
      ...byPort.containers.map((c: Structured) => c.id),
    ]);
  });

  it("finds a container by the start of its number, marked as a prefix match", async () => {
    const result = await call(client, "search_container", { query: first().number.slice(0, 8) });
    const s = ok("search_container", result);
    expect(s.containers.find((c: Structured) => c.id === first().id)?.match).toBe("prefix");
    expect((result.content[0] as { text: string }).text).toContain("prefix match");
  });

  it("an unknown number is an empty result, not an error", async () => {
    const result = await call(client, "search_container", { query: "NOPE1234567" });
    const s = ok("search_container", result);
    expect(s.total_results).toBe(0);
    expect((result.content[0] as { text: string }).text).toContain("track_container");
  });

  it("rejects an unpaired surrogate and control characters as the REST endpoint does (invalid argument)", async () => {
    expect(errorText(await call(client, "search_container", { query: "MSCU\ud800" }))).toMatch(/query/i);
    expect(errorText(await call(client, "search_container", { query: "MSCU\u0007" }))).toMatch(/control/i);
  });

  it("rejects an empty query through the input schema", async () => {
    const result = await call(client, "search_container", { query: "" });
    expect(errorText(result)).toMatch(/query/i);
  });
});

describe("get_container", () => {
  it("gives readiness (docs/api.md §Readiness), LFD urgency, holds and fees without the `total` line", async () => {
    const s = ok("get_container", await call(client, "get_container", { id: first().id }));
    expect(s.number).toBe(first().number);
    expect(s.current_status).toBe("available");
    expect(s.readiness).toMatchObject({
      status: "not_ready",
      ready_for_pickup: false,
      available_for_pickup: true,
      active_holds: ["customs"],
      pending_holds: ["TMF"],
      signals_disagree: true,
    });
    expect(s.last_free_day.urgency).toBe("imminent");
    expect(s.last_free_day.source).toBe("line");
    expect(s.last_free_day.hours_remaining).toBeGreaterThan(29);
    expect(s.last_free_day.hours_remaining).toBeLessThanOrEqual(30);
    expect(s.last_free_day.pickup_lfd_local).toMatch(/America\/Los_Angeles$/);
    expect(s.fees.items.map((f: Structured) => f.type)).toEqual(["demurrage", "exam"]);
    expect(s.fees.sum_by_currency).toEqual([{ currency_code: "USD", amount: 225.5 }]);
    expect(s.fees.reported_totals).toEqual([{ currency_code: "USD", amount: 225.5 }]);
    expect(s.location.pod_terminal).toMatchObject({ firms_code: "Y257" });
    expect(s.location.location_at_pod_terminal).toBe("Row 7");
    expect(s.shipment).toMatchObject({ id: shared.shipmentId, bill_of_lading_number: shared.billOfLading });
    expect(s.transport_events).toBeUndefined();
  });

  it("says ready when available without active holds, and overdue once the LFD has passed", async () => {
    const s = ok("get_container", await call(client, "get_container", { id: second().id }));
    expect(s.readiness).toMatchObject({ status: "ready", ready_for_pickup: true, signals_disagree: false });
    expect(s.last_free_day).toMatchObject({ urgency: "overdue", source: "terminal" });
    expect(s.last_free_day.days_remaining).toBeLessThan(0);
  });

  it("accepts the container number instead of the id, and adds the timeline on include", async () => {
    const s = ok(
      "get_container",
      await call(client, "get_container", { id: first().number, include: ["transport_events"] }),
    );
    expect(s.id).toBe(first().id);
    expect(s.transport_events.total).toBe(8);
    expect(s.transport_events.timeline[0].event).toBe("container.transport.vessel_loaded");
  });

  it("an unknown id is a specific not-found error", async () => {
    const id = crypto.randomUUID();
    const text = errorText(await call(client, "get_container", { id }));
    expect(text).toBe(
      `Not found: No container with id ${id} in this account. Use search_container to find it by number.`,
    );
  });
});

describe("get_container_transport_events", () => {
  it("lists milestones chronologically with phases; estimates are left out", async () => {
    const s = ok(
      "get_container_transport_events",
      await call(client, "get_container_transport_events", { id: first().id }),
    );
    expect(s.total_events).toBe(8);
    const times = s.timeline.map((e: Structured) => e.timestamp);
    expect(times).toEqual([...times].sort());
    expect(s.timeline.some((e: Structured) => e.event.includes(".estimated."))).toBe(false);
    expect(s.phases.map((p: Structured) => [p.phase, p.event_count])).toEqual([
      ["origin", 2],
      ["transshipment", 4],
      ["destination", 2],
    ]);
    expect(s.latest_event).toMatchObject({
      event: "container.transport.vessel_discharged",
      phase: "destination",
      location: { locode: "USLAX", name: "Los Angeles" },
    });
    expect(s.timeline[2]).toMatchObject({ label: "Transshipment arrived", location: { locode: "SGSIN" } });
    expect(s.timeline[2].local_time).toMatch(/Asia\/Singapore$/);
  });

  it("no events is an empty timeline, not an error", async () => {
    const s = ok(
      "get_container_transport_events",
      await call(client, "get_container_transport_events", { id: second().id }),
    );
    expect(s).toMatchObject({ total_events: 0, timeline: [], phases: [], latest_event: null });
  });
});

describe("get_container_route", () => {
  it("with the routing feature: POL → transshipment → POD with each leg's vessel and ETA vs. actual", async () => {
    const s = ok("get_container_route", await call(client, "get_container_route", { id: first().id }));
    expect(s.stops.map((x: Structured) => [x.role, x.locode])).toEqual([
      ["port_of_lading", "CNYTN"],
      ["transshipment", "SGSIN"],
      ["port_of_discharge", "USLAX"],
    ]);
    expect(s.total_legs).toBe(2);
    expect(s.legs[0]).toMatchObject({
      mode: "vessel",
      from_locode: "CNYTN",
      to_locode: "SGSIN",
      vessel: { name: "EVER ALPHA", imo: "9000001", voyage_number: "001E" },
    });
    expect(s.legs[1]).toMatchObject({
      mode: "vessel",
      from_locode: "SGSIN",
      to_locode: "USLAX",
      vessel: { name: "MSC BETA" },
      estimated_arrival_at: eta,
    });
    expect(s.legs[1].delay_hours).toBe(6);
    expect(s.stops[1].name).toBe("Singapore");
  });

  it("without the routing feature: a clear error, and no route data", async () => {
    const { client: other } = await connectMcp(plain.account.key);
    try {
      const text = errorText(await call(other, "get_container_route", { id: plain.containers[0]?.id ?? "" }));
      expect(text).toMatch(/^Feature not enabled: Routing data feature is not enabled for this account\./);
      expect(text).toContain("get_container_transport_events");
    } finally {
      await other.close();
    }
  });
});

describe("get_shipment_details", () => {
  it("gives ports, vessel, ETAs and containers, by id or by BL number", async () => {
    for (const id of [shared.shipmentId, shared.billOfLading]) {
      const s = ok("get_shipment_details", await call(client, "get_shipment_details", { id }));
      expect(s.id).toBe(shared.shipmentId);
      expect(s.shipping_line.scac).toBe("TEST");
      expect(s.port_of_lading.locode).toBe("CNYTN");
      expect(s.port_of_discharge).toMatchObject({ locode: "USLAX", terminal: { firms_code: "Y257" } });
      expect(s.vessel).toMatchObject({ name: "SANDBOX EXPRESS", voyage_number: "001E" });
      expect(s.container_count).toBe(2);
      expect(s.containers.map((c: Structured) => c.id).sort()).toEqual(shared.containers.map((c) => c.id).sort());
    }
  });

  it("include_containers: false leaves the list out", async () => {
    const s = ok(
      "get_shipment_details",
      await call(client, "get_shipment_details", { id: shared.shipmentId, include_containers: false }),
    );
    expect(s.containers).toBeUndefined();
    expect(s.container_count).toBe(2);
  });

  it("an unknown shipment is a specific not-found error", async () => {
    const id = crypto.randomUUID();
    expect(errorText(await call(client, "get_shipment_details", { id }))).toContain(
      `No shipment with id ${id} in this account`,
    );
  });
});

describe("list tools", () => {
  it("list_containers: rows with resource links, filters, paging", async () => {
    const result = await call(client, "list_containers", { include: ["shipment"] });
    const s = ok("list_containers", result);
    expect(s.items.map((c: Structured) => c.id).sort()).toEqual(shared.containers.map((c) => c.id).sort());
    expect(s).toMatchObject({ page: 1, page_size: 25, total: 2, has_more: false, next_page: null });
    expect(s.items[0].shipment.id).toBe(shared.shipmentId);
    const links = result.content.filter((b) => b.type === "resource_link");
    expect(links.map((l) => (l as { uri: string }).uri).sort()).toEqual(
      shared.containers.map((c) => `svc://container/${c.id}`).sort(),
    );

    const paged = ok("list_containers", await call(client, "list_containers", { page_size: 1, page: 1 }));
    expect(paged).toMatchObject({ page_size: 1, total: 2, has_more: true, next_page: 2 });
    const none = ok("list_containers", await call(client, "list_containers", { status: "on_rail" }));
    expect(none.total).toBe(0);
    const byPort = ok("list_containers", await call(client, "list_containers", { port: "uslax", status: "available" }));
    expect(byPort.total).toBe(2);
    expect(byPort.applied_filters).toMatchObject({ port: "USLAX", status: "available" });
  });

  it("list_shipments: filters and a clamped page size", async () => {
    const s = ok("list_shipments", await call(client, "list_shipments", { page_size: 500, include_containers: true }));
    expect(s.page_size).toBe(100);
    expect(s.items.map((x: Structured) => x.id)).toEqual([shared.shipmentId]);
    expect(s.items[0].containers).toHaveLength(2);
    const stopped = ok("list_shipments", await call(client, "list_shipments", { status: "tracking_stopped" }));
    expect(stopped.total).toBe(0);
    const elsewhere = ok("list_shipments", await call(client, "list_shipments", { port: "NLRTM" }));
    expect(elsewhere.total).toBe(0);
  });

  it("list_tracking_requests: status and filters", async () => {
    const s = ok("list_tracking_requests", await call(client, "list_tracking_requests", {}));
    expect(s.items).toHaveLength(1);
    expect(s.items[0]).toMatchObject({
      request_number: shared.billOfLading,
      status: "created",
      shipment_id: shared.shipmentId,
    });
    expect(s.status_counts_on_page).toEqual({ created: 1 });
    const failed = ok("list_tracking_requests", await call(client, "list_tracking_requests", { status: "failed" }));
    expect(failed.total).toBe(0);
    const byNumber = ok(
      "list_tracking_requests",
      await call(client, "list_tracking_requests", { filters: { request_number: "test-tr-succeeded" } }),
    );
    expect(byNumber.total).toBe(1);
    expect(errorText(await call(client, "list_tracking_requests", { filters: { bogus: 1 } }))).toMatch(
      /bogus|unrecognized/i,
    );
  });

  it("get_supported_shipping_lines: named carriers sorted by name, the sandbox TEST line hidden", async () => {
    const all = ok("get_supported_shipping_lines", await call(client, "get_supported_shipping_lines", {}));
    const scacs = all.shipping_lines.map((l: Structured) => l.scac);
    expect(scacs).not.toContain("TEST");
    expect(all.total_lines).toBe(scacs.length);
    const names = all.shipping_lines.map((l: Structured) => l.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));
    const maersk = ok(
      "get_supported_shipping_lines",
      await call(client, "get_supported_shipping_lines", { search: "maersk" }),
    );
    expect(maersk.shipping_lines.map((l: Structured) => l.scac)).toContain("MAEU");
    const test = ok(
      "get_supported_shipping_lines",
      await call(client, "get_supported_shipping_lines", { search: "test" }),
    );
    expect(test.shipping_lines.map((l: Structured) => l.scac)).not.toContain("TEST");
  });
});

describe("track_container", () => {
  async function requestCount(key: string): Promise<number> {
    const { json } = await apiJson<Many>("/tracking_requests", { key });
    return json.meta?.total ?? -1;
  }

  it("finds an already-tracked number (BL or container) and creates nothing", async () => {
    const before = await requestCount(shared.account.key);
    const byBl = ok("track_container", await call(client, "track_container", { number: shared.billOfLading }));
    expect(byBl).toMatchObject({
      outcome: "already_tracked",
      tracking_request_created: false,
      inference: { source: "search_match" },
    });
    expect(byBl.shipment.id).toBe(shared.shipmentId);
    const byBox = ok(
      "track_container",
      await call(client, "track_container", { number: first().number, scac: "TEST" }),
    );
    expect(byBox.outcome).toBe("already_tracked");
    expect(byBox.containers[0].id).toBe(first().id);
    expect(byBox.next_step).toContain(first().id);
    expect(await requestCount(shared.account.key)).toBe(before);
  });

  it("creates a tracking request (visible over REST) and logs it to the client at level info", async () => {
    const account = await createAccount();
    const { client: c } = await connectMcp(account.key);
    const logs: string[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(String(n.params.data));
    });
    try {
      await c.setLoggingLevel("info");
      const s = ok(
        "track_container",
        await call(c, "track_container", {
          number: "TEST-TR-FAILED",
          scac: "test",
          numberType: "bill_of_lading",
          refNumbers: ["PO-1"],
        }),
      );
      expect(s).toMatchObject({
        outcome: "created",
        tracking_request_created: true,
        scac: "TEST",
        number_type: "bill_of_lading",
      });
      expect(s.tracking_request).toMatchObject({
        status: "pending",
        request_number: "TEST-TR-FAILED",
        ref_numbers: ["PO-1"],
      });
      const { json } = await apiJson<Many>("/tracking_requests", { key: account.key });
      expect(json.data.map((r) => r.id)).toEqual([s.tracking_request.id]);
      expect(logs.some((l) => l.includes(s.tracking_request.id))).toBe(true);

      // A second call finds the pending request instead of creating a duplicate.
      const again = ok(
        "track_container",
        await call(c, "track_container", { number: "TEST-TR-FAILED", scac: "TEST", numberType: "bill_of_lading" }),
      );
      expect(again).toMatchObject({ outcome: "already_tracked", tracking_request: { id: s.tracking_request.id } });
    } finally {
      await c.close();
    }
  });

  it("refuses reference numbers REST would refuse (a control character, an unpaired surrogate): nothing created", async () => {
    const account = await createAccount();
    const { client: c } = await connectMcp(account.key);
    try {
      for (const bad of ["PO\u00001", "PO\n1", "x\ud800y"]) {
        const text = errorText(
          await call(c, "track_container", {
            number: "TEST-TR-FAILED",
            scac: "TEST",
            numberType: "bill_of_lading",
            refNumbers: ["PO-1", bad],
          }),
        );
        expect(text, JSON.stringify(bad)).toMatch(/refNumbers/);
        expect(text).toMatch(/control characters|unpaired surrogate/);
      }
      expect(await requestCount(account.key)).toBe(0);
    } finally {
      await c.close();
    }
  });

  it("at log level warning the info message is not sent", async () => {
    const account = await createAccount();
    const { client: c } = await connectMcp(account.key);
    const logs: string[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(String(n.params.data));
    });
    try {
      await c.setLoggingLevel("warning");
      ok(
        "track_container",
        await call(c, "track_container", { number: "TEST-TR-FAILED", scac: "TEST", numberType: "bill_of_lading" }),
      );
      expect(logs).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it("infers the carrier; an inferred carrier not integrated here is a specific invalid-argument error", async () => {
    const account = await createAccount();
    const { client: c } = await connectMcp(account.key);
    try {
      const text = errorText(await call(c, "track_container", { number: "WHLU1234560" }));
      expect(text).toBe(
        "Invalid argument `scac`: Scac 'WHLC' is not supported. We do not currently integrate with Wan Hai Lines",
      );
      expect(await requestCount(account.key)).toBe(0);
    } finally {
      await c.close();
    }
  });

  it("without a confident carrier it asks for the SCAC and creates nothing", async () => {
    const account = await createAccount();
    const { client: c } = await connectMcp(account.key);
    try {
      const s = ok("track_container", await call(c, "track_container", { number: withCheckDigit("ZZQU123456") }));
      expect(s).toMatchObject({
        outcome: "needs_carrier",
        tracking_request_created: false,
        scac: null,
        number_type: "container",
      });
      expect(s.inference.decision).toBe("no_prediction");
      expect(await requestCount(account.key)).toBe(0);
    } finally {
      await c.close();
    }
  });

  it("rejects an unknown SCAC and a malformed one with specific errors", async () => {
    expect(
      errorText(await call(client, "track_container", { number: "ABC12345678", scac: "QQQQ", numberType: "booking" })),
    ).toBe("Invalid argument `scac`: Scac 'QQQQ' is not recognized");
    expect(errorText(await call(client, "track_container", { number: "ABC12345678", scac: "12" }))).toMatch(/scac/i);
  });
});
