import { describe, expect, it } from "vitest";
import {
  buildContainerRoute,
  type ContainerRoute,
  type RouteContainer,
  type RouteEvent,
  type RouteLeg,
  type RouteShipment,
  type RouteStop,
} from "../../src/containers/shipping-route";
import { parseRouteInclude, routeDocument } from "../../src/containers/shipping-route-serializer";
import { type JsonApiDocument, type ResourceObject, toManyIds, toOneId } from "../../src/lib/jsonapi/types";
import { TrackingApiError, trackingApiErrorFromStatus } from "../../src/mcp/api-errors";
import { milestoneGlossaryMarkdown } from "../../src/mcp/glossary";
import { errorMessage } from "../../src/mcp/tools/common";
import { MILESTONES, phaseOf } from "../../src/transport-events/milestone-catalog";

// Pure parts of the MCP server: the route builder, linkage reading, error mapping and the milestone catalog with its
// glossary. (Readiness, LFD urgency, fees and local time: test/containers/derived-views.unit.test.ts.)

describe("buildContainerRoute", () => {
  const container: RouteContainer = {
    id: "c1",
    number: "ABCU1234560",
    pol_vessel_departed_at: null,
    pod_arrived_at: null,
    pod_discharged_at: null,
    pod_rail_loaded_at: null,
    pod_rail_departed_at: null,
    pod_rail_carrier_scac: null,
    ind_rail_carrier_scac: null,
    ind_eta_at: null,
    ind_ata_at: null,
    pod_timezone: null,
    final_destination_timezone: null,
  };
  const shipment: RouteShipment = {
    port_of_lading_locode: "CNSHA",
    port_of_lading_name: "Shanghai",
    port_of_discharge_locode: "USLAX",
    port_of_discharge_name: "Los Angeles",
    destination_locode: null,
    destination_name: null,
    destination_timezone: null,
    pol_timezone: "Asia/Shanghai",
    pod_timezone: "America/Los_Angeles",
    pol_etd_at: "2025-05-01T00:00:00Z",
    pol_atd_at: "2025-05-01T06:00:00Z",
    pod_eta_at: "2025-05-20T00:00:00Z",
    pod_ata_at: null,
    destination_eta_at: null,
    destination_ata_at: null,
    pod_vessel_name: "POD VESSEL",
    pod_vessel_imo: "9000009",
    pod_voyage_number: "9E",
  };
  const ev = (event: string, timestamp: string, locode: string, vessel: string | null = null): RouteEvent => ({
    event: `container.transport.${event}`,
    timestamp,
    timezone: null,
    locode,
    location_name: null,
    vessel_name: vessel,
    vessel_imo: null,
    voyage_number: null,
  });

  it("without events: POL → POD on the shipment's POD vessel, with ETD/ATD and ETA", () => {
    const r = buildContainerRoute(container, shipment, []);
    expect(r.stops.map((s) => s.locode)).toEqual(["CNSHA", "USLAX"]);
    expect(r.legs).toEqual([
      {
        mode: "vessel",
        from_locode: "CNSHA",
        to_locode: "USLAX",
        vessel: { name: "POD VESSEL", imo: "9000009", voyage_number: "9E" },
        carrier_scac: null,
        departed_at: "2025-05-01T06:00:00Z",
        estimated_departure_at: "2025-05-01T00:00:00Z",
        arrived_at: null,
        estimated_arrival_at: "2025-05-20T00:00:00Z",
      },
    ]);
  });

  it("a feeder into the POL and an inland rail leg: feeder port → POL → POD → inland destination", () => {
    const r = buildContainerRoute(
      {
        ...container,
        pod_rail_carrier_scac: "UPRR",
        pod_rail_departed_at: "2025-05-22T00:00:00Z",
        ind_eta_at: "2025-05-26T00:00:00Z",
      },
      { ...shipment, destination_locode: "USCHI", destination_name: "Chicago", pod_ata_at: "2025-05-21T00:00:00Z" },
      [
        ev("feeder_loaded", "2025-04-28T00:00:00Z", "CNNGB", "FEEDER ONE"),
        ev("feeder_departed", "2025-04-28T06:00:00Z", "CNNGB", "FEEDER ONE"),
        ev("vessel_loaded", "2025-04-30T00:00:00Z", "CNSHA", "MOTHER"),
        ev("vessel_departed", "2025-05-01T06:00:00Z", "CNSHA", "MOTHER"),
        ev("vessel_arrived", "2025-05-21T00:00:00Z", "USLAX", "MOTHER"),
      ],
    );
    expect(r.stops.map((s) => [s.role, s.locode])).toEqual([
      ["transshipment", "CNNGB"],
      ["port_of_lading", "CNSHA"],
      ["port_of_discharge", "USLAX"],
      ["inland_destination", "USCHI"],
    ]);
    expect(r.legs.map((l) => [l.mode, l.from_locode, l.to_locode, l.vessel?.name ?? l.carrier_scac])).toEqual([
      ["feeder", "CNNGB", "CNSHA", "FEEDER ONE"],
      ["vessel", "CNSHA", "USLAX", "MOTHER"],
      ["rail", "USLAX", "USCHI", "UPRR"],
    ]);
    expect(r.legs[2]).toMatchObject({
      departed_at: "2025-05-22T00:00:00Z",
      estimated_arrival_at: "2025-05-26T00:00:00Z",
    });
  });
});

