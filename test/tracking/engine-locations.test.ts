import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import type { Milestone } from "../../src/tracking/sources/types";
import { createAccount } from "../helpers/api";
import {
  boxNumbers,
  containersOfShipment,
  envWithQueue,
  FakeCarrier,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
  requestRow,
} from "../helpers/engine";
import { containerFacts, DAY_MS, iso, milestone, shipmentFacts } from "../helpers/facts";

// Every place the engine writes resolves through src/reference/locations.ts (issue 12): retired UN/LOCODEs, SMDG
// codes at their port, zones on the shipment and on every event; what the reference data does not know is kept as
// given and counted in a log line, never dropped.

const SCAC = "FAKE";
const nextBox = boxNumbers("LOCU", 700_000);
const SHANGHAI_ID = "b6f98abd-e137-5556-a411-953a2f8d23f8";
const USLAX_ID = "7f489361-09f1-5853-a300-c72f23604b40";
/** APM Terminals Pier 400, Los Angeles: FIRMS W185, SMDG APMT (its id from terminals.csv). */
const APM_PIER_400_ID = "c5128cb0-2b98-5be8-935e-a2b75f4f9bcc";

let warn: MockInstance;
beforeEach(() => {
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Tracks a BL whose carrier reports `milestones` from Shanghai (by its retired code CNSGH) to Los Angeles. */
async function trackJourney(milestones: (bl: string) => Milestone[], podTerminalCode: string | null) {
  const number = nextBox();
  const bl = `LOCBL-${number}`;
  const facts = shipmentFacts([containerFacts(number, milestones(bl))], {
    billOfLadingNumber: bl,
    portOfLadingLocode: "CNSGH",
    portOfDischargeLocode: "USLAX",
    podTerminalCode,
  });
  const carrier = new FakeCarrier(SCAC, () => ({ kind: "found", shipment: facts }));
  const account = await createAccount();
  const clock = new FakeClock(FUTURE_T0);
  const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: envWithQueue(recordingQueue()), clock, sources: registryOf([carrier]) },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const shipmentId = request.shipment_id ?? "";
  const [container] = await containersOfShipment(shipmentId);
  if (!container) throw new Error("no container row");
  return { shipmentId, containerId: container.id };
}

const at = (days: number) => iso(FUTURE_T0 + days * DAY_MS);

/** The transport events of a container with the columns places are written to. */
async function transportEventsOf(containerId: string) {
  const { results } = await env.DB.prepare(
    "SELECT event, location_locode, location_id, terminal_id, timezone FROM transport_events WHERE container_id = ?1",
  )
    .bind(containerId)
    .all<{ event: string; location_locode: string | null }>();
  return results;
}

describe("places the engine writes", () => {
  it("a retired POL code and an SMDG POD terminal resolve: ports, terminal and every zone are filled", async () => {
    const { shipmentId, containerId } = await trackJourney(
      (bl) => [
        milestone("container.transport.vessel_loaded", at(-20), "CNSGH", { id: `${bl}/loaded` }),
        milestone("container.transport.vessel_discharged", at(-1), "USLAX", { id: `${bl}/disc`, facility: "APMT" }),
      ],
      "APMT",
    );
    const shipment = await env.DB.prepare(
      "SELECT port_of_lading_id, port_of_lading_name, pol_timezone, pod_timezone, pod_terminal_id FROM shipments WHERE id = ?",
    )
      .bind(shipmentId)
      .first();
    expect(shipment).toEqual({
      port_of_lading_id: SHANGHAI_ID,
      port_of_lading_name: "Shanghai",
      pol_timezone: "Asia/Shanghai",
      pod_timezone: "America/Los_Angeles",
      pod_terminal_id: APM_PIER_400_ID,
    });
    const events = await transportEventsOf(containerId);
    const loaded = events.find((e) => e.event === "container.transport.vessel_loaded");
    expect(loaded).toMatchObject({ location_locode: "CNSGH", location_id: SHANGHAI_ID, timezone: "Asia/Shanghai" });
    const discharged = events.find((e) => e.event === "container.transport.vessel_discharged");
    expect(discharged).toMatchObject({
      location_id: USLAX_ID,
      terminal_id: APM_PIER_400_ID,
      timezone: "America/Los_Angeles",
    });
    expect(warn).not.toHaveBeenCalledWith(expect.stringContaining("unknown locations"));
  });

  it("an unknown port and facility are kept as given (code and name), counted in one log line, never dropped", async () => {
    const { containerId } = await trackJourney(
      (bl) => [
        milestone("container.transport.vessel_loaded", at(-20), "CNSGH", { id: `${bl}/loaded` }),
        {
          ...milestone("container.transport.transshipment_discharged", at(-10), "XXZZQ", {
            id: `${bl}/ts`,
            facility: "ZZQX",
          }),
          locationName: "Nowhere Creek",
        },
        milestone("container.transport.vessel_discharged", at(-1), "USLAX", { id: `${bl}/disc`, facility: "ZZQY" }),
      ],
      "ZZQY",
    );
    const events = await transportEventsOf(containerId);
    expect(events.map((e) => e.event)).toContain("container.transport.transshipment_discharged");
    const ts = events.find((e) => e.event === "container.transport.transshipment_discharged");
    expect(ts).toMatchObject({ location_locode: "XXZZQ", location_id: null, terminal_id: null, timezone: null });
    const discharged = events.find((e) => e.event === "container.transport.vessel_discharged");
    expect(discharged).toMatchObject({ location_id: USLAX_ID, terminal_id: null, timezone: "America/Los_Angeles" });
    const raw = await env.DB.prepare(
      "SELECT location, location_locode FROM raw_events WHERE container_id = ? AND location_locode = 'XXZZQ'",
    )
      .bind(containerId)
      .first();
    expect(raw).toEqual({ location: "Nowhere Creek", location_locode: "XXZZQ" });
    expect(warn).toHaveBeenCalledWith("unknown locations: 3 kept as given (box update): USLAX/ZZQY, XXZZQ, XXZZQ/ZZQX");
  });
});
