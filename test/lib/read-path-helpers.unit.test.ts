import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type ContainerRow, serializeContainer, withContainerLinkage } from "../../src/containers/serializer";
import type { AppEnv } from "../../src/env";
import { queryParams } from "../../src/lib/http";

// Session 6 (bench/README.md §bench/api): the read paths parse a request's query once and attach a page's linkage
// without copying its rows; these pin that the answers are the same as before.

describe("queryParams", () => {
  it("parses a request's query once: every caller of one request gets the same decoded parameters", async () => {
    const app = new Hono<AppEnv>();
    const seen: URLSearchParams[] = [];
    app.get("/x", (c) => {
      seen.push(queryParams(c), queryParams(c));
      return c.json([...queryParams(c)]);
    });
    const res = await app.request("/x?page%5Bsize%5D=5&include=shipment&a=1&a=2");
    expect(await res.json()).toEqual([
      ["page[size]", "5"],
      ["include", "shipment"],
      ["a", "1"],
      ["a", "2"],
    ]);
    expect(seen[0]).toBe(seen[1]);
  });

  it("never hands one request's parameters to another", async () => {
    const app = new Hono<AppEnv>();
    app.get("/x", (c) => c.text(queryParams(c).get("q") ?? "none"));
    expect(await (await app.request("/x?q=1")).text()).toBe("1");
    expect(await (await app.request("/x?q=2")).text()).toBe("2");
    expect(await (await app.request("/x")).text()).toBe("none");
  });
});

describe("withContainerLinkage", () => {
  const row = (id: string) => ({ id, shipmentId: "s1", pickupFacilityId: null, podTerminalId: null }) as ContainerRow;

  it("attaches each container's event ids in the order read, [] for a container without any", () => {
    const rows = [row("c1"), row("c2"), row("c3")];
    const views = withContainerLinkage(
      rows,
      [
        { id: "e2", containerId: "c2" },
        { id: "e1", containerId: "c1" },
        { id: "e3", containerId: "c2" },
      ],
      [{ id: "r1", containerId: "c3" }],
    );
    expect(views.map((v) => [v.id, v.transportEventIds, v.rawEventIds])).toEqual([
      ["c1", ["e1"], []],
      ["c2", ["e2", "e3"], []],
      ["c3", [], ["r1"]],
    ]);
    expect(serializeContainer(views[1] as (typeof views)[number]).relationships?.transport_events).toEqual({
      data: [
        { id: "e2", type: "transport_event" },
        { id: "e3", type: "transport_event" },
      ],
    });
  });

  it("keeps every column of the row as read", () => {
    const original = { ...row("c1"), number: "MSCU1234565", refNumbers: ["PO-1"] } as ContainerRow;
    const [view] = withContainerLinkage([{ ...original }], [], []);
    expect(view).toEqual({ ...original, transportEventIds: [], rawEventIds: [] });
  });
});
