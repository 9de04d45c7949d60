import { describe, expect, it } from "vitest";
import type { TerminalHold } from "../../src/db/schema";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import { pollRetryDelayMs } from "../../src/tracking/schedule";
import type { SourceRegistry } from "../../src/tracking/sources";
import type {
  LookupResult,
  Milestone,
  ShipmentFacts,
  TerminalObservation,
  TerminalPollResult,
} from "../../src/tracking/sources/types";
import { createAccount } from "../helpers/api";
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
import { containerFacts, DAY_MS, HOUR_MS, iso, milestone, observation, shipmentFacts } from "../helpers/facts";

// Issue 3: a terminal (or rail ramp) poll that fails — the source unreachable, throwing, or answering garbage the
// source reports as a temporary failure — is not a check. It must not advance `pod_last_tracking_request_at`,
// `rail_last_tracking_request_at` or `terminal_checked_at`, nor change what the terminal last said; only an answer
// does (found, or not_found: the terminal was reached and does not have the box). The same holds for the carrier
// (`shipment_last_tracking_request_at`). Real Tracker DO and D1, fake sources, FakeClock.

const SCAC = "FAKE";
const POL = "CNYTN";
const POD = "USLAX";

const nextBox = boxNumbers("TPFU", 400_000);

const at = (days: number) => iso(FUTURE_T0 + days * DAY_MS);
const found = (shipment: ShipmentFacts): LookupResult => ({ kind: "found", shipment });
const seen = (o: TerminalObservation): TerminalPollResult => ({ kind: "found", observation: o });
const UNREACHABLE: TerminalPollResult = { kind: "temporary_failure", reason: "terminal_unreachable" };

/** A box discharged at Los Angeles (Y257), optionally continuing by rail to Chicago (BNSF ramp). */
async function trackedBox(options: { rail?: boolean } = {}) {
  const number = nextBox();
  const bl = `TPFBL-${number}`;
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
    pod: { kind: "not_found" } as TerminalPollResult | Error,
    ramp: { kind: "not_found" } as TerminalPollResult | Error,
  };
  const facts = () =>
    shipmentFacts([containerFacts(number, world.milestones)], {
      billOfLadingNumber: bl,
      ...(options.rail ? { destinationLocode: "USCHI", destinationTerminalCode: "USCHIBNSF" } : {}),
    });
  const carrier = new FakeCarrier(SCAC, () => world.carrier ?? found(facts()));
  const answer = (r: TerminalPollResult | Error) => {
    if (r instanceof Error) throw r;
    return r;
  };
  const podTerminal = new FakeTerminal("Y257", () => answer(world.pod));
  const ramp = new FakeTerminal("USCHIBNSF", () => answer(world.ramp));
  const sources: SourceRegistry = registryOf([carrier], [podTerminal, ramp]);
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
  const poll = (days: number) => {
    clock.set(FUTURE_T0 + days * DAY_MS);
    return pollBox({ env: envWithQueue(recordingQueue()), clock, sources }, { scac: SCAC, number });
  };
  return { number, world, podTerminal, ramp, clock, containerId: container.id, poll, m };
}

const CHECK_COLUMNS = [
  "pod_last_tracking_request_at",
  "rail_last_tracking_request_at",
  "shipment_last_tracking_request_at",
  "terminal_checked_at",
] as const;

async function checks(containerId: string) {
  const row = await containerRow(containerId);
  return Object.fromEntries(CHECK_COLUMNS.map((c) => [c, row[c]]));
}

