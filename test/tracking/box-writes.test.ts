import { env } from "cloudflare:test";
import type { BatchItem } from "drizzle-orm/batch";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { D1_MAX_BOUND_PARAMETERS } from "../../src/db/insert-chunks";
import { boxUpdateStatements, loadBoxWebhookContext, type Subscription } from "../../src/tracking/box-writes";
import { deriveContainerState, deriveShipmentState } from "../../src/tracking/derive";
import type { EngineEvent, TransportEventRecord } from "../../src/tracking/events";
import type { Milestone } from "../../src/tracking/sources/types";
import { createAccount } from "../helpers/api";
import { seedContainers } from "../helpers/container-rows";
import { containerFacts, milestone, shipmentFacts } from "../helpers/facts";
import { insertWebhook } from "../helpers/receiver";

// The statements of one box update (src/tracking/box-writes.ts boxUpdateStatements) write each table's new rows as
// multi-row INSERTs (src/db/insert-chunks.ts) in the update's one batch: every statement within D1's 100 bound
// parameters, far fewer statements than rows, and exactly the rows one INSERT per row wrote: every event row, raw
// event and notification once, a replay writing nothing twice (the notification count trigger included), a corrected
// actual updated in place and any other row kept as first written.

const NOW = "2031-03-01T12:00:00Z";

function transportEvent(key: string, m: Milestone, revision: string | null = null): TransportEventRecord {
  return {
    kind: "transport_event",
    event: m.estimated ? m.event.replace("container.transport.", "container.transport.estimated.") : m.event,
    key,
    revision,
    timestamp: m.timestamp,
    locationLocode: m.locationLocode,
    facilityCode: m.facilityCode,
    vesselName: m.vesselName,
    vesselImo: m.vesselImo,
    voyageNumber: m.voyageNumber,
    value: null,
    dataSource: "shipping_line",
    milestone: m,
  };
}

/** 12 events: 6 actual milestones and 6 estimates, alternating (so the upsert and insert runs alternate too). */
function journeyEvents(shift = 0): EngineEvent[] {
  const day = (d: number) => new Date(Date.UTC(2031, 1, 1 + d, 8 + shift)).toISOString().replace(/\.\d{3}Z$/, "Z");
  const out: EngineEvent[] = [];
  for (let i = 0; i < 6; i++) {
    out.push(transportEvent(`actual-${i}`, milestone("container.transport.vessel_departed", day(i), "CNYTN")));
    out.push(
      transportEvent(
        `estimate-${i}`,
        milestone("container.transport.vessel_arrived", day(i + 20), "USLAX", { estimated: true }),
      ),
    );
  }
  return out;
}

async function setUp() {
  const account = await createAccount("Box writes");
  const seeded = await seedContainers(
    account.accountId,
    [0, 1, 2].map((i) => ({ number: `BXWU${String(100_000 + i)}${i}`, second: i })),
  );
  const subscriptions: Subscription[] = seeded.map((c) => ({
    accountId: account.accountId,
    containerId: c.id,
    shipmentId: c.shipmentId,
  }));
  const events = ["container.transport.vessel_departed", "container.transport.estimated.vessel_arrived"];
  await insertWebhook(account, { events });
  await insertWebhook(account, { events });
  const facts = shipmentFacts([containerFacts(seeded[0]?.number ?? "", [])]);
  return {
    account,
    subscriptions,
    state: deriveContainerState(facts, containerFacts(seeded[0]?.number ?? "", []), null, { deliveredAt: null }),
    shipment: deriveShipmentState(facts),
  };
}

async function statementsOf(ctx: Awaited<ReturnType<typeof setUp>>, events: EngineEvent[], nowIso = NOW) {
  const db = createDatabase(env.DB);
  const webhooks = await loadBoxWebhookContext(db, ctx.subscriptions);
  return boxUpdateStatements(db, {
    trackedEquipmentId: "00000000-0000-7000-8000-0000000b0c5e",
    subscriptions: ctx.subscriptions,
    joining: [],
    state: ctx.state,
    shipment: ctx.shipment,
    events,
    historyEvents: [],
    nowIso,
    carrierCheckedAt: nowIso,
    terminalCheckedAt: null,
    nextPollAt: null,
    rawIndexStart: 0,
    webhooks,
  });
}

async function run(statements: BatchItem<"sqlite">[]) {
  await createDatabase(env.DB).batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
}

async function counts(accountId: string) {
  const one = async (sql: string) =>
    (await env.DB.prepare(sql).bind(accountId).first<{ n: number }>())?.n ?? Number.NaN;
  return {
    transportEvents: await one("SELECT count(*) AS n FROM transport_events WHERE account_id = ?"),
    rawEvents: await one("SELECT count(*) AS n FROM raw_events WHERE account_id = ?"),
    notifications: await one("SELECT count(*) AS n FROM webhook_notifications WHERE account_id = ?"),
    counted: await one(
      "SELECT coalesce(sum(count), 0) AS n FROM account_resource_counts WHERE account_id = ? AND resource = 'webhook_notification'",
    ),
  };
}

