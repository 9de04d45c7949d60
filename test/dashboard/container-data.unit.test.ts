import { describe, expect, it } from "vitest";
import { timelineOf } from "../../src/dashboard/container-data";
import type { RawEventView } from "../../src/raw-events/serializer";
import type { TransportEventView } from "../../src/transport-events/serializer";

// The container page's timeline (src/dashboard/container-data.ts timelineOf): milestones in time order, each raw
// event under the milestone it stands behind.

function event(id: string, name: string, timestamp: string | null, extra: Partial<TransportEventView> = {}) {
  return {
    id,
    event: name,
    timestamp,
    locationLocode: "USLAX",
    sourceEventId: null,
    ...extra,
  } as TransportEventView;
}

function raw(id: string, name: string, estimated: boolean, locode: string | null = "USLAX") {
  return { id, event: name, estimated, locationLocode: locode } as RawEventView;
}

describe("timelineOf", () => {
  it("orders milestones by time, ties by id, events without a time last", () => {
    const t = timelineOf(
      [
        event("c", "container.transport.vessel_discharged", "2026-11-02T10:00:00Z"),
        event("z", "container.pickup_lfd.changed", null),
        event("b", "container.transport.vessel_arrived", "2026-11-01T10:00:00Z"),
        event("a", "container.transport.estimated.vessel_arrived", "2026-11-01T10:00:00Z"),
      ],
      [],
    );
    expect(t.milestones.map((m) => m.event.id)).toEqual(["a", "b", "c", "z"]);
    expect(t.milestones.map((m) => m.estimated)).toEqual([true, false, false, false]);
  });

  it("puts a raw event under its source milestone, else under the milestone of the same name, kind and place", () => {
    const t = timelineOf(
      [
        event("eta", "container.transport.estimated.vessel_arrived", "2026-11-01T08:00:00Z"),
        event("ata", "container.transport.vessel_arrived", "2026-11-01T10:00:00Z", { sourceEventId: "r-source" }),
      ],
      [
        raw("r-eta-1", "vessel_arrived", true),
        raw("r-source", "full_out", false, "CNYTN"),
        raw("r-ata", "vessel_arrived", false),
        raw("r-elsewhere", "vessel_arrived", false, "SGSIN"),
      ],
    );
    const [eta, ata] = t.milestones;
    expect(eta?.rawEvents.map((r) => r.id)).toEqual(["r-eta-1"]);
    expect(ata?.rawEvents.map((r) => r.id)).toEqual(["r-source", "r-ata"]);
    expect(t.otherRawEvents.map((r) => r.id)).toEqual(["r-elsewhere"]);
    expect(t.truncated).toBe(false);
  });
});
