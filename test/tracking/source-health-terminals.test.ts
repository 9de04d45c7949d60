import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import { pollRetryDelayMs } from "../../src/tracking/schedule";
import type { SourceRegistry } from "../../src/tracking/sources";
import {
  type LookupResult,
  type Milestone,
  type ShipmentFacts,
  TERMINAL_CREDENTIALS_REJECTED,
  type TerminalPollResult,
} from "../../src/tracking/sources/types";
import { apiJson, createAccount } from "../helpers/api";
import {
  boxNumbers,
  containerRow,
  containersOfShipment,
  envWithQueue,
  FakeCarrier,
  FakeTerminal,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
  requestRow,
  trackerStub,
} from "../helpers/engine";
import { containerFacts, DAY_MS, iso, milestone, observation, shipmentFacts } from "../helpers/facts";

// Issue 13 §1 for terminals and rail ramps: every poll of a facility records its attempt on the container
// (`terminal_tracking_last_attempted_at` / `rail_tracking_last_attempted_at`, extensions: the reference has no attempt
// time for facilities), and why it failed (`terminal_tracking_failed_reason` / `rail_tracking_failed_reason`, null
// when it answered), while the reference's success times (`pod_last_tracking_request_at` and
// `rail_last_tracking_request_at`: the facility answered; `terminal_checked_at`: it reported the box) move only on an
// answer. A terminal refusing our credentials (`terminal_credentials_rejected`, issue 14's adapters on HTTP 401/403)
// is shown on the container, changes it once per outage, is logged once per outage and backs off.
// Real Tracker DO and D1, fake sources, FakeClock.

const SCAC = "FAKE";
const POL = "CNYTN";
const POD = "USLAX";
const nextBox = boxNumbers("TSHU", 500_000);
const at = (days: number) => iso(FUTURE_T0 + days * DAY_MS);
const found = (shipment: ShipmentFacts): LookupResult => ({ kind: "found", shipment });
const seen = (checkedAt: string): TerminalPollResult => ({
  kind: "found",
  observation: observation(checkedAt, { availabilityKnown: true, availableForPickup: false }),
});
const UNREACHABLE: TerminalPollResult = { kind: "temporary_failure", reason: "terminal_unreachable" };
const REJECTED: TerminalPollResult = { kind: "temporary_failure", reason: TERMINAL_CREDENTIALS_REJECTED };
const CARRIER_DOWN: LookupResult = { kind: "temporary_failure", reason: "shipping_line_unreachable" };

