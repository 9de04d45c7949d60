import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import type { SourceRegistry } from "../../src/tracking/sources";
import {
  type LookupResult,
  TERMINAL_CREDENTIALS_REJECTED,
  type TerminalPollResult,
} from "../../src/tracking/sources/types";
import { WEBHOOK_EVENTS } from "../../src/webhooks/catalog";
import { validateEvents } from "../../src/webhooks/service";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import {
  boxNumbers,
  containersOfShipment,
  envWithQueue,
  FakeCarrier,
  FakeTerminal,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
  requestRow,
} from "../helpers/engine";
import { containerFacts, milestone, shipmentFacts } from "../helpers/facts";
import { insertWebhook } from "../helpers/receiver";

// Issue 13 §1, "the account gets it once per outage, not once per poll": a source refusing our credentials opens one
// outage of that source; every account whose boxes found it refusing gets one `source_outage.started` notification
// (an extension event, only for webhooks that list it), however many of its boxes and polls fail, and one
// `source_outage.resolved` when the source answers again; a new refusal after that is a new outage, told again.
// Real Tracker DOs and D1, fake sources, FakeClock.

const MINUTE = 60_000;
const at = (minutes: number) => toIsoSeconds(FUTURE_T0 + minutes * MINUTE);
const OUTAGE_EVENTS = ["source_outage.started", "source_outage.resolved"];
const CARRIER_REFUSES: LookupResult = { kind: "temporary_failure", reason: "shipping_line_credentials_rejected" };
const nextBox = boxNumbers("OUTU", 600_000);

