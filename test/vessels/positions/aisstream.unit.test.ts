import { describe, expect, it } from "vitest";
import {
  aisTimeToIso,
  MMSIS_PER_SUBSCRIPTION,
  parseAisMessage,
  RECONNECT_BASE_MS,
  RECONNECT_MAX_MS,
  reconnectDelayMs,
  subscriptionMessage,
  subscriptionsFor,
} from "../../../src/vessels/positions/aisstream";
import { positionEnvelope, staticEnvelope } from "../../fixtures/fake-ais-envelopes";

// The aisstream.io protocol of src/vessels/positions/aisstream.ts: subscriptions, parsing of the documented envelope
// (MetaData.time_utc in Go's format, TrueHeading 511), malformed frames, and the reconnection backoff.

describe("subscriptions", () => {
  it("puts known MMSIs in chunks of MMSIS_PER_SUBSCRIPTION, sorted, and one static-data socket for unknown ones", () => {
    const vessels = Array.from({ length: MMSIS_PER_SUBSCRIPTION + 3 }, (_, i) => ({
      imo: String(9000000 + i),
      mmsi: String(300000000 + (MMSIS_PER_SUBSCRIPTION + 3 - i)),
      name: null,
    }));
    vessels.push({ imo: "9999990", mmsi: null as unknown as string, name: null });
    const subs = subscriptionsFor(vessels);
    expect(subs.map((s) => s.mmsis?.length ?? null)).toEqual([MMSIS_PER_SUBSCRIPTION, 3, null]);
    expect(subs[0]?.mmsis?.[0]).toBe("300000001");
    expect(subscriptionsFor([])).toEqual([]);
  });

  it("writes aisstream's subscription frame: key, world box, MMSI strings, message types", () => {
    expect(JSON.parse(subscriptionMessage("k", { mmsis: ["563281100"] }))).toEqual({
      APIKey: "k",
      BoundingBoxes: [
        [
          [-90, -180],
          [90, 180],
        ],
      ],
      FiltersShipMMSI: ["563281100"],
      FilterMessageTypes: ["PositionReport", "ShipStaticData"],
    });
    expect(JSON.parse(subscriptionMessage("k", { mmsis: null }))).toEqual({
      APIKey: "k",
      BoundingBoxes: [
        [
          [-90, -180],
          [90, 180],
        ],
      ],
      FilterMessageTypes: ["ShipStaticData"],
    });
  });
});

describe("parseAisMessage", () => {
  it("reads a PositionReport: MMSI, coordinates, Sog, TrueHeading, time_utc to ISO seconds", () => {
    const time = Date.UTC(2022, 11, 29, 18, 22, 32, 318);
    expect(
      parseAisMessage(positionEnvelope({ mmsi: "563281100", lat: 36.5, lon: -75.03, sog: 13, heading: 270, time })),
    ).toEqual({
      kind: "position",
      report: {
        imo: null,
        mmsi: "563281100",
        latitude: 36.5,
        longitude: -75.03,
        speedKnots: 13,
        headingDegrees: 270,
        timestamp: "2022-12-29T18:22:32Z",
        source: "ais",
      },
    });
  });

  it("falls back to the course when TrueHeading is 511 (not available), and drops AIS's not-available speed", () => {
    const parsed = parseAisMessage(
      positionEnvelope({ mmsi: "563281100", lat: 1, lon: 2, heading: 511, cog: 45.5, sog: 102.3 }),
    );
    expect(parsed.kind === "position" && parsed.report.headingDegrees).toBe(45.5);
    expect(parsed.kind === "position" && parsed.report.speedKnots).toBeNull();
  });

  it("reads ShipStaticData as an identity (IMO ↔ MMSI, name without @ padding), ignoring IMO 0", () => {
    expect(parseAisMessage(staticEnvelope({ mmsi: "563281100", imo: "9301809", name: "SEASPAN SAIGON" }))).toEqual({
      kind: "identity",
      report: { imo: "9301809", mmsi: "563281100", name: "SEASPAN SAIGON" },
    });
    expect(parseAisMessage(staticEnvelope({ mmsi: "563281100", imo: "0", name: "X" })).kind).toBe("ignored");
  });

  it("reads aisstream's refusal, ignores other message types, and calls everything else malformed", () => {
    expect(parseAisMessage('{"error":"Api Key Is Not Valid"}')).toEqual({
      kind: "error",
      message: "Api Key Is Not Valid",
    });
    expect(parseAisMessage(JSON.stringify({ MessageType: "BaseStationReport", MetaData: {}, Message: {} })).kind).toBe(
      "ignored",
    );
    const bad = [
      "",
      "{",
      "null",
      "42",
      "[]",
      '{"MessageType":"PositionReport"}',
      '{"MessageType":"PositionReport","MetaData":{},"Message":{"PositionReport":"x"}}',
      positionEnvelope({ mmsi: "12345", lat: 1, lon: 2 }),
      positionEnvelope({ mmsi: "563281100", lat: 91, lon: 181 }),
      positionEnvelope({ mmsi: "563281100", lat: 1, lon: 2 }).replace(/"time_utc":"[^"]*"/, '"time_utc":"yesterday"'),
      '{"MessageType":"ShipStaticData","MetaData":{},"Message":{"ShipStaticData":{"ImoNumber":9301809}}}',
    ];
    for (const frame of bad) expect(parseAisMessage(frame).kind, frame).toBe("malformed");
  });

  it("converts aisstream's time format and refuses others", () => {
    expect(aisTimeToIso("2022-12-29 18:22:32.318353 +0000 UTC")).toBe("2022-12-29T18:22:32Z");
    expect(aisTimeToIso("2022-12-29 18:22:32 +0000 UTC")).toBe("2022-12-29T18:22:32Z");
    expect(aisTimeToIso("2022-12-29T18:22:32Z")).toBeNull();
    expect(aisTimeToIso(1672338152)).toBeNull();
  });
});

describe("reconnectDelayMs", () => {
  it("doubles from the base, stays within [ceiling/2, ceiling], and is capped", () => {
    expect(reconnectDelayMs(0, 0)).toBe(RECONNECT_BASE_MS / 2);
    expect(reconnectDelayMs(0, 0.999999)).toBeLessThanOrEqual(RECONNECT_BASE_MS);
    expect(reconnectDelayMs(3, 0)).toBe(4 * RECONNECT_BASE_MS);
    expect(reconnectDelayMs(3, 0.5)).toBe(6 * RECONNECT_BASE_MS);
    expect(reconnectDelayMs(40, 0.999999)).toBeLessThanOrEqual(RECONNECT_MAX_MS);
    expect(reconnectDelayMs(40, 0)).toBe(RECONNECT_MAX_MS / 2);
  });
});