/**
 * The `ContainerRoute` a route document (`include=route_location,vessel`) describes, read back from the document
 * alone: the oracle for "the route document loses nothing" (src/containers/shipping-route-serializer.ts).
 * @throws Error when the document lacks the container linkage or an included location.
 */
function readRoute(doc: JsonApiDocument): ContainerRoute {
  const data = doc.data as ResourceObject;
  const included = new Map((doc.included ?? []).map((r) => [`${r.type}:${r.id}`, r]));
  const one = (r: ResourceObject, name: string) => {
    const link = r.relationships?.[name]?.data;
    return link && !Array.isArray(link) ? link : null;
  };
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const refs = data.relationships?.route_locations?.data;
  const container = one(data, "container");
  if (!container || !Array.isArray(refs)) throw new Error("no container or route locations");
  const locations = refs.map((ref) => {
    const r = included.get(`route_location:${ref.id}`);
    if (!r) throw new Error(`route location ${ref.id} not included`);
    return r;
  });
  const stops: RouteStop[] = locations.map(({ attributes: a }) => ({
    role: a.role as RouteStop["role"],
    locode: str(a.location_locode),
    name: str(a.location_name),
    timezone: str(a.timezone),
    arrived_at: str(a.inbound_ata_at),
    estimated_arrival_at: str(a.inbound_eta_at),
    departed_at: str(a.outbound_atd_at),
    estimated_departure_at: str(a.outbound_etd_at),
  }));
  const legs: RouteLeg[] = locations.slice(0, -1).map((from, i) => {
    const [stop, to] = [stops[i] as RouteStop, stops[i + 1] as RouteStop];
    const link = one(from, "outbound_vessel");
    const vessel = link ? included.get(`vessel:${link.id}`) : undefined;
    return {
      mode: (str(from.attributes.outbound_mode) ?? "vessel") as RouteLeg["mode"],
      from_locode: stop.locode,
      to_locode: to.locode,
      vessel: vessel
        ? {
            name: str(vessel.attributes.name) ?? "",
            imo: str(vessel.attributes.imo),
            voyage_number: str(from.attributes.outbound_voyage_number),
          }
        : null,
      carrier_scac: str(from.attributes.outbound_scac),
      departed_at: stop.departed_at,
      estimated_departure_at: stop.estimated_departure_at,
      arrived_at: to.arrived_at,
      estimated_arrival_at: to.estimated_arrival_at,
    };
  });
  return { container_id: container.id, container_number: str(data.attributes.container_number) ?? "", stops, legs };
}