/** Lines logged at error level during the current test. */
const errors: string[] = [];
beforeEach(() => {
  errors.length = 0;
  for (const level of ["log", "info", "warn", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation(() => undefined);
  }
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    errors.push(args.map(String).join(" "));
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

interface NotificationRow {
  webhook_id: string;
  event: string;
  reference_object_type: string;
  reference_object_id: string;
  payload: string;
}

async function notificationsOf(webhookId: string): Promise<NotificationRow[]> {
  const { results } = await env.DB.prepare(
    `SELECT webhook_id, event, reference_object_type, reference_object_id, payload FROM webhook_notifications
     WHERE webhook_id = ?1 ORDER BY created_at, event`,
  )
    .bind(webhookId)
    .all<NotificationRow>();
  return results;
}

/** The `source_outage` resource a notification carries. */
function outageOf(n: NotificationRow | undefined): Record<string, unknown> {
  const payload = JSON.parse(n?.payload ?? "{}") as { included?: { type: string; attributes: object }[] };
  const resource = payload.included?.find((r) => r.type === "source_outage");
  return { ...(resource?.attributes ?? {}) };
}

/** A world of one carrier (`scac`) and one POD terminal (`terminalCode`) whose answers the test sets. */
function world(scac: string, terminalCode: string) {
  const state = {
    carrier: null as LookupResult | null,
    terminal: { kind: "not_found" } as TerminalPollResult,
  };
  const facts = new Map<string, ReturnType<typeof shipmentFacts>>();
  const carrier = new FakeCarrier(
    scac,
    (request) => state.carrier ?? { kind: "found", shipment: facts.get(request.number) ?? shipmentFacts([]) },
  );
  const sources: SourceRegistry = registryOf([carrier], [new FakeTerminal(terminalCode, () => state.terminal)]);
  const clock = new FakeClock(FUTURE_T0);
  const boxes: string[] = [];
  return {
    state,
    /** Tracks a BL of `count` boxes for `account` (found at once); returns the box numbers. */
    async track(account: TestAccount, count: number): Promise<string[]> {
      const numbers = Array.from({ length: count }, () => nextBox());
      const bl = `OUTBL-${numbers[0]}`;
      const m = milestone("container.transport.vessel_departed", at(-60), "CNYTN");
      facts.set(
        bl,
        shipmentFacts(
          numbers.map((n) => containerFacts(n, [m])),
          { billOfLadingNumber: bl, podTerminalCode: terminalCode },
        ),
      );
      const requestId = await insertRequest(account, { number: bl, scac, createdAtMs: clock.now() });
      await processTrackingRequest(
        { env: envWithQueue(recordingQueue()), clock, sources },
        { trackingRequestId: requestId, accountId: account.accountId },
      );
      const request = await requestRow(requestId);
      expect(request.status).toBe("created");
      expect((await containersOfShipment(request.shipment_id ?? "")).map((c) => c.number).sort()).toEqual(
        [...numbers].sort(),
      );
      boxes.push(...numbers);
      return numbers;
    },
    /** Polls these boxes (default: every box tracked) at minute `minutes`. */
    async poll(minutes: number, only: string[] = boxes) {
      clock.set(FUTURE_T0 + minutes * MINUTE);
      for (const number of only) {
        await pollBox({ env: envWithQueue(recordingQueue()), clock, sources }, { scac, number });
      }
    },
  };
}

describe("a shipping line refusing our credentials: one notice per account per outage", () => {
  it("two accounts, three boxes, many polls: one started each; resolved once; a new outage told again", async () => {
    const scac = "OUTA";
    const w = world(scac, "Z901");
    const acme = await createAccount("Acme");
    const globex = await createAccount("Globex");
    const acmeHook = await insertWebhook(acme, { events: OUTAGE_EVENTS });
    const acmeReferenceOnly = await insertWebhook(acme, { events: [...WEBHOOK_EVENTS] });
    const globexHook = await insertWebhook(globex, { events: ["source_outage.started"] });
    const [a1, a2] = await w.track(acme, 2);
    const [g1] = await w.track(globex, 1);
    await w.poll(1);

    w.state.carrier = CARRIER_REFUSES;
    for (const minute of [2, 3, 5, 9, 17]) await w.poll(minute);

    const acmeNotices = await notificationsOf(acmeHook.id);
    expect(acmeNotices.map((n) => n.event)).toEqual(["source_outage.started"]);
    expect(acmeNotices[0]?.reference_object_type).toBe("source_outage");
    expect(outageOf(acmeNotices[0])).toEqual({
      source_type: "shipping_line",
      source_code: scac,
      reason: "shipping_line_credentials_rejected",
      started_at: at(2),
      resolved_at: null,
    });
    const globexNotices = await notificationsOf(globexHook.id);
    expect(globexNotices.map((n) => [n.event, n.reference_object_id])).toEqual([
      ["source_outage.started", acmeNotices[0]?.reference_object_id],
    ]);
    // A webhook of the whole reference catalog never receives an extension event.
    expect((await notificationsOf(acmeReferenceOnly.id)).filter((n) => n.event.startsWith("source_outage"))).toEqual(
      [],
    );

    // The line accepts our credentials again: the first box to see it closes the outage, each account is told once.
    w.state.carrier = null;
    await w.poll(20, [a1 ?? ""]);
    await w.poll(21);
    const afterRecovery = await notificationsOf(acmeHook.id);
    expect(afterRecovery.map((n) => n.event)).toEqual(["source_outage.started", "source_outage.resolved"]);
    expect(outageOf(afterRecovery[1])).toMatchObject({ started_at: at(2), resolved_at: at(20) });
    // Globex's webhook lists only `started`.
    expect(await notificationsOf(globexHook.id)).toHaveLength(1);

    // A new refusal after the recovery is a new outage, told again (here found by one box of each account).
    w.state.carrier = CARRIER_REFUSES;
    await w.poll(30, [a2 ?? "", g1 ?? ""]);
    await w.poll(31);
    const second = await notificationsOf(acmeHook.id);
    expect(second.map((n) => n.event)).toEqual([
      "source_outage.started",
      "source_outage.resolved",
      "source_outage.started",
    ]);
    expect(second[2]?.reference_object_id).not.toBe(second[0]?.reference_object_id);
    expect(outageOf(second[2])).toMatchObject({ started_at: at(30), resolved_at: null });
    expect((await notificationsOf(globexHook.id)).map((n) => n.event)).toEqual([
      "source_outage.started",
      "source_outage.started",
    ]);
    const open = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM source_outages WHERE source_code = ?1 AND resolved_at IS NULL",
    )
      .bind(scac)
      .first<{ n: number }>();
    expect(open?.n).toBe(1);
  });

  it("a line that is merely unreachable is no credentials outage: nobody is told", async () => {
    const w = world("OUTB", "Z902");
    const account = await createAccount();
    const hook = await insertWebhook(account, { events: OUTAGE_EVENTS });
    await w.track(account, 1);
    w.state.carrier = { kind: "temporary_failure", reason: "shipping_line_unreachable" };
    for (const minute of [1, 2, 4]) await w.poll(minute);
    w.state.carrier = null;
    await w.poll(10);
    expect(await notificationsOf(hook.id)).toEqual([]);
  });
});

describe("a terminal refusing our credentials: one notice per account per outage", () => {
  it("names the terminal, once, and its recovery", async () => {
    const w = world("OUTC", "Z903");
    const account = await createAccount();
    const hook = await insertWebhook(account, { events: OUTAGE_EVENTS });
    await w.track(account, 2);
    w.state.terminal = { kind: "temporary_failure", reason: TERMINAL_CREDENTIALS_REJECTED };
    for (const minute of [1, 2, 4, 8]) await w.poll(minute);
    // Operators get one log line for the outage, not one per box or poll.
    const refusals = errors.filter((line) => line.includes("refused our credentials"));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain("tracking: terminal Z903 refused our credentials");
    const notices = await notificationsOf(hook.id);
    expect(notices.map((n) => n.event)).toEqual(["source_outage.started"]);
    expect(outageOf(notices[0])).toEqual({
      source_type: "terminal",
      source_code: "Z903",
      reason: TERMINAL_CREDENTIALS_REJECTED,
      started_at: at(1),
      resolved_at: null,
    });
    w.state.terminal = { kind: "not_found" };
    await w.poll(20);
    expect((await notificationsOf(hook.id)).map((n) => n.event)).toEqual([
      "source_outage.started",
      "source_outage.resolved",
    ]);

    // The account finds them through the API too, filtered by the extension event, with the outage as delivered.
    const list = await apiJson<{ data: { id: string; attributes: { event: string } }[] }>(
      "/webhook_notifications?filter[event]=source_outage.started",
      { key: account.key },
    );
    expect(list.res.status).toBe(200);
    expect(list.json.data.map((n) => n.attributes.event)).toEqual(["source_outage.started"]);
    const one = await apiJson<{ included?: { type: string; attributes: Record<string, unknown> }[] }>(
      `/webhook_notifications/${list.json.data[0]?.id}?include=reference_object`,
      { key: account.key },
    );
    expect(one.res.status).toBe(200);
    expect(one.json.included?.find((r) => r.type === "source_outage")?.attributes).toMatchObject({
      source_type: "terminal",
      source_code: "Z903",
    });
    // Another account sees none of them.
    const other = await createAccount("Other");
    const foreign = await apiJson<{ data: unknown[] }>("/webhook_notifications?filter[event]=source_outage.started", {
      key: other.key,
    });
    expect(foreign.json.data).toEqual([]);
  });
});

describe("webhooks accept the extension events only by name", () => {
  it("source_outage.started / .resolved are accepted, anything else near them is not", () => {
    expect(validateEvents(OUTAGE_EVENTS, "/data/attributes/events")).toEqual({ events: OUTAGE_EVENTS, errors: [] });
    const bad = validateEvents(["source_outage.Started", "source_outage.*"], "/data/attributes/events");
    expect(bad.errors.map((e) => e.code)).toEqual(["not_recognized", "not_recognized"]);
    expect(WEBHOOK_EVENTS).not.toContain("source_outage.started");
  });
});