const logged: unknown[][] = [];
beforeEach(() => {
  logged.length = 0;
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A box discharged at Los Angeles (Y257), optionally continuing by rail to Chicago (BNSF ramp). */
async function trackedBox(options: { rail?: boolean } = {}) {
  const number = nextBox();
  const bl = `TSHBL-${number}`;
  const m = (event: Milestone["event"], days: number, locode: string) =>
    milestone(event, at(days), locode, { id: `${number}/${event}/${days}` });
  const world = {
    milestones: [
      m("container.transport.vessel_loaded", -3, POL),
      m("container.transport.vessel_departed", -2, POL),
      m("container.transport.vessel_arrived", -1, POD),
      m("container.transport.vessel_discharged", -0.8, POD),
    ],
    carrier: null as LookupResult | null,
    pod: { kind: "not_found" } as TerminalPollResult,
    ramp: { kind: "not_found" } as TerminalPollResult,
  };
  const facts = () =>
    shipmentFacts([containerFacts(number, world.milestones)], {
      billOfLadingNumber: bl,
      ...(options.rail ? { destinationLocode: "USCHI", destinationTerminalCode: "USCHIBNSF" } : {}),
    });
  const carrier = new FakeCarrier(SCAC, () => world.carrier ?? found(facts()));
  const sources: SourceRegistry = registryOf(
    [carrier],
    [new FakeTerminal("Y257", () => world.pod), new FakeTerminal("USCHIBNSF", () => world.ramp)],
  );
  const clock = new FakeClock(FUTURE_T0);
  const account = await createAccount();
  const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: envWithQueue(recordingQueue()), clock, sources },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  const [container] = await containersOfShipment(request.shipment_id ?? "");
  if (!container) throw new Error("no container row");
  return {
    number,
    world,
    account,
    clock,
    containerId: container.id,
    poll(days: number) {
      clock.set(FUTURE_T0 + days * DAY_MS);
      return pollBox({ env: envWithQueue(recordingQueue()), clock, sources }, { scac: SCAC, number });
    },
    async nextPollDelay() {
      const next = (await trackerStub(SCAC, number).currentState())?.nextPollAt;
      return Date.parse(next ?? "") - clock.now();
    },
  };
}

const HEALTH = [
  "terminal_tracking_last_attempted_at",
  "terminal_tracking_failed_reason",
  "pod_last_tracking_request_at",
  "terminal_checked_at",
  "rail_tracking_last_attempted_at",
  "rail_tracking_failed_reason",
  "rail_last_tracking_request_at",
] as const;

async function health(containerId: string) {
  const row = await containerRow(containerId);
  return Object.fromEntries(HEALTH.map((c) => [c, row[c]]));
}

describe("every POD terminal attempt is recorded on the container; only an answer counts as a check", () => {
  it("attempted-at advances on failures, the reference's check times only on answers, then recovery", async () => {
    const box = await trackedBox();
    box.world.pod = seen(at(0.1));
    await box.poll(0.1);
    expect(await health(box.containerId)).toEqual({
      terminal_tracking_last_attempted_at: at(0.1),
      terminal_tracking_failed_reason: null,
      pod_last_tracking_request_at: at(0.1),
      terminal_checked_at: at(0.1),
      rail_tracking_last_attempted_at: null,
      rail_tracking_failed_reason: null,
      rail_last_tracking_request_at: null,
    });

    // The carrier answers (the update writes the row), the terminal does not.
    box.world.pod = UNREACHABLE;
    await box.poll(0.2);
    expect(await health(box.containerId)).toMatchObject({
      terminal_tracking_last_attempted_at: at(0.2),
      terminal_tracking_failed_reason: "terminal_unreachable",
      pod_last_tracking_request_at: at(0.1),
      terminal_checked_at: at(0.1),
    });

    // Nothing answers at all: the attempt is still recorded.
    box.world.carrier = CARRIER_DOWN;
    await box.poll(0.3);
    expect(await health(box.containerId)).toMatchObject({
      terminal_tracking_last_attempted_at: at(0.3),
      terminal_tracking_failed_reason: "terminal_unreachable",
      pod_last_tracking_request_at: at(0.1),
    });

    // The terminal answers "not found" while the carrier is still down: an answer, so a check, and the reason clears.
    box.world.pod = { kind: "not_found" };
    await box.poll(0.4);
    expect(await health(box.containerId)).toMatchObject({
      terminal_tracking_last_attempted_at: at(0.4),
      terminal_tracking_failed_reason: null,
      pod_last_tracking_request_at: at(0.4),
      terminal_checked_at: at(0.1),
    });

    box.world.carrier = null;
    box.world.pod = seen(at(0.5));
    await box.poll(0.5);
    expect(await health(box.containerId)).toMatchObject({
      terminal_tracking_last_attempted_at: at(0.5),
      terminal_tracking_failed_reason: null,
      pod_last_tracking_request_at: at(0.5),
      terminal_checked_at: at(0.5),
    });

    const { res, json } = await apiJson<{ data: { attributes: Record<string, unknown> } }>(
      `/containers/${box.containerId}`,
      { key: box.account.key },
    );
    expect(res.status).toBe(200);
    expect(json.data.attributes).toMatchObject({
      terminal_tracking_last_attempted_at: at(0.5),
      terminal_tracking_failed_reason: null,
      rail_tracking_last_attempted_at: null,
      rail_tracking_failed_reason: null,
    });
  });

  it("a rail ramp's attempts are recorded apart from the POD terminal's", async () => {
    const box = await trackedBox({ rail: true });
    await box.poll(0.1); // discharged: both the POD terminal and the ramp are asked from here on
    expect(await health(box.containerId)).toMatchObject({
      terminal_tracking_last_attempted_at: at(0.1),
      rail_tracking_last_attempted_at: at(0.1),
      rail_tracking_failed_reason: null,
      rail_last_tracking_request_at: at(0.1),
    });
    box.world.ramp = UNREACHABLE;
    await box.poll(0.2);
    expect(await health(box.containerId)).toMatchObject({
      terminal_tracking_last_attempted_at: at(0.2),
      terminal_tracking_failed_reason: null,
      pod_last_tracking_request_at: at(0.2),
      rail_tracking_last_attempted_at: at(0.2),
      rail_tracking_failed_reason: "terminal_unreachable",
      rail_last_tracking_request_at: at(0.1),
    });
    box.world.ramp = { kind: "not_found" };
    await box.poll(0.3);
    expect(await health(box.containerId)).toMatchObject({
      rail_tracking_last_attempted_at: at(0.3),
      rail_tracking_failed_reason: null,
      rail_last_tracking_request_at: at(0.3),
    });
  });
});

describe("a terminal refusing our credentials", () => {
  it("shows on the container, changes it once per outage, is logged once, backs off, and recovers", async () => {
    const box = await trackedBox();
    box.world.pod = seen(at(0.1));
    box.world.carrier = CARRIER_DOWN; // the failed-poll path: nothing else writes the row
    await box.poll(0.1);
    box.world.pod = REJECTED;

    const updatedAts: unknown[] = [];
    const delays: number[] = [];
    for (const [i, days] of [0.2, 0.25, 0.3].entries()) {
      await box.poll(days);
      const row = await containerRow(box.containerId);
      expect(row).toMatchObject({
        terminal_tracking_last_attempted_at: at(days),
        terminal_tracking_failed_reason: TERMINAL_CREDENTIALS_REJECTED,
        terminal_checked_at: at(0.1),
        pod_last_tracking_request_at: at(0.1),
      });
      updatedAts.push(row.updated_at);
      delays.push(await box.nextPollDelay());
      expect(delays[i]).toBe(pollRetryDelayMs(i + 2));
    }
    // The container changed once, when the outage began; later refused polls only advance attempted-at.
    expect(updatedAts).toEqual([at(0.2), at(0.2), at(0.2)]);
    const outageLines = logged.filter((args) => String(args[0]).includes("refused our credentials"));
    expect(outageLines).toHaveLength(1);
    expect(String(outageLines[0]?.[0])).toContain("Y257");

    box.world.pod = seen(at(0.4));
    box.world.carrier = null;
    await box.poll(0.4);
    expect(await health(box.containerId)).toMatchObject({
      terminal_tracking_last_attempted_at: at(0.4),
      terminal_tracking_failed_reason: null,
      terminal_checked_at: at(0.4),
    });
    // A new outage after the recovery is logged again.
    box.world.pod = REJECTED;
    await box.poll(0.5);
    expect(logged.filter((args) => String(args[0]).includes("refused our credentials"))).toHaveLength(2);
  });
});
