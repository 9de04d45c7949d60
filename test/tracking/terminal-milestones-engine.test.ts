import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
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
import { containerFacts, DAY_MS, HOUR_MS, iso, milestone, observation, shipmentFacts } from "../helpers/facts";
import { insertWebhook, notificationsOf } from "../helpers/receiver";

// Issue 14, "container.transport.* for discharge/full-out/empty-in, deduplicated against the carrier's copy of the
// same milestone": a terminal's discharge, full-out and empty-return times become terminal-sourced transport events
// when the carrier has not reported the move, and the carrier's copy, whenever it comes, is that same event. Real
// lookup and poll consumers, Tracker DO, D1 and webhook outbox; carrier and facilities are fakes injected through
// `deps.sources`, on a FakeClock years ahead (no alarm fires behind a test's back).

const SCAC = "FAKE";
const POL = "CNYTN";
const POD = "USLAX";
const POD_TERMINAL = "Y257";
const DESTINATION = "USCHI";
const RAMP = "USCHIBNSF";

const nextBox = boxNumbers("TMSU", 700_000);

const DISCHARGED = "container.transport.vessel_discharged";
const FULL_OUT = "container.transport.full_out";
const EMPTY_IN = "container.transport.empty_in";
const WATCHED = [DISCHARGED, FULL_OUT, EMPTY_IN];

const found = (shipment: ShipmentFacts): LookupResult => ({ kind: "found", shipment });
const seen = (o: TerminalObservation): TerminalPollResult => ({ kind: "found", observation: o });

/** A transport event row as D1 holds it, with what this issue is about. */
interface EventRow {
  event: string;
  timestamp: string;
  data_source: string;
  location_locode: string | null;
  vessel_name: string | null;
  voyage_number: string | null;
  terminal_id: string | null;
}

/** The discharge / full-out / empty-in rows of a container, oldest first. */
async function watchedEvents(containerId: string): Promise<EventRow[]> {
  const { results } = await env.DB.prepare(
    `SELECT event, timestamp, data_source, location_locode, vessel_name, voyage_number, terminal_id
       FROM transport_events WHERE container_id = ?1 AND event IN (?2, ?3, ?4) ORDER BY timestamp, event`,
  )
    .bind(containerId, ...WATCHED)
    .all<EventRow>();
  return results;
}

/**
 * A box with a fake carrier, POD terminal (and, for `rail`, an inland ramp), tracked by one account with a webhook
 * for the three events; `world` holds what each source answers, `poll(days)` polls at `FUTURE_T0 + days`.
 */
async function trackedBox(options: { rail?: boolean } = {}) {
  const number = nextBox();
  const bl = `TMSBL-${number}`;
  const at = (days: number) => iso(FUTURE_T0 + days * DAY_MS);
  const m = (event: Milestone["event"], days: number, locode: string) =>
    milestone(event, at(days), locode, { id: `${number}/${event}/${days}` });
  const atSea = [m("container.transport.vessel_loaded", -3, POL), m("container.transport.vessel_departed", -2, POL)];
  const world = {
    milestones: atSea,
    pod: { kind: "not_found" } as TerminalPollResult,
    ramp: { kind: "not_found" } as TerminalPollResult,
  };
  const extra: Partial<ShipmentFacts> = options.rail
    ? { destinationLocode: DESTINATION, destinationTerminalCode: RAMP }
    : {};
  const carrier = new FakeCarrier(SCAC, () =>
    found(shipmentFacts([containerFacts(number, world.milestones)], { billOfLadingNumber: bl, ...extra })),
  );
  const terminals = [new FakeTerminal(POD_TERMINAL, () => world.pod), new FakeTerminal(RAMP, () => world.ramp)];
  const sources: SourceRegistry = registryOf([carrier], terminals);
  const clock = new FakeClock(FUTURE_T0);
  const account = await createAccount();
  const webhook = await insertWebhook(account, { events: WATCHED });
  const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: envWithQueue(recordingQueue()), clock, sources },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const [container] = await containersOfShipment(request.shipment_id ?? "");
  if (!container) throw new Error("no container row");
  const poll = async (days: number) => {
    clock.set(FUTURE_T0 + days * DAY_MS);
    await pollBox({ env: envWithQueue(recordingQueue()), clock, sources }, { scac: SCAC, number });
  };
  /** The webhook's notifications of the three events, by event. */
  const notified = async () => (await notificationsOf(webhook.id)).map((n) => n.event);
  /** Another account tracks the same BL now; returns its container id. */
  const join = async () => {
    const other = await createAccount();
    const id = await insertRequest(other, { number: bl, scac: SCAC, createdAtMs: clock.now() });
    await processTrackingRequest(
      { env: envWithQueue(recordingQueue()), clock, sources },
      { trackingRequestId: id, accountId: other.accountId },
    );
    const [row] = await containersOfShipment((await requestRow(id)).shipment_id ?? "");
    if (!row) throw new Error("no container row");
    return row.id;
  };
  return { at, m, atSea, world, poll, containerId: container.id, notified, join };
}

