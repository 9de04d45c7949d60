import { env } from "cloudflare:test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createDatabase } from "../../../src/db/client";
import { recordPositions } from "../../../src/vessels/position-store";
import { setAisFeedConfig } from "../../../src/vessels/positions/ais-feed";
import { syncVesselPositions } from "../../../src/vessels/positions/feed-sync";
import { WEBHOOK_EVENTS } from "../../../src/webhooks/catalog";
import { positionEnvelope } from "../../fixtures/fake-ais-envelopes";
import { FAKE_AIS_API_KEY } from "../../fixtures/fake-ais-key";
import { createAccount } from "../../helpers/api";
import { type FakeAisState, fakeAis, fakeAisUrl, seedBoxOnVessel, until } from "../../helpers/vessels";

// The AisFeed Durable Object against a real WebSocket server speaking aisstream.io's protocol (the fake of
// test/fixtures/fake-ais-server.ts, started in Node by the globalSetup): subscription, ingestion into D1, malformed
// frames, reconnection with backoff after a drop, the key kept out of logs, untracked vessels not stored, the
// subscription following the tracked set, and no webhook from a position (docs/architecture.md §Vessel positions).

const IMO_A = "9301809";
const MMSI_A = "563281100";
const IMO_B = "9811000";
const MMSI_B = "353136000";
const UNTRACKED_MMSI = "244123456";

const db = createDatabase(env.DB);
/** Every console line of the file, to check the key never appears. */
const logged: string[] = [];
let feedNo = 0;

function feed(name = `feed-${++feedNo}`) {
  return env.AIS_FEED.get(env.AIS_FEED.idFromName(name));
}

async function state(): Promise<FakeAisState> {
  return fakeAis<FakeAisState>("state");
}

async function positionsOf(imo: string) {
  const { results } = await env.DB.prepare(
    "SELECT p.* FROM vessel_positions p JOIN vessels v ON v.id = p.vessel_id WHERE v.imo = ?1 ORDER BY p.timestamp",
  )
    .bind(imo)
    .all<{
      timestamp: string;
      latitude: number;
      longitude: number;
      speed_knots: number;
      heading_degrees: number;
      source: string;
    }>();
  return results;
}

beforeAll(async () => {
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
  }
  // Both vessels known with their MMSI (as AIS static data or the simulator would have told us).
  await recordPositions(
    db,
    {
      positions: [],
      identities: [
        { imo: IMO_A, mmsi: MMSI_A, name: "SEASPAN SAIGON" },
        { imo: IMO_B, mmsi: MMSI_B, name: "EVER GIVEN" },
      ],
    },
    Date.now(),
  );
});

beforeEach(async () => {
  setAisFeedConfig({ apiKey: FAKE_AIS_API_KEY, url: fakeAisUrl() });
  await fakeAis("drop", {});
  await fakeAis("reset", {});
});

afterEach(() => setAisFeedConfig(null));

afterAll(() => {
  vi.restoreAllMocks();
  // The key reached the server in every subscription, and no log line ever carried it.
  expect(logged.some((l) => l.includes(FAKE_AIS_API_KEY))).toBe(false);
});

