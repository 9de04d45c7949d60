import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { planJourney } from "../../../src/tracking/simulator/plan";
import { realMsOf } from "../../../src/tracking/simulator/simulated-time";
import { oceanLegsOf } from "../../../src/tracking/simulator/state";
import { simulatedVesselPositions } from "../../../src/tracking/simulator/vessel-positions";
import { sourcesFor } from "../../../src/tracking/sources";
import { apiJson, createAccount } from "../../helpers/api";

// Without an AIS key, the simulator's vessels still move: every lookup of a simulated box records where its journey's
// vessel is then, in the position store the AIS feed writes to (src/tracking/simulator/vessel-positions.ts), so
// GET /v2/vessels/{imo} shows it. Through the registry the Worker builds (sourcesFor), D1 and the REST route.

const ANCHOR = Date.UTC(2026, 0, 10);
const NUMBER = "MAEU100000001";

describe("simulated vessel positions reach the vessel view", () => {
  it("a lookup mid-leg stores the vessel's position; a later lookup moves it along the route", async () => {
    const registry = sourcesFor({
      DCSA_SOURCES: "",
      SIMULATOR_ENABLED: "true",
      SIMULATION_SPEED: "1",
      DB: env.DB,
    });
    const journey = planJourney({
      scac: "MAEU",
      number: NUMBER,
      requestType: "bill_of_lading",
      anchorMs: ANCHOR,
      speed: 1,
    });
    const imo = oceanLegsOf(journey)[0].vessel.imo;
    const carrier = registry.carriers.find((c) => c.supports("MAEU"));
    if (!carrier) throw new Error("the simulator does not play MAEU");
    const lookUpAt = (nowMs: number) =>
      carrier.lookup(
        { requestType: "bill_of_lading", number: NUMBER, scac: "MAEU" },
        { nowMs, trackingStartedAtMs: ANCHOR, fetch: () => Promise.reject(new Error("no network")) },
      );

    const account = await createAccount();
    const first = realMsOf(journey, journey.vesselDepartedDay + 0.5);
    expect((await lookUpAt(first)).kind).toBe("found");
    const [expected] = simulatedVesselPositions(journey, first);
    const view = await apiJson<{ data: { attributes: Record<string, unknown> } }>(`/vessels/${imo}`, account);
    expect(view.res.status).toBe(200);
    expect(view.json.data.attributes).toMatchObject({
      imo,
      latitude: expected?.latitude,
      longitude: expected?.longitude,
      nautical_speed_knots: expected?.speedKnots,
    });

    const later = realMsOf(journey, journey.vesselDepartedDay + 0.6);
    await lookUpAt(later);
    const [moved] = simulatedVesselPositions(journey, later);
    const again = await apiJson<{ data: { attributes: Record<string, unknown> } }>(`/vessels/${imo}`, account);
    expect(again.json.data.attributes).toMatchObject({ latitude: moved?.latitude, longitude: moved?.longitude });
    expect(again.json.data.attributes.latitude).not.toBe(expected?.latitude);
  });
});
