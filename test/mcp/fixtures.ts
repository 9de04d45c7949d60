import { env } from "cloudflare:test";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { expect } from "vitest";
import { toIsoSeconds } from "../../src/lib/clock";
import { createAccount, type TestAccount } from "../helpers/api";
import { trackSandboxShipment } from "../helpers/tracking";

// Data for the MCP tests: the sandbox shipment (TEST-TR-SUCCEEDED, two boxes, CNYTN → USLAX at Fenix Marine
// Services Y257) tracked through the REST API and the queue consumer, then given terminal facts (availability,
// holds, fees, LFD) and milestones straight in D1 — the static sandbox journey records neither.

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** An account with the tracked sandbox shipment. */
export interface TrackedAccount {
  account: TestAccount;
  shipmentId: string;
  /** The BL number of the shipment (`TEST-TR-SUCCEEDED`). */
  billOfLading: string;
  /** The two containers: [0] available with a customs hold (LFD in 30 h), [1] available, no holds (LFD passed). */
  containers: { id: string; number: string }[];
  /**
   * The clock read (ms since epoch) the terminal facts were stamped from, when {@link trackedAccounts} wrote them:
   * {@link seedTransshipmentJourney} stamps its events from the same read, so the journey and the container's
   * milestones (its `pod_arrived_at`) agree to the second.
   */
  factsAt?: number;
}

/** The id of a port by UN/LOCODE (reference data). */
async function portId(locode: string): Promise<string> {
  const row = await env.DB.prepare("SELECT id FROM ports WHERE code = ?1").bind(locode).first<{ id: string }>();
  if (!row) throw new Error(`no port ${locode}`);
  return row.id;
}

/**
 * Fresh accounts (one per entry of `entitlements`, e.g. `[["routing"], []]`), each tracking the sandbox shipment.
 * In each, the first box is discharged and available at the terminal but held by customs (readiness: not ready,
 * signals disagree), with demurrage and exam fees plus a terminal `total` line, and an LFD 30 h ahead (imminent);
 * the second box is available without holds (ready) and its LFD passed 10 h ago (overdue).
 *
 * The sandbox boxes are shared by every account that tracks them (one Tracker per box): a new subscription makes
 * the Tracker rewrite every subscriber's rows. So all accounts subscribe first and the terminal facts are written
 * after; a test file must not track the sandbox shipment again after calling this.
 */
export async function trackedAccounts(entitlements: string[][]): Promise<TrackedAccount[]> {
  const tracked: TrackedAccount[] = [];
  for (const features of entitlements) {
    const account = await createAccount(`MCP ${crypto.randomUUID().slice(0, 6)}`);
    if (features.length > 0) {
      await env.DB.prepare("UPDATE accounts SET entitlements = ?1 WHERE id = ?2")
        .bind(JSON.stringify(features), account.accountId)
        .run();
    }
    const sandbox = await trackSandboxShipment(account);
    const rows = await env.DB.prepare("SELECT id, number FROM containers WHERE account_id = ?1 ORDER BY number")
      .bind(account.accountId)
      .all<{ id: string; number: string }>();
    if (rows.results.length !== 2) throw new Error("sandbox shipment without two containers");
    tracked.push({
      account,
      shipmentId: sandbox.shipment.id,
      billOfLading: "TEST-TR-SUCCEEDED",
      containers: rows.results,
    });
  }
  const factsAt = Date.now();
  for (const t of tracked) {
    await writeTerminalFacts(t, factsAt);
    t.factsAt = factsAt;
  }
  return tracked;
}

/** One account as {@link trackedAccounts} makes them. */
export async function trackedAccount(entitlements: string[] = []): Promise<TrackedAccount> {
  const [t] = await trackedAccounts([entitlements]);
  if (!t) throw new Error("no account");
  return t;
}

/** Writes the terminal facts of {@link trackedAccounts}, stamped relative to `now` (ms since epoch). */
async function writeTerminalFacts(t: TrackedAccount, now: number): Promise<void> {
  const [first, second] = t.containers;
  if (!first || !second) throw new Error("sandbox shipment without two containers");
  const at = (ms: number) => toIsoSeconds(now + ms);
  await env.DB.batch([
    env.DB.prepare(
      `UPDATE containers SET current_status = 'available', availability_known = 1, available_for_pickup = 1,
         pod_arrived_at = ?2, pod_discharged_at = ?3, terminal_checked_at = ?4,
         holds_at_pod_terminal = ?5, fees_at_pod_terminal = ?6,
         pickup_lfd_line = ?7, pickup_lfd = ?7, pod_timezone = 'America/Los_Angeles', location_at_pod_terminal = 'Row 7'
       WHERE id = ?1`,
    ).bind(
      first.id,
      at(-2 * DAY_MS),
      at(-DAY_MS),
      at(-HOUR_MS),
      JSON.stringify([
        { name: "customs", status: "hold", description: "CBP HOLD" },
        { name: "TMF", status: "pending", description: null },
      ]),
      JSON.stringify([
        { type: "demurrage", amount: 150, currency_code: "USD" },
        { type: "exam", amount: 75.5, currency_code: "USD" },
        { type: "total", amount: 225.5, currency_code: "USD" },
      ]),
      at(30 * HOUR_MS),
    ),
    env.DB.prepare(
      `UPDATE containers SET current_status = 'available', availability_known = 1, available_for_pickup = 1,
         pod_arrived_at = ?2, pod_discharged_at = ?3, terminal_checked_at = ?4, holds_at_pod_terminal = '[]',
         fees_at_pod_terminal = '[]', pickup_lfd_terminal = ?5, pickup_lfd = ?5, pod_timezone = 'America/Los_Angeles'
       WHERE id = ?1`,
    ).bind(second.id, at(-3 * DAY_MS), at(-2 * DAY_MS), at(-HOUR_MS), at(-10 * HOUR_MS)),
  ]);
}

