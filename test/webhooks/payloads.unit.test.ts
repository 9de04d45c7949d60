import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "../../src/webhooks/catalog";
import { EXAMPLE_IDS, examplePayload } from "../../src/webhooks/examples";
import { vesselIdForImo } from "../../src/webhooks/payloads";

// Example payloads (GET /webhook_notifications/examples, POST /webhooks/trigger) for every catalog event, built with
// the builders of real deliveries: the docs/webhooks.md §Payloads envelope, the reference object of
// docs/webhooks.md §Notification resource and the `included` of docs/webhooks.md §Payloads.

const t = (name: string) => `container.transport.${name}`;

/** docs/webhooks.md §Payloads "`included` by event", with our types (locations are ports, facilities terminals). */
const EXPECTED_INCLUDED: Record<string, string[]> = {
  "tracking_request.succeeded": ["container", "shipment", "tracking_request"],
  "tracking_request.failed": ["tracking_request"],
  "tracking_request.awaiting_manifest": ["tracking_request"],
  "tracking_request.tracking_stopped": ["shipment", "tracking_request"],
  [t("empty_out")]: ["shipment", "container", "port", "transport_event"],
  [t("full_in")]: ["shipment", "container", "port", "transport_event"],
  [t("empty_in")]: ["shipment", "container", "port", "transport_event"],
  [t("rail_loaded")]: ["shipment", "container", "port", "transport_event"],
  [t("rail_departed")]: ["shipment", "container", "port", "transport_event"],
  [t("vessel_loaded")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("vessel_departed")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("vessel_arrived")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("transshipment_arrived")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("transshipment_discharged")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("transshipment_loaded")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("transshipment_departed")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("feeder_arrived")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("feeder_discharged")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("feeder_loaded")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("feeder_departed")]: ["shipment", "container", "port", "vessel", "transport_event"],
  [t("vessel_berthed")]: ["shipment", "container", "port", "terminal", "vessel", "transport_event"],
  [t("vessel_discharged")]: ["shipment", "container", "port", "terminal", "vessel", "transport_event"],
  [t("full_out")]: ["shipment", "container", "port", "terminal", "transport_event"],
  [t("rail_arrived")]: ["shipment", "container", "port", "terminal", "transport_event"],
  [t("rail_unloaded")]: ["shipment", "container", "port", "terminal", "transport_event"],
  [t("arrived_at_inland_destination")]: ["shipment", "container", "port", "terminal", "transport_event"],
  [t("estimated.arrived_at_inland_destination")]: ["shipment", "container", "port", "terminal", "transport_event"],
  "container.pickup_lfd.changed": ["shipment", "container", "port", "terminal", "transport_event"],
  [t("available")]: [],
  [t("not_available")]: [],
  [t("delivered")]: [],
  [t("estimated.vessel_departed")]: ["transport_event"],
  [t("estimated.vessel_arrived")]: ["transport_event"],
  "container.pickup_lfd_line.changed": ["transport_event"],
  "container.pickup_lfd_terminal.changed": ["transport_event"],
  "container.pickup_lfd_rail.changed": ["transport_event"],
  "container.pickup_appointment.changed": ["transport_event"],
  "document.extracted": ["transport_event"],
  "document.extraction_failed": ["transport_event"],
  "shipment.estimated.arrival": ["shipment", "port", "vessel", "estimated_event"],
  "container.created": ["shipment", "container", "container_created_event"],
  "container.updated": ["shipment", "port", "terminal", "container", "container_updated_event"],
  "container.pod_terminal_changed": ["shipment", "container", "terminal", "container_pod_terminal_changed_event"],
};

/** docs/webhooks.md §Notification resource: the reference object's type by event family. */
function expectedReferenceType(event: string): string {
  if (event.startsWith("tracking_request.")) return "tracking_request";
  if (event === "shipment.estimated.arrival") return "estimated_event";
  if (event === "container.updated") return "container_updated_event";
  if (event === "container.created") return "container_created_event";
  if (event === "container.pod_terminal_changed") return "container_pod_terminal_changed_event";
  return "transport_event";
}

type Linkage = { id: string; type: string };
type Rel = { data: Linkage | Linkage[] | null };

