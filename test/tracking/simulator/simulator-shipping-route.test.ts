import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../src/lib/clock";
import { processTrackingRequest } from "../../../src/tracking/consumers";
import { pollBox } from "../../../src/tracking/poll-consumer";
import { planJourney } from "../../../src/tracking/simulator/plan";
import { realMsOf } from "../../../src/tracking/simulator/simulated-time";
import { oceanLegsOf } from "../../../src/tracking/simulator/state";
import type { SourceRegistry } from "../../../src/tracking/sources";
import { createSimulatorSource } from "../../../src/tracking/sources/simulator";
import { apiJson, createAccount } from "../../helpers/api";
import {
  containersOfShipment,
  envWithQueue,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  requestRow,
} from "../../helpers/engine";
import { MINUTE_MS } from "../../helpers/facts";
import type { One, Resource } from "../../helpers/tracking";

// Issue 13 item 6: a simulated shipment's `pod_vessel_*` and its route name the same vessels, before and after the
// transshipment (MAEU123456789 transships: its shipment named MAERSK HARMONY while its route's only leg, built from
// the events so far, sailed on MAERSK POLARIS). Through the real lookup and poll consumers, the Tracker, D1 and
// GET /containers/{id}/route.

const NUMBER = "MAEU123456789";

function resolve(doc: One, link: unknown): Resource | undefined {
  const data = (link as { data?: { id: string; type: string } | null } | undefined)?.data;
  return data ? doc.included?.find((r) => r.type === data.type && r.id === data.id) : undefined;
}

describe("a simulated transshipment: shipment and route from one journey plan", () => {
  it("names the shipment's POD vessel on the leg into the POD, and the POL vessel on the leg out of the POL", async () => {
    const clock = new FakeClock(FUTURE_T0);
    const journey = planJourney({
      scac: "MAEU",
      number: NUMBER,
      requestType: "bill_of_lading",
      anchorMs: FUTURE_T0,
      speed: 1,
    });
    const legs = oceanLegsOf(journey);
    expect(legs).toHaveLength(2);
    const [first, second] = legs as [(typeof legs)[0], (typeof legs)[0]];
    expect(first.vessel.name).not.toBe(second.vessel.name);

    const simulator = createSimulatorSource({ speed: 1 });
    const sources: SourceRegistry = {
      carriers: [simulator.carrier],
      terminals: [simulator.terminal],
      supportedScacs: new Set(["MAEU"]),
      speedUpFor: () => 1,
      lookupSpeedUpFor: () => 1,
      lineSourceKind: () => null,
    };
    const account = await createAccount();
    await env.DB.prepare("UPDATE accounts SET entitlements = ?1 WHERE id = ?2")
      .bind(JSON.stringify(["routing"]), account.accountId)
      .run();
    const requestId = await insertRequest(account, { number: NUMBER, scac: "MAEU", createdAtMs: clock.now() });
    await processTrackingRequest(
      { env: envWithQueue(recordingQueue()), clock, sources },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    const shipmentId = (await requestRow(requestId)).shipment_id ?? "";
    const [box] = await containersOfShipment(shipmentId);
    if (!box) throw new Error("no container");

    const read = async () => {
      const shipment = await apiJson<One>(`/shipments/${shipmentId}`, { key: account.key });
      const route = await apiJson<One>(`/containers/${box.id}/route?include=vessel,route_location`, {
        key: account.key,
      });
      expect(route.res.status).toBe(200);
      const refs = route.json.data.relationships?.route_locations?.data;
      if (!Array.isArray(refs)) throw new Error("route_locations linkage is not a list");
      const stops = refs.map((r) => route.json.included?.find((i) => i.id === r.id)) as Resource[];
      const vessel = (s: Resource | undefined, rel: string) =>
        resolve(route.json, s?.relationships?.[rel])?.attributes.name ?? null;
      return {
        shipment: shipment.json.data.attributes,
        stops: stops.map((s) => [s.attributes.role, s.attributes.location_locode]),
        polOut: [vessel(stops[0], "outbound_vessel"), stops[0]?.attributes.outbound_voyage_number],
        podIn: [vessel(stops.at(-1), "inbound_vessel"), stops.at(-1)?.attributes.inbound_voyage_number],
      };
    };

    // Departed from the POL, not yet at the transshipment port.
    const before = await read();
    expect([before.shipment.pod_vessel_name, before.shipment.pod_voyage_number]).toEqual([
      second.vessel.name,
      second.vessel.voyageNumber,
    ]);
    expect(before.podIn).toEqual([before.shipment.pod_vessel_name, before.shipment.pod_voyage_number]);
    expect(before.polOut).toEqual([first.vessel.name, first.vessel.voyageNumber]);
    expect(before.stops).toEqual([
      ["port_of_lading", journey.pol.locode],
      ["transshipment", null],
      ["port_of_discharge", journey.pod.locode],
    ]);

    // After the transshipment: the port is known, the vessels are the same.
    clock.set(realMsOf(journey, journey.transshipment?.departedDay ?? 0) + MINUTE_MS);
    await pollBox({ env, clock, sources }, { scac: "MAEU", number: box.number });
    const after = await read();
    expect(after.stops).toEqual([
      ["port_of_lading", journey.pol.locode],
      ["transshipment", journey.transshipment?.port.locode],
      ["port_of_discharge", journey.pod.locode],
    ]);
    expect(after.podIn).toEqual([second.vessel.name, second.vessel.voyageNumber]);
    expect(after.polOut).toEqual([first.vessel.name, first.vessel.voyageNumber]);
    expect([after.shipment.pod_vessel_name, after.shipment.pod_voyage_number]).toEqual(after.podIn);
  });
});