describe("terminal-only moves become terminal-sourced transport events", () => {
  it("discharge, full-out and empty return reported only by the terminal: one event and one notification each", async () => {
    const box = await trackedBox();
    const arrived = box.m("container.transport.vessel_arrived", 1, POD);
    box.world.milestones = [...box.atSea, arrived];
    await box.poll(0.5);
    expect(await watchedEvents(box.containerId)).toEqual([]);

    box.world.pod = seen(observation(box.at(1.3), { dischargedAt: box.at(1.2) }));
    await box.poll(1.3);
    expect(await watchedEvents(box.containerId)).toEqual([
      {
        event: DISCHARGED,
        timestamp: box.at(1.2),
        data_source: "terminal",
        location_locode: POD,
        // The POD vessel of the shipment facts.
        vessel_name: "TEST VESSEL",
        voyage_number: "100E",
        terminal_id: expect.any(String),
      },
    ]);
    expect(await box.notified()).toEqual([DISCHARGED]);

    box.world.pod = seen(observation(box.at(3.1), { dischargedAt: box.at(1.2), fullOutAt: box.at(3) }));
    await box.poll(3.1);
    box.world.pod = seen(
      observation(box.at(5.1), { dischargedAt: box.at(1.2), fullOutAt: box.at(3), emptyReturnedAt: box.at(5) }),
    );
    await box.poll(5.1);
    const rows = await watchedEvents(box.containerId);
    expect(rows.map((r) => [r.event, r.timestamp, r.data_source, r.location_locode])).toEqual([
      [DISCHARGED, box.at(1.2), "terminal", POD],
      [FULL_OUT, box.at(3), "terminal", POD],
      [EMPTY_IN, box.at(5), "terminal", POD],
    ]);
    // Gate moves name no vessel.
    expect(rows.slice(1).map((r) => [r.vessel_name, r.voyage_number])).toEqual([
      [null, null],
      [null, null],
    ]);
    expect((await box.notified()).sort()).toEqual([DISCHARGED, EMPTY_IN, FULL_OUT].sort());

    // A replayed poll (the same observation) adds nothing.
    await box.poll(5.2);
    expect(await watchedEvents(box.containerId)).toEqual(rows);
    expect(await box.notified()).toHaveLength(3);

    // The terminal stops sending the times: nothing is retracted, nothing announced.
    box.world.pod = seen(observation(box.at(5.3)));
    await box.poll(5.3);
    expect(await watchedEvents(box.containerId)).toEqual(rows);
    expect(await box.notified()).toHaveLength(3);
  });

  it("on a rail move, the POD terminal's discharge at the POD and the inland ramp's full-out at the destination", async () => {
    const box = await trackedBox({ rail: true });
    box.world.milestones = [...box.atSea, box.m("container.transport.vessel_arrived", 1, POD)];
    box.world.pod = seen(observation(box.at(1.3), { dischargedAt: box.at(1.2) }));
    await box.poll(1.3);
    box.world.milestones = [
      ...box.world.milestones,
      box.m("container.transport.rail_departed", 2, POD),
      box.m("container.transport.rail_unloaded", 4.2, DESTINATION),
    ];
    box.world.ramp = seen(observation(box.at(5.1), { dischargedAt: box.at(4.2), fullOutAt: box.at(5) }));
    await box.poll(5.1);
    const rows = await watchedEvents(box.containerId);
    expect(rows.map((r) => [r.event, r.timestamp, r.data_source, r.location_locode])).toEqual([
      [DISCHARGED, box.at(1.2), "terminal", POD],
      [FULL_OUT, box.at(5), "terminal", DESTINATION],
    ]);
    expect((await box.notified()).sort()).toEqual([DISCHARGED, FULL_OUT].sort());
  });
});