describe("examplePayload", () => {
  it("covers all 43 catalog events", () => {
    expect(WEBHOOK_EVENTS).toHaveLength(43);
    expect(Object.keys(EXPECTED_INCLUDED).sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });

  it.each(WEBHOOK_EVENTS.map((e) => [e]))(
    "%s: docs/webhooks.md §Payloads envelope, reference object and included",
    (event) => {
      const doc = examplePayload(event);
      expect(doc.data).toEqual({
        id: EXAMPLE_IDS.notification,
        type: "webhook_notification",
        attributes: { id: EXAMPLE_IDS.notification, event, delivery_status: "pending", created_at: expect.any(String) },
        relationships: {
          reference_object: { data: { id: expect.any(String), type: expectedReferenceType(event) } },
          webhook: { data: { id: EXAMPLE_IDS.webhook, type: "webhook" } },
          webhook_notification_logs: { data: [] },
        },
      });
      expect(doc.data.attributes.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(doc.included.map((r) => r.type)).toEqual(EXPECTED_INCLUDED[event]);
      // The webhook itself is never included; ids are unique per type.
      expect(doc.included.some((r) => r.type === "webhook")).toBe(false);
      const keys = doc.included.map((r) => `${r.type}:${r.id}`);
      expect(new Set(keys).size).toBe(keys.length);
      // The reference object is the included resource of its type when one is included.
      const ref = doc.data.relationships.reference_object.data;
      const refIncluded = doc.included.find((r) => r.type === ref.type);
      if (refIncluded) expect(refIncluded.id).toBe(ref.id);
      if (refIncluded?.type === "transport_event") expect(refIncluded.attributes.event).toBe(event);
      // Full linkage: every included resource is named by the notification or by another included resource.
      const named = new Set<string>([`${ref.type}:${ref.id}`]);
      for (const r of doc.included) {
        for (const rel of Object.values((r.relationships ?? {}) as Record<string, Rel>)) {
          const data = rel.data;
          for (const l of Array.isArray(data) ? data : data ? [data] : []) named.add(`${l.type}:${l.id}`);
        }
      }
      for (const key of keys) expect(named.has(key), `${key} is not linked from anything`).toBe(true);
      // A body is plain JSON.
      expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    },
  );

  it("transport events carry the reference service's attributes; *.changed events their new value", () => {
    const discharged = examplePayload("container.transport.vessel_discharged").included.at(-1);
    expect(discharged?.attributes).toMatchObject({
      event: "container.transport.vessel_discharged",
      location_locode: "USLAX",
      timezone: "America/Los_Angeles",
      data_source: "shipping_line",
      voyage_number: "452E",
    });
    expect(discharged?.relationships?.vessel?.data).toEqual({ id: vesselIdForImo("9456783"), type: "vessel" });
    const lfd = examplePayload("container.pickup_lfd_terminal.changed").included[0];
    expect(lfd?.attributes).toMatchObject({ value: "2025-06-07T07:00:00Z", data_source: "terminal" });
    expect(lfd?.relationships).toBeUndefined();
    const rail = examplePayload("container.transport.rail_arrived").included;
    expect(rail.find((r) => r.type === "terminal")?.attributes).toMatchObject({
      facility_type: "rail_terminal",
      time_zone: "America/Chicago",
    });
  });

  it("container.updated carries a changeset of [before, after] pairs", () => {
    const event = examplePayload("container.updated").included.at(-1);
    expect(event?.attributes.changeset).toEqual({
      available_for_pickup: [false, true],
      holds_at_pod_terminal: [[{ name: "customs", status: "hold", description: "CBP exam hold" }], []],
    });
  });

  it("tracking_request.* examples show the request in the state the event announces", () => {
    const status = (event: string) =>
      examplePayload(event).included.find((r) => r.type === "tracking_request")?.attributes;
    expect(status("tracking_request.succeeded")).toMatchObject({ status: "created" });
    expect(status("tracking_request.failed")).toMatchObject({ status: "failed", failed_reason: "not_found" });
    expect(status("tracking_request.awaiting_manifest")).toMatchObject({ status: "awaiting_manifest" });
    expect(status("tracking_request.tracking_stopped")).toMatchObject({ status: "tracking_stopped" });
  });

  it("takes the envelope's ids and time when given, and refuses names outside the catalog", () => {
    const doc = examplePayload("container.created", {
      notificationId: "0192b6a4-aaaa-7000-8000-000000000001",
      webhookId: "0192b6a4-bbbb-7000-8000-000000000002",
      createdAt: "2026-01-02T03:04:05Z",
    });
    expect(doc.data.id).toBe("0192b6a4-aaaa-7000-8000-000000000001");
    expect(doc.data.attributes).toMatchObject({ id: doc.data.id, created_at: "2026-01-02T03:04:05Z" });
    expect(doc.data.relationships.webhook.data.id).toBe("0192b6a4-bbbb-7000-8000-000000000002");
    expect(() => examplePayload("container.transport.teleported")).toThrow(/not a webhook event/);
    expect(() => examplePayload("")).toThrow();
  });

  it("vessel ids are stable per IMO number and only for valid ones", () => {
    expect(vesselIdForImo("9456783")).toBe("7e55e100-0000-8000-8000-000009456783");
    expect(vesselIdForImo("9456783")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(vesselIdForImo("IMO9456783")).toBeNull();
    expect(vesselIdForImo(null)).toBeNull();
  });
});