/** One milestone to seed. */
interface SeedEvent {
  event: string;
  /** Offset from now, ms. */
  offsetMs: number;
  locode: string;
  vessel?: { name: string; imo: string; voyage: string };
}

/**
 * Seeds a transshipment journey on `containerId` (CNYTN → SGSIN → USLAX): loaded and departed at Yantian on
 * EVER ALPHA, transshipped at Singapore onto MSC BETA, an estimated arrival at Los Angeles, and the discharge.
 * Times are offsets from `t.factsAt` (else now). Returns the ETA of the estimate (UTC ISO).
 */
export async function seedTransshipmentJourney(t: TrackedAccount, containerId: string): Promise<{ eta: string }> {
  const alpha = { name: "EVER ALPHA", imo: "9000001", voyage: "001E" };
  const beta = { name: "MSC BETA", imo: "9000002", voyage: "002E" };
  const events: SeedEvent[] = [
    { event: "container.transport.vessel_loaded", offsetMs: -12 * DAY_MS, locode: "CNYTN", vessel: alpha },
    { event: "container.transport.vessel_departed", offsetMs: -11 * DAY_MS, locode: "CNYTN", vessel: alpha },
    { event: "container.transport.transshipment_arrived", offsetMs: -6 * DAY_MS, locode: "SGSIN", vessel: alpha },
    {
      event: "container.transport.transshipment_discharged",
      offsetMs: -6 * DAY_MS + 2 * HOUR_MS,
      locode: "SGSIN",
      vessel: alpha,
    },
    { event: "container.transport.transshipment_loaded", offsetMs: -5 * DAY_MS, locode: "SGSIN", vessel: beta },
    {
      event: "container.transport.transshipment_departed",
      offsetMs: -5 * DAY_MS + HOUR_MS,
      locode: "SGSIN",
      vessel: beta,
    },
    {
      event: "container.transport.estimated.vessel_arrived",
      offsetMs: -2 * DAY_MS - 6 * HOUR_MS,
      locode: "USLAX",
      vessel: beta,
    },
    { event: "container.transport.vessel_arrived", offsetMs: -2 * DAY_MS, locode: "USLAX", vessel: beta },
    { event: "container.transport.vessel_discharged", offsetMs: -DAY_MS, locode: "USLAX", vessel: beta },
  ];
  const ids = new Map<string, string>();
  for (const code of ["CNYTN", "SGSIN", "USLAX"]) ids.set(code, await portId(code));
  const now = t.factsAt ?? Date.now();
  await env.DB.batch(
    events.map((e, i) =>
      env.DB.prepare(
        `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, voyage_number, timestamp, timezone,
           location_locode, location_id, vessel_name, vessel_imo, data_source, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'shipping_line', ?13)`,
      ).bind(
        `${crypto.randomUUID().slice(0, 8)}-${String(i).padStart(2, "0")}`,
        t.account.accountId,
        containerId,
        t.shipmentId,
        e.event,
        e.vessel?.voyage ?? null,
        toIsoSeconds(now + e.offsetMs),
        e.locode === "USLAX" ? "America/Los_Angeles" : e.locode === "SGSIN" ? "Asia/Singapore" : "Asia/Shanghai",
        e.locode,
        ids.get(e.locode) ?? null,
        e.vessel?.name ?? null,
        e.vessel?.imo ?? null,
        toIsoSeconds(now),
      ),
    ),
  );
  return { eta: toIsoSeconds(now - 2 * DAY_MS - 6 * HOUR_MS) };
}

const validator = new CfWorkerJsonSchemaValidator();

/**
 * Asserts that `structuredContent` validates against the tool's advertised `outputSchema` (JSON Schema from
 * tools/list), independently of the SDK client's own check.
 */
export function expectMatchesOutputSchema(outputSchema: unknown, structuredContent: unknown): void {
  expect(outputSchema, "the tool advertises an output schema").toBeTruthy();
  const check = validator.getValidator(outputSchema as Parameters<typeof validator.getValidator>[0]);
  const result = check(structuredContent);
  expect(result.valid ? "" : (result.errorMessage ?? "invalid"), "structuredContent matches outputSchema").toBe("");
}

/** Whether `structuredContent` validates against `outputSchema` (for the negative control). */
export function matchesOutputSchema(outputSchema: unknown, structuredContent: unknown): boolean {
  return validator.getValidator(outputSchema as Parameters<typeof validator.getValidator>[0])(structuredContent).valid;
}