describe("a failed terminal poll is not a check", () => {
  it("an unreachable POD terminal leaves pod_last_tracking_request_at and the terminal's facts as they were", async () => {
    const box = await trackedBox();
    const hold: TerminalHold = { name: "customs", status: "hold", description: null };
    box.world.pod = seen(observation(at(0.1), { availabilityKnown: true, availableForPickup: false, holds: [hold] }));
    await box.poll(0.1);
    expect(await checks(box.containerId)).toEqual({
      pod_last_tracking_request_at: at(0.1),
      rail_last_tracking_request_at: null,
      shipment_last_tracking_request_at: at(0.1),
      terminal_checked_at: at(0.1),
    });

    // The carrier answers with news (a new milestone, so the update writes), the terminal fails.
    box.world.milestones = [...box.world.milestones, box.m("container.transport.vessel_berthed", -0.9, POD)];
    box.world.pod = UNREACHABLE;
    const results = await box.poll(0.2);
    expect(results?.terminal).toEqual(UNREACHABLE);
    const row = await containerRow(box.containerId);
    expect(await checks(box.containerId)).toEqual({
      pod_last_tracking_request_at: at(0.1),
      rail_last_tracking_request_at: null,
      shipment_last_tracking_request_at: at(0.2),
      terminal_checked_at: at(0.1),
    });
    expect(row).toMatchObject({ current_status: "not_available", availability_known: 1, updated_at: at(0.2) });
    expect(JSON.parse(row.holds_at_pod_terminal)).toEqual([hold]);
    // A failure retries sooner than the regular interval.
    const next = (await trackerStub(SCAC, box.number).currentState())?.nextPollAt;
    expect(next).toBe(iso(box.clock.now() + pollRetryDelayMs(1)));

    // A source that throws counts the same.
    box.world.pod = new Error("socket hang up");
    await box.poll(0.3);
    expect((await checks(box.containerId)).pod_last_tracking_request_at).toBe(at(0.1));
    expect(box.podTerminal.calls).toBe(3);

    // The next answer is a check again, and its facts apply.
    box.world.pod = seen(observation(at(0.4), { availabilityKnown: true, availableForPickup: true }));
    await box.poll(0.4);
    expect(await checks(box.containerId)).toMatchObject({
      pod_last_tracking_request_at: at(0.4),
      terminal_checked_at: at(0.4),
    });
    expect((await containerRow(box.containerId)).current_status).toBe("available");
  });

  it("a terminal that answers not_found was checked: pod_last_tracking_request_at advances, its facts do not change", async () => {
    const box = await trackedBox();
    box.world.pod = seen(observation(at(0.1), { availabilityKnown: true, availableForPickup: false }));
    await box.poll(0.1);
    box.world.pod = { kind: "not_found" };
    await box.poll(0.2);
    expect(await checks(box.containerId)).toMatchObject({
      pod_last_tracking_request_at: at(0.2),
      terminal_checked_at: at(0.1),
    });
  });

  it("a failed carrier poll leaves shipment_last_tracking_request_at; the terminal's answer still counts", async () => {
    const box = await trackedBox();
    await box.poll(0.1);
    box.world.carrier = { kind: "temporary_failure", reason: "shipping_line_unreachable" };
    box.world.pod = seen(observation(at(0.2), { availabilityKnown: true, availableForPickup: true }));
    await box.poll(0.2);
    expect(await checks(box.containerId)).toMatchObject({
      shipment_last_tracking_request_at: at(0.1),
      pod_last_tracking_request_at: at(0.2),
      terminal_checked_at: at(0.2),
    });
  });

  it("an unreachable rail ramp leaves rail_last_tracking_request_at; the POD terminal's answer still counts", async () => {
    const box = await trackedBox({ rail: true });
    await box.poll(0.1); // discharged: from here on both the POD terminal and the ramp are asked
    expect(box.ramp.calls).toBe(1);
    expect(await checks(box.containerId)).toMatchObject({
      pod_last_tracking_request_at: at(0.1),
      rail_last_tracking_request_at: at(0.1),
    });
    box.world.ramp = UNREACHABLE;
    box.world.pod = seen(observation(at(0.2), { locationAtTerminal: "On-dock rail" }));
    await box.poll(0.2);
    expect(box.ramp.calls).toBe(2);
    expect(await checks(box.containerId)).toMatchObject({
      pod_last_tracking_request_at: at(0.2),
      rail_last_tracking_request_at: at(0.1),
    });
    expect((await containerRow(box.containerId)).location_at_pod_terminal).toBe("On-dock rail");

    box.world.ramp = new Error("ramp API 503");
    box.world.pod = UNREACHABLE;
    await box.poll(0.3);
    expect(await checks(box.containerId)).toMatchObject({
      pod_last_tracking_request_at: at(0.2),
      rail_last_tracking_request_at: at(0.1),
      shipment_last_tracking_request_at: at(0.3),
    });

    box.world.ramp = { kind: "not_found" };
    await box.poll(0.4);
    expect((await checks(box.containerId)).rail_last_tracking_request_at).toBe(at(0.4));
  });

  it("a box whose facilities fail an hour running keeps its last checks, polled on the retry schedule", async () => {
    const box = await trackedBox();
    box.world.pod = seen(observation(at(0.1), { availabilityKnown: true, availableForPickup: true }));
    await box.poll(0.1);
    box.world.pod = UNREACHABLE;
    box.world.carrier = { kind: "temporary_failure", reason: "shipping_line_unreachable" };
    const before = await containerRow(box.containerId);
    for (let i = 1; i <= 3; i++) {
      await box.poll(0.1 + (i * HOUR_MS) / DAY_MS);
      const next = (await trackerStub(SCAC, box.number).currentState())?.nextPollAt;
      expect(next).toBe(iso(box.clock.now() + pollRetryDelayMs(i)));
    }
    // Nothing answered: the row keeps everything it had; only the attempts are recorded (issue 13 §1), and its
    // updated_at moved once, when the terminal's failure reason first changed.
    expect(await containerRow(box.containerId)).toEqual({
      ...before,
      terminal_tracking_last_attempted_at: iso(box.clock.now()),
      terminal_tracking_failed_reason: "terminal_unreachable",
      updated_at: at(0.1 + HOUR_MS / DAY_MS),
    });
  });
});