describe("AisFeed against a fake aisstream.io", () => {
  it("subscribes to the followed MMSIs with the key and aisstream's message format, and stores their positions", async () => {
    const stub = feed();
    await stub.follow([
      { imo: IMO_A, mmsi: MMSI_A, name: null },
      { imo: IMO_B, mmsi: MMSI_B, name: null },
    ]);
    const s = await until(async () => {
      const st = await state();
      return st.connections === 1 ? st : undefined;
    });
    expect(s.subscriptions).toEqual([
      {
        APIKey: FAKE_AIS_API_KEY,
        BoundingBoxes: [
          [
            [-90, -180],
            [90, 180],
          ],
        ],
        FiltersShipMMSI: [MMSI_B, MMSI_A],
        FilterMessageTypes: ["PositionReport", "ShipStaticData"],
      },
    ]);

    const t0 = Date.now() - 20 * 60_000;
    const sent = await fakeAis<{ sent: number }>("positions", {
      positions: [
        { mmsi: MMSI_A, lat: 36.5, lon: -75.0, sog: 13, heading: 270, time: t0 },
        // 1 minute later: thinned from the history (one row per 5 minutes) ...
        { mmsi: MMSI_A, lat: 36.51, lon: -75.01, sog: 13, heading: 270, time: t0 + 60_000 },
        // ... 10 minutes later: kept.
        { mmsi: MMSI_A, lat: 36.6, lon: -75.2, sog: 12.5, heading: 511, cog: 268.5, time: t0 + 600_000 },
        { mmsi: MMSI_B, lat: 25.3, lon: 121.2, sog: 0, heading: 194, time: t0 },
      ],
    });
    expect(sent.sent).toBe(4);
    await until(async () => ((await stub.status()).counters.positions === 4 ? true : undefined), 10_000, "positions");
    const flushed = await stub.flush();
    expect(flushed.stored).toBe(3);

    const rows = await positionsOf(IMO_A);
    expect(rows.map((r) => [r.latitude, r.longitude, r.speed_knots, r.heading_degrees, r.source])).toEqual([
      [36.5, -75.0, 13, 270, "ais"],
      // TrueHeading 511 (not available): the course over ground stands in.
      [36.6, -75.2, 12.5, 268.5, "ais"],
    ]);
    const vessel = await env.DB.prepare("SELECT * FROM vessels WHERE imo = ?1")
      .bind(IMO_A)
      .first<Record<string, unknown>>();
    expect(vessel).toMatchObject({
      mmsi: MMSI_A,
      name: "SEASPAN SAIGON",
      latitude: 36.6,
      longitude: -75.2,
      nautical_speed_knots: 12.5,
      navigational_heading_degrees: 268.5,
      position_timestamp: new Date(Math.floor((t0 + 600_000) / 1000) * 1000).toISOString().replace(".000Z", "Z"),
    });
    expect(await positionsOf(IMO_B)).toHaveLength(1);
    await stub.follow([]);
  });

  it("counts and skips malformed frames, and keeps ingesting after them", async () => {
    const stub = feed();
    await stub.follow([{ imo: IMO_A, mmsi: MMSI_A, name: null }]);
    await until(async () => (await state()).connections === 1 || undefined);
    const before = (await positionsOf(IMO_A)).length;
    await fakeAis("raw", {
      frames: [
        "not json at all",
        "[1,2,3]",
        JSON.stringify({ MessageType: "PositionReport", MetaData: {}, Message: {} }),
        // A position without a time, and one at AIS's "not available" latitude 91.
        JSON.stringify({
          MessageType: "PositionReport",
          MetaData: { MMSI: Number(MMSI_A) },
          Message: { PositionReport: { UserID: Number(MMSI_A), Latitude: 1, Longitude: 2 } },
        }),
        JSON.stringify({
          MessageType: "PositionReport",
          MetaData: { MMSI: Number(MMSI_A), time_utc: "2026-11-28 10:00:00.1 +0000 UTC" },
          Message: { PositionReport: { UserID: Number(MMSI_A), Latitude: 91, Longitude: 181 } },
        }),
      ],
    });
    await fakeAis("positions", { positions: [{ mmsi: MMSI_A, lat: 1.25, lon: 103.8, time: Date.now() }] });
    const status = await until(async () => {
      const st = await stub.status();
      return st.counters.positions === 1 ? st : undefined;
    });
    expect(status.counters.malformed).toBe(5);
    await stub.flush();
    const after = await positionsOf(IMO_A);
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)).toMatchObject({ latitude: 1.25, longitude: 103.8 });
    await stub.follow([]);
  });

  it("never stores a vessel nobody follows, even when the stream sends it", async () => {
    const stub = feed();
    await stub.follow([{ imo: IMO_B, mmsi: MMSI_B, name: null }]);
    await until(async () => (await state()).connections === 1 || undefined);
    // The fake's MMSI filter would drop it; a raw frame goes through unfiltered, as a misbehaving stream might send it.
    await fakeAis("raw", { frames: [positionEnvelope({ mmsi: UNTRACKED_MMSI, lat: 50, lon: 1, time: Date.now() })] });
    const status = await until(async () => {
      const st = await stub.status();
      return st.counters.positions === 1 ? st : undefined;
    });
    expect(status.counters.untracked).toBe(1);
    await stub.flush();
    const { results } = await env.DB.prepare("SELECT count(*) AS n FROM vessels WHERE mmsi = ?1")
      .bind(UNTRACKED_MMSI)
      .all();
    expect(results[0]).toEqual({ n: 0 });
    await stub.follow([]);
  });

  it("reconnects after a drop, after a jittered backoff, and resubscribes", async () => {
    const stub = feed();
    await stub.follow([{ imo: IMO_A, mmsi: MMSI_A, name: null }]);
    await until(async () => (await state()).connections === 1 || undefined);
    const droppedAt = Date.now();
    await fakeAis("drop", {});
    const s = await until(
      async () => {
        const st = await state();
        return st.connections === 1 && st.connects === 2 ? st : undefined;
      },
      15_000,
      "reconnection",
    );
    // The first retry waits between half and all of RECONNECT_BASE_MS (1 s): not at once.
    expect(Date.now() - droppedAt).toBeGreaterThanOrEqual(450);
    expect(s.subscriptions).toHaveLength(2);
    expect(s.subscriptions[1]?.FiltersShipMMSI).toEqual([MMSI_A]);
    const status = await stub.status();
    expect(status.counters.drops).toBeGreaterThanOrEqual(1);
    expect(status.counters.connects).toBe(2);
    // Positions flow again on the new socket.
    await fakeAis("positions", {
      positions: [{ mmsi: MMSI_A, lat: 2, lon: 104, time: Date.now() }],
    });
    await until(async () => ((await stub.status()).counters.positions === 1 ? true : undefined));
    await stub.follow([]);
  });

  it("with a wrong key, logs the refusal without the key and retries later", async () => {
    const wrongKey = "wrong-key-should-never-be-logged-42";
    setAisFeedConfig({ apiKey: wrongKey, url: fakeAisUrl() });
    const stub = feed();
    await stub.follow([{ imo: IMO_A, mmsi: MMSI_A, name: null }]);
    const status = await until(async () => {
      const st = await stub.status();
      return st.counters.refusals === 1 && st.counters.drops >= 1 ? st : undefined;
    });
    expect(status.openSockets).toBe(0);
    expect(logged.some((l) => l.includes("subscription refused (Api Key Is Not Valid)"))).toBe(true);
    expect(logged.some((l) => l.includes(wrongKey))).toBe(false);
    await stub.follow([]);
  });

  it("follows the vessels carrying tracked boxes, re-subscribes as that set changes, and makes no webhook", async () => {
    setAisFeedConfig({ apiKey: FAKE_AIS_API_KEY, url: fakeAisUrl() });
    const account = await createAccount("Feed");
    // A webhook for every event: a position must still not produce a notification.
    await env.DB.prepare(
      `INSERT INTO webhooks (id, account_id, url, events, active, secret, created_at, updated_at)
       VALUES (?1, ?2, 'https://hooks.example.com/x', ?3, 1, 'whsec_x', ?4, ?4)`,
    )
      .bind(crypto.randomUUID(), account.accountId, JSON.stringify(WEBHOOK_EVENTS), new Date().toISOString())
      .run();
    const a = await seedBoxOnVessel(account.accountId, { eventImo: IMO_A, eventVesselName: "SEASPAN SAIGON" });
    const syncEnv = { ...env };
    let status = await syncVesselPositions(syncEnv, Date.now());
    expect(status?.subscriptions).toEqual([{ mmsis: [MMSI_A] }]);
    await until(async () => (await state()).connections === 1 || undefined);

    // A second box on vessel B: the subscription grows on the same socket.
    const b = await seedBoxOnVessel(account.accountId, { podImo: IMO_B, podName: "EVER GIVEN" });
    status = await syncVesselPositions(syncEnv, Date.now());
    expect(status?.subscriptions).toEqual([{ mmsis: [MMSI_B, MMSI_A] }]);
    const grown = await until(async () => {
      const st = await state();
      return st.subscriptions.length === 2 ? st : undefined;
    });
    expect(grown.subscriptions[1]?.FiltersShipMMSI).toEqual([MMSI_B, MMSI_A]);
    expect(grown.connects).toBe(1);

    await fakeAis("positions", { positions: [{ mmsi: MMSI_B, lat: 30, lon: 32.5, time: Date.now() }] });
    const feedStub = env.AIS_FEED.get(env.AIS_FEED.idFromName("aisstream"));
    await until(async () => ((await feedStub.status()).counters.positions >= 1 ? true : undefined));
    await feedStub.flush();
    const { results: notes } = await env.DB.prepare("SELECT count(*) AS n FROM webhook_notifications").all();
    expect(notes[0]).toEqual({ n: 0 });

    // Both boxes stop being tracked (discharged / stopped): the feed unsubscribes and closes.
    await env.DB.prepare("UPDATE containers SET pod_discharged_at = ?1 WHERE id = ?2")
      .bind("2026-01-01T00:00:00Z", a.containerId)
      .run();
    await env.DB.prepare("UPDATE shipments SET line_tracking_stopped_at = ?1 WHERE id = ?2")
      .bind("2026-01-01T00:00:00Z", b.shipmentId)
      .run();
    status = await syncVesselPositions(syncEnv, Date.now());
    expect(status?.subscriptions).toEqual([]);
    await until(async () => (await state()).connections === 0 || undefined);
  });

  it("learns a followed vessel's MMSI from static data, then follows its positions by MMSI", async () => {
    const imo = "9876543";
    const mmsi = "538001234";
    const stub = feed();
    await stub.follow([{ imo, mmsi: null, name: null }]);
    // No MMSI yet: one socket asking for static data worldwide, no MMSI filter.
    const first = await until(async () => {
      const st = await state();
      return st.connections === 1 ? st : undefined;
    });
    expect(first.subscriptions.at(-1)).toMatchObject({ FilterMessageTypes: ["ShipStaticData"] });
    expect(first.subscriptions.at(-1)?.FiltersShipMMSI).toBeUndefined();

    // Static data of another vessel is not kept; ours gives the IMO number its MMSI.
    await fakeAis("static", {
      ships: [
        { mmsi: "244000001", imo: "9000018", name: "SOMEONE ELSE" },
        { mmsi, imo, name: "MSC LEARNT" },
      ],
    });
    const moved = await until(
      async () => {
        const st = await state();
        const last = st.subscriptions.at(-1);
        return st.connections === 1 && last?.FiltersShipMMSI?.[0] === mmsi ? st : undefined;
      },
      10_000,
      "the subscription by MMSI",
    );
    expect(moved.subscriptions.at(-1)?.FilterMessageTypes).toEqual(["PositionReport", "ShipStaticData"]);
    expect(await env.DB.prepare("SELECT name, mmsi FROM vessels WHERE imo = ?1").bind(imo).first()).toEqual({
      name: "MSC LEARNT",
      mmsi,
    });
    const { results: other } = await env.DB.prepare("SELECT 1 FROM vessels WHERE imo = '9000018'").all();
    expect(other).toEqual([]);

    await fakeAis("positions", { positions: [{ mmsi, lat: 43.3, lon: 5.35, time: Date.now() }] });
    await until(async () => ((await stub.status()).counters.positions === 1 ? true : undefined));
    await stub.flush();
    expect((await positionsOf(imo)).map((p) => [p.latitude, p.longitude])).toEqual([[43.3, 5.35]]);
    await stub.follow([]);
  });

  it("connects nowhere without a key", async () => {
    setAisFeedConfig({ apiKey: undefined, url: fakeAisUrl() });
    const account = await createAccount("No key");
    await seedBoxOnVessel(account.accountId, { eventImo: IMO_A });
    expect(await syncVesselPositions({ ...env, AISSTREAM_API_KEY: undefined }, Date.now())).toBeNull();
    const stub = feed();
    const status = await stub.follow([{ imo: IMO_A, mmsi: MMSI_A, name: null }]);
    expect(status.enabled).toBe(false);
    expect(status.openSockets).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect((await state()).connects).toBe(0);
  });
});