/** The statement's SQL and how many parameters it binds. */
function shape(statement: BatchItem<"sqlite">) {
  const { sql, params } = (statement as unknown as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
  return { sql, params: params.length };
}

describe("box update statements: multi-row INSERTs in the one batch", () => {
  it("writes 36 event rows, 36 raw events and 72 notifications in a handful of statements, each within 100 parameters", async () => {
    const ctx = await setUp();
    const { statements, notificationIds } = await statementsOf(ctx, journeyEvents());
    const shapes = statements.map(shape);
    for (const s of shapes) expect(s.params).toBeLessThanOrEqual(D1_MAX_BOUND_PARAMETERS);
    const inserts = (table: string) => shapes.filter((s) => s.sql.startsWith(`insert into "${table}"`)).length;
    // 3 rows × 12 events; one INSERT per row would be 36 + 36 + 72 statements.
    expect(inserts("transport_events")).toBeLessThanOrEqual(12);
    expect(inserts("raw_events")).toBeLessThanOrEqual(8);
    expect(inserts("webhook_notifications")).toBeLessThanOrEqual(10);
    expect(notificationIds).toHaveLength(72);
    expect(new Set(notificationIds).size).toBe(72);
    await run(statements);
    expect(await counts(ctx.account.accountId)).toEqual({
      transportEvents: 36,
      rawEvents: 36,
      notifications: 72,
      counted: 72,
    });
    const rawIndexes = await env.DB.prepare(
      `SELECT container_id, group_concat("index") AS idx FROM (SELECT container_id, "index" FROM raw_events
         WHERE account_id = ? ORDER BY container_id, "index") GROUP BY container_id`,
    )
      .bind(ctx.account.accountId)
      .all<{ idx: string }>();
    // Raw events are numbered per box in arrival order, the same numbers for every subscribed row.
    expect(rawIndexes.results.map((r) => r.idx)).toEqual(Array(3).fill("0,1,2,3,4,5,6,7,8,9,10,11"));
  });

  it("a replay writes nothing twice: no row, no notification, no count", async () => {
    const ctx = await setUp();
    await run((await statementsOf(ctx, journeyEvents())).statements);
    const before = await counts(ctx.account.accountId);
    await run((await statementsOf(ctx, journeyEvents())).statements);
    expect(await counts(ctx.account.accountId)).toEqual(before);
  });

  it("a corrected actual is updated in place from its own row; an estimate already written is kept", async () => {
    const ctx = await setUp();
    await run((await statementsOf(ctx, journeyEvents())).statements);
    const [containerId] = ctx.subscriptions.map((s) => s.containerId);
    const times = async () =>
      Object.fromEntries(
        (
          await env.DB.prepare(
            "SELECT event, timestamp, voyage_number FROM transport_events WHERE container_id = ? ORDER BY event, timestamp",
          )
            .bind(containerId)
            .all<{ event: string; timestamp: string; voyage_number: string }>()
        ).results.map((r) => [`${r.event}@${r.timestamp}`, r.voyage_number]),
      );
    const first = await times();
    // Same keys, two hours later, another voyage: the actuals are corrections (revision), the estimates replays.
    const later = journeyEvents(2).map((e) =>
      e.kind === "transport_event"
        ? {
            ...e,
            voyageNumber: "200W",
            revision: e.milestone?.estimated ? null : e.timestamp,
          }
        : e,
    );
    await run((await statementsOf(ctx, later, "2031-03-01T13:00:00Z")).statements);
    const second = await times();
    const estimates = (t: Record<string, string>) =>
      Object.entries(t).filter(([k]) => k.startsWith("container.transport.estimated."));
    const actuals = (t: Record<string, string>) => Object.entries(t).filter(([k]) => !k.includes(".estimated."));
    expect(estimates(second)).toEqual(estimates(first));
    expect(actuals(second)).toHaveLength(6);
    for (const [key, voyage] of actuals(second)) {
      expect(voyage).toBe("200W");
      expect(key).toMatch(/T10:00:00Z$/);
    }
    expect(actuals(first).every(([key]) => key.endsWith("T08:00:00Z"))).toBe(true);
  });

  it("the webhook context reads each shipment with its customer's name (null without one) and its boxes", async () => {
    const account = await createAccount("Box writes context");
    const [withCustomer, without] = await seedContainers(account.accountId, [
      { number: "BXWU2000001", second: 1, customerName: "Globex Imports" },
      { number: "BXWU2000002", second: 2 },
    ]);
    await insertWebhook(account, { events: ["container.updated"] });
    const subs = [withCustomer, without].map((c) => ({
      accountId: account.accountId,
      containerId: c?.id ?? "",
      shipmentId: c?.shipmentId ?? "",
    }));
    const context = await loadBoxWebhookContext(createDatabase(env.DB), subs);
    const view = (i: number) => context.shipments.get(subs[i]?.shipmentId ?? "");
    expect(view(0)?.customerName).toBe("Globex Imports");
    expect(view(0)?.containerIds).toEqual([subs[0]?.containerId]);
    expect(view(1)?.customerName).toBeNull();
    expect(view(1)?.billOfLadingNumber).toMatch(/^BL/);
    expect([...context.containers.keys()].sort()).toEqual(subs.map((s) => s.containerId).sort());
    expect(context.targets).toHaveLength(1);
  });
});