describe("route document (GET /containers/{id}/route) read back without loss", () => {
  const container: RouteContainer = {
    id: "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60",
    number: "ABCU1234560",
    pol_vessel_departed_at: "2025-05-01T06:00:00Z",
    pod_arrived_at: null,
    pod_discharged_at: null,
    pod_rail_loaded_at: null,
    pod_rail_departed_at: "2025-05-22T00:00:00Z",
    pod_rail_carrier_scac: "UPRR",
    ind_rail_carrier_scac: null,
    ind_eta_at: "2025-05-26T00:00:00Z",
    ind_ata_at: null,
    pod_timezone: "America/Los_Angeles",
    final_destination_timezone: "America/Chicago",
  };
  const shipment: RouteShipment = {
    port_of_lading_locode: "CNSHA",
    port_of_lading_name: "Shanghai",
    port_of_discharge_locode: "USLAX",
    port_of_discharge_name: "Los Angeles",
    destination_locode: "USCHI",
    destination_name: "Chicago",
    destination_timezone: "America/Chicago",
    pol_timezone: "Asia/Shanghai",
    pod_timezone: "America/Los_Angeles",
    pol_etd_at: "2025-05-01T00:00:00Z",
    pol_atd_at: null,
    pod_eta_at: "2025-05-20T00:00:00Z",
    pod_ata_at: "2025-05-21T00:00:00Z",
    destination_eta_at: null,
    destination_ata_at: null,
    pod_vessel_name: null,
    pod_vessel_imo: null,
    pod_voyage_number: null,
  };
  const ev = (event: string, timestamp: string, locode: string, vessel: string | null, imo: string | null) => ({
    event: `container.transport.${event}`,
    timestamp,
    timezone: "Etc/UTC",
    locode,
    location_name: `${locode} port`,
    vessel_name: vessel,
    vessel_imo: imo,
    voyage_number: vessel ? "7W" : null,
  });
  const everything = { routeLocations: true, ports: true, vessels: true };
  const routes = {
    "feeder, transshipment on the same vessel name with another IMO, POD, rail inland": buildContainerRoute(
      container,
      shipment,
      [
        ev("feeder_departed", "2025-04-28T06:00:00Z", "CNNGB", "FEEDER ONE", null),
        ev("vessel_departed", "2025-05-01T06:00:00Z", "CNSHA", "MOTHER", "9000001"),
        ev("transshipment_arrived", "2025-05-08T00:00:00Z", "KRPUS", "MOTHER", "9000001"),
        ev("transshipment_departed", "2025-05-09T00:00:00Z", "KRPUS", "MOTHER", "9000002"),
        ev("estimated.vessel_arrived", "2025-05-19T00:00:00Z", "USLAX", "MOTHER", "9000002"),
      ],
    ),
    "no events and no POD vessel: one leg without a vessel": buildContainerRoute(
      container,
      { ...shipment, destination_locode: null },
      [],
    ),
  };

  for (const [name, route] of Object.entries(routes)) {
    it(`reads back the route without loss: ${name}`, async () => {
      const doc = await routeDocument(
        { route, ports: [], vessels: [], createdAt: "2030-01-07T06:00:00Z", updatedAt: "2030-01-07T06:00:00Z" },
        everything,
        "https://api.test/v2/x",
      );
      expect(readRoute(doc)).toEqual(route);
    });
  }

  it("the example routes are what they claim (so the read-back above covers feeder, rail and vessel-less legs)", () => {
    const full = routes["feeder, transshipment on the same vessel name with another IMO, POD, rail inland"];
    expect(full.legs.map((l) => [l.mode, l.vessel?.imo ?? l.carrier_scac])).toEqual([
      ["feeder", null],
      ["vessel", "9000001"],
      ["vessel", "9000002"],
      ["rail", "UPRR"],
    ]);
    expect(routes["no events and no POD vessel: one leg without a vessel"].legs).toMatchObject([{ vessel: null }]);
  });

  it("a vessel on two legs is one included resource; a document without its locations is unreadable", async () => {
    const route = routes["feeder, transshipment on the same vessel name with another IMO, POD, rail inland"];
    const doc = await routeDocument(
      { route, ports: [], vessels: [], createdAt: "2030-01-07T06:00:00Z", updatedAt: "2030-01-07T06:00:00Z" },
      everything,
      "https://api.test/v2/x",
    );
    const vessels = (doc.included ?? []).filter((r) => r.type === "vessel");
    // The `vessel` resource's eight attributes; nothing but name and IMO number without a vessels row.
    const unknown = {
      mmsi: null,
      latitude: null,
      longitude: null,
      nautical_speed_knots: null,
      navigational_heading_degrees: null,
      position_timestamp: null,
    };
    expect(vessels.map((v) => v.attributes)).toEqual([
      { name: "FEEDER ONE", imo: null, ...unknown },
      { name: "MOTHER", imo: "9000001", ...unknown },
      { name: "MOTHER", imo: "9000002", ...unknown },
    ]);
    const bare = await routeDocument(
      { route, ports: [], vessels: [], createdAt: "2030-01-07T06:00:00Z", updatedAt: "2030-01-07T06:00:00Z" },
      parseRouteInclude(null),
      "https://api.test/v2/x",
    );
    expect(bare.included).toBeUndefined();
    expect(() => readRoute(bare)).toThrow();
  });
});