describe("deduplicated against the carrier's copy", () => {
  it("carrier first, then the terminal at a slightly different time: nothing extra", async () => {
    const box = await trackedBox();
    const carrierMoves = [
      box.m("container.transport.vessel_arrived", 1, POD),
      box.m(DISCHARGED, 1.2, POD),
      box.m(FULL_OUT, 3, POD),
      box.m(EMPTY_IN, 5, POD),
    ];
    box.world.milestones = [...box.atSea, ...carrierMoves];
    await box.poll(5.1);
    const rows = await watchedEvents(box.containerId);
    expect(rows.map((r) => [r.event, r.data_source])).toEqual([
      [DISCHARGED, "shipping_line"],
      [FULL_OUT, "shipping_line"],
      [EMPTY_IN, "shipping_line"],
    ]);
    expect(await box.notified()).toHaveLength(3);

    const offset = HOUR_MS / DAY_MS / 2;
    box.world.pod = seen(
      observation(box.at(5.2), {
        dischargedAt: box.at(1.2 + offset),
        fullOutAt: box.at(3 + offset),
        emptyReturnedAt: box.at(5 + offset),
      }),
    );
    await box.poll(5.2);
    await box.poll(5.3);
    expect(await watchedEvents(box.containerId)).toEqual(rows);
    expect(await box.notified()).toHaveLength(3);

    // Even once the carrier no longer lists the moves (an upstream that trims old events), the terminal's copies
    // are still the carrier's events.
    box.world.milestones = [...box.atSea];
    await box.poll(5.4);
    expect(await watchedEvents(box.containerId)).toEqual(rows);
    expect(await box.notified()).toHaveLength(3);
  });

  it("terminal first, carrier later at the same time: one event, one notification", async () => {
    const box = await trackedBox();
    const arrived = box.m("container.transport.vessel_arrived", 1, POD);
    box.world.milestones = [...box.atSea, arrived];
    box.world.pod = seen(observation(box.at(3.1), { dischargedAt: box.at(1.2), fullOutAt: box.at(3) }));
    await box.poll(3.1);
    expect((await box.notified()).sort()).toEqual([DISCHARGED, FULL_OUT].sort());

    // The carrier's discharge names no facility and its vessel by another name; its full-out has no facility.
    const carrierDischarge = {
      ...box.m(DISCHARGED, 1.2, POD),
      facilityCode: null,
      vesselImo: null,
      vesselName: "CARRIER NAME",
    };
    box.world.milestones = [...box.atSea, arrived, carrierDischarge, box.m(FULL_OUT, 3, POD)];
    await box.poll(3.2);
    await box.poll(3.3);
    const rows = await watchedEvents(box.containerId);
    expect(rows.map((r) => [r.event, r.timestamp])).toEqual([
      [DISCHARGED, box.at(1.2)],
      [FULL_OUT, box.at(3)],
    ]);
    expect((await box.notified()).sort()).toEqual([DISCHARGED, FULL_OUT].sort());
  });

  it("terminal first, carrier later at another time: the event is corrected in place, not announced again", async () => {
    const box = await trackedBox();
    const arrived = box.m("container.transport.vessel_arrived", 1, POD);
    box.world.milestones = [...box.atSea, arrived];
    const terminalView = observation(box.at(5.1), {
      dischargedAt: box.at(1.2),
      fullOutAt: box.at(3),
      emptyReturnedAt: box.at(5),
    });
    box.world.pod = seen(terminalView);
    await box.poll(5.1);
    expect(await box.notified()).toHaveLength(3);

    const carrierDischarge = { ...box.m(DISCHARGED, 1.25, POD), vesselName: "CARRIER NAME", voyageNumber: "7W" };
    box.world.milestones = [
      ...box.atSea,
      arrived,
      carrierDischarge,
      box.m(FULL_OUT, 3.05, POD),
      // The carrier names the empty depot's place differently.
      box.m(EMPTY_IN, 5.05, "USLGB"),
    ];
    await box.poll(5.2);
    // Replayed, and with the terminal still reporting its own times.
    await box.poll(5.3);
    const rows = await watchedEvents(box.containerId);
    expect(rows.map((r) => [r.event, r.timestamp])).toEqual([
      [DISCHARGED, box.at(1.25)],
      [FULL_OUT, box.at(3.05)],
      [EMPTY_IN, box.at(5.05)],
    ]);
    // The rows take the carrier's vessel and place, and are the carrier's events now.
    expect(rows[0]).toMatchObject({ vessel_name: "CARRIER NAME", voyage_number: "7W" });
    expect(rows.map((r) => [r.data_source, r.location_locode])).toEqual([
      ["shipping_line", POD],
      ["shipping_line", POD],
      ["shipping_line", "USLGB"],
    ]);
    expect(await box.notified()).toHaveLength(3);
    // An account joining now gets the same history: one event per move.
    expect(await watchedEvents(await box.join())).toEqual(rows);

    // A later correction by the carrier itself is news, as for any corrected actual.
    box.world.milestones = box.world.milestones.map((x) =>
      x === carrierDischarge ? { ...carrierDischarge, timestamp: box.at(1.3) } : x,
    );
    await box.poll(5.4);
    expect((await watchedEvents(box.containerId)).map((r) => [r.event, r.timestamp])[0]).toEqual([
      DISCHARGED,
      box.at(1.3),
    ]);
    expect((await box.notified()).filter((e) => e === DISCHARGED)).toHaveLength(2);
  });
});