describe("linkage read off a serializer's resource object (toOneId, toManyIds)", () => {
  it("reads to-one ids (null when null or absent) and to-many ids in order", () => {
    const c = {
      id: "c1",
      type: "container",
      attributes: { number: "ABCU1234560" },
      relationships: { shipment: { data: { id: "s1", type: "shipment" } }, pod_terminal: { data: null } },
    };
    expect([toOneId(c, "shipment"), toOneId(c, "pod_terminal"), toOneId(c, "pickup_facility")]).toEqual([
      "s1",
      null,
      null,
    ]);
    const s = {
      id: "s1",
      type: "shipment",
      attributes: {},
      relationships: {
        containers: {
          data: [
            { id: "c1", type: "container" },
            { id: "c2", type: "container" },
          ],
        },
      },
    };
    expect(toManyIds(s, "containers")).toEqual(["c1", "c2"]);
    expect([toManyIds(c, "shipment"), toOneId(s, "containers"), toManyIds(s, "terminals")]).toEqual([[], null, []]);
  });
});

describe("errors", () => {
  it("maps REST statuses to error kinds; 429 keeps Retry-After", () => {
    expect(trackingApiErrorFromStatus(404).kind).toBe("not_found");
    expect(
      trackingApiErrorFromStatus(422, {
        detail: "Scac can't be blank",
        pointer: "/data/attributes/scac",
        code: "blank",
      }),
    ).toMatchObject({
      kind: "invalid_argument",
      field: "scac",
      code: "blank",
    });
    expect(trackingApiErrorFromStatus(400, { parameter: "filter[status]" }).field).toBe("filter[status]");
    expect(trackingApiErrorFromStatus(403).kind).toBe("forbidden_feature");
    expect(trackingApiErrorFromStatus(429, {}, 17)).toMatchObject({ kind: "rate_limited", retryAfterSeconds: 17 });
    expect(trackingApiErrorFromStatus(503, { detail: "db exploded at 10.0.0.3" }).message).not.toContain("10.0.0.3");
  });

  it("unexpected errors reach the client as a reference only; the real error is reported server-side", () => {
    const reported: unknown[] = [];
    const text = errorMessage(
      new Error("D1_ERROR: no such table: secrets; key svc_test_abc"),
      { reportError: (e) => reported.push(e) },
      "t",
    );
    expect(text).toMatch(/^Internal error: the request could not be completed \(reference [0-9a-f-]{36}\)/);
    expect(text).not.toMatch(/D1_ERROR|svc_test|secrets/);
    expect(reported).toHaveLength(1);
    const limited = errorMessage(
      new TrackingApiError("rate_limited", "x", { retryAfterSeconds: 1 }),
      { reportError: () => {} },
      "t",
    );
    expect(limited).toBe(
      "Rate limited: this account's request limit (shared with the REST API) is used up. Retry after 1 second.",
    );
  });
});

describe("milestone catalog", () => {
  it("places every catalog event in one phase and the glossary documents each", () => {
    const glossary = milestoneGlossaryMarkdown();
    for (const m of MILESTONES) {
      expect(phaseOf(m.event)).toBe(m.phase);
      expect(glossary).toContain(`\`${m.event}\``);
    }
    expect(phaseOf("container.transport.something_new")).toBe("other");
  });
});
