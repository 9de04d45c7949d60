import type {
  TrackedVessel,
  VesselIdentityReport,
  VesselPositionReport,
  VesselPositionSink,
  VesselPositionSource,
} from "./source";

/**
 * The aisstream.io adapter (docs/configuration.md §AIS positions): a {@link VesselPositionSource} over aisstream.io's
 * WebSocket stream.
 *
 * The protocol, as documented by aisstream.io (https://aisstream.io/documentation and its message models,
 * github.com/aisstream/ais-message-models):
 * - Connect to `wss://stream.aisstream.io/v0/stream`; the first text frame the client sends, within 3 seconds or the
 *   server closes the socket, is the subscription `{"APIKey", "BoundingBoxes", "FiltersShipMMSI"?,
 *   "FilterMessageTypes"?}`. The key travels in that message, never in a header or the URL. Bounding boxes are pairs of
 *   `[latitude, longitude]` corners; `[[[-90,-180],[90,180]]]` is the whole world. MMSIs are strings. Sending another
 *   subscription on the same socket replaces the filters.
 * - The server then pushes envelopes `{"MessageType", "MetaData": {"MMSI", "ShipName", "latitude", "longitude",
 *   "time_utc": "2022-12-29 18:22:32.318353 +0000 UTC"}, "Message": {<MessageType>: {...}}}`. `PositionReport` (AIS
 *   messages 1–3) carries `UserID` (the MMSI), `Latitude`, `Longitude`, `Sog` (knots), `Cog` (degrees) and
 *   `TrueHeading` (degrees; 511 = not available); `ShipStaticData` (message 5) carries `ImoNumber`, `Name`, `CallSign`:
 *   the only way an IMO number gets its MMSI. A refused subscription (bad key) is answered `{"error": "..."}`.
 * - Limits: aisstream.io publishes no numeric quota; its documentation says it throttles per API key and user and
 *   closes a socket that does not subscribe within 3 s. An aisstream-compatible service documents 50 MMSIs per
 *   `FiltersShipMMSI`, so filters are kept to {@link MMSIS_PER_SUBSCRIPTION} per socket and more followed vessels
 *   open more sockets (at most 10: src/vessels/tracked-vessels.ts follows at most 500 vessels). Vessels whose MMSI is not known yet are found by one extra socket subscribed to `ShipStaticData`
 *   worldwide, closed once every followed vessel has its MMSI.
 *
 * The socket side only: what to subscribe to, parsing, which socket is down. Reconnection timing (jittered, capped
 * backoff) is decided by {@link reconnectDelayMs} and driven by the AisFeed Durable Object's alarm
 * (src/vessels/positions/ais-feed.ts). The API key is sent in the subscription and never logged or thrown.
 */

/** aisstream.io's stream endpoint. */
export const AISSTREAM_URL = "wss://stream.aisstream.io/v0/stream";
/** Most MMSIs one socket's `FiltersShipMMSI` carries (see above). */
export const MMSIS_PER_SUBSCRIPTION = 50;
/** Message types a position socket asks for: positions, and static data so a vessel's name and IMO stay current. */
export const POSITION_MESSAGE_TYPES = ["PositionReport", "ShipStaticData"] as const;
/** `TrueHeading` value meaning "not available" (ITU-R M.1371). */
const HEADING_NOT_AVAILABLE = 511;
/** The whole world: positions are filtered by MMSI, not by area. */
const WORLD: [[number, number], [number, number]][] = [
  [
    [-90, -180],
    [90, 180],
  ],
];

/** What one socket subscribes to: positions of these MMSIs, or (null) static data of every vessel. */
export interface AisSubscription {
  mmsis: string[] | null;
}

/**
 * The subscriptions that follow `vessels`: one per {@link MMSIS_PER_SUBSCRIPTION} known MMSIs (sorted, so the same set
 * gives the same subscriptions), plus one static-data subscription when a vessel's MMSI is unknown.
 */
export function subscriptionsFor(vessels: readonly TrackedVessel[]): AisSubscription[] {
  const mmsis = [...new Set(vessels.flatMap((v) => (v.mmsi && /^\d{9}$/.test(v.mmsi) ? [v.mmsi] : [])))].sort();
  const out: AisSubscription[] = [];
  for (let i = 0; i < mmsis.length; i += MMSIS_PER_SUBSCRIPTION) {
    out.push({ mmsis: mmsis.slice(i, i + MMSIS_PER_SUBSCRIPTION) });
  }
  if (vessels.some((v) => !v.mmsi)) out.push({ mmsis: null });
  return out;
}

/** The subscription message of one socket (the first and any later text frame the client sends). */
export function subscriptionMessage(apiKey: string, sub: AisSubscription): string {
  return JSON.stringify(
    sub.mmsis
      ? { APIKey: apiKey, BoundingBoxes: WORLD, FiltersShipMMSI: sub.mmsis, FilterMessageTypes: POSITION_MESSAGE_TYPES }
      : { APIKey: apiKey, BoundingBoxes: WORLD, FilterMessageTypes: ["ShipStaticData"] },
  );
}

/** A parsed message: a position, an identity, a refusal, something we do not use, or something malformed. */
export type AisMessage =
  | { kind: "position"; report: VesselPositionReport }
  | { kind: "identity"; report: VesselIdentityReport }
  | { kind: "error"; message: string }
  | { kind: "ignored" }
  | { kind: "malformed" };

/**
 * `MetaData.time_utc` (`2022-12-29 18:22:32.318353 +0000 UTC`, Go's time format) as UTC ISO seconds
 * (`2022-12-29T18:22:32Z`); null when it does not parse.
 */
export function aisTimeToIso(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.\d+)? \+0000 UTC$/.exec(value);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}Z`);
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(".000Z", "Z") : null;
}

function finite(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An MMSI from a number or string field: 9 digits, else null. */
function mmsiOf(v: unknown): string | null {
  const s = typeof v === "number" && Number.isInteger(v) ? String(v) : typeof v === "string" ? v.trim() : "";
  return /^\d{9}$/.test(s) ? s : null;
}

/**
 * Parses one frame of the stream. Never throws: anything that is not JSON, not an envelope, or lacks a field a
 * position needs (MMSI, coordinates in range, a parseable `time_utc`) is `malformed`; other message types are
 * `ignored`. Heading is `TrueHeading` unless it is 511 (not available), then `Cog`; speed is `Sog`.
 */
export function parseAisMessage(text: string): AisMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: "malformed" };
  }
  if (!isRecord(raw)) return { kind: "malformed" };
  if (typeof raw.error === "string") return { kind: "error", message: raw.error };
  const type = raw.MessageType;
  const meta = raw.MetaData;
  const message = raw.Message;
  if (typeof type !== "string" || !isRecord(meta) || !isRecord(message)) return { kind: "malformed" };
  if (type === "PositionReport") {
    const body = message.PositionReport;
    if (!isRecord(body)) return { kind: "malformed" };
    const mmsi = mmsiOf(body.UserID) ?? mmsiOf(meta.MMSI);
    const latitude = finite(body.Latitude) ?? finite(meta.latitude);
    const longitude = finite(body.Longitude) ?? finite(meta.longitude);
    const timestamp = aisTimeToIso(meta.time_utc);
    if (!mmsi || latitude === null || longitude === null || !timestamp) return { kind: "malformed" };
    // 91° / 181° are AIS's "not available" coordinates: no position.
    if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return { kind: "malformed" };
    const trueHeading = finite(body.TrueHeading);
    const cog = finite(body.Cog);
    const sog = finite(body.Sog);
    return {
      kind: "position",
      report: {
        imo: null,
        mmsi,
        latitude,
        longitude,
        // 102.3 knots is AIS's "not available" speed.
        speedKnots: sog !== null && sog >= 0 && sog < 102.3 ? sog : null,
        headingDegrees:
          trueHeading !== null && trueHeading !== HEADING_NOT_AVAILABLE && trueHeading >= 0 && trueHeading < 360
            ? trueHeading
            : cog !== null && cog >= 0 && cog < 360
              ? cog
              : null,
        timestamp,
        source: "ais",
      },
    };
  }
  if (type === "ShipStaticData") {
    const body = message.ShipStaticData;
    if (!isRecord(body)) return { kind: "malformed" };
    const mmsi = mmsiOf(body.UserID) ?? mmsiOf(meta.MMSI);
    const imoNumber = body.ImoNumber;
    const imo = typeof imoNumber === "number" && Number.isInteger(imoNumber) ? String(imoNumber) : null;
    if (!mmsi) return { kind: "malformed" };
    // Many vessels send 0 (no IMO number): nothing to learn.
    if (!imo || !/^\d{7}$/.test(imo)) return { kind: "ignored" };
    const name = typeof body.Name === "string" ? body.Name.replace(/@+$/, "").trim() : "";
    return { kind: "identity", report: { imo, mmsi, name: name || null } };
  }
  return { kind: "ignored" };
}

/** First wait before reconnecting (ms); doubles per failed attempt up to {@link RECONNECT_MAX_MS}. */
export const RECONNECT_BASE_MS = 1_000;
/** Longest wait between reconnection attempts (ms). */
export const RECONNECT_MAX_MS = 5 * 60_000;

/**
 * How long to wait before reconnection attempt `attempt` (0 = the first after a drop): exponential from
 * {@link RECONNECT_BASE_MS}, capped at {@link RECONNECT_MAX_MS}, with "equal jitter" (half fixed, half random) so many
 * Workers do not reconnect in step. `random` is in [0, 1).
 */
export function reconnectDelayMs(attempt: number, random: number = Math.random()): number {
  const ceiling = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

/**
 * Opens a client WebSocket the Workers way: a `fetch` with `Upgrade: websocket` to the http(s) form of the URL, then
 * `accept()` on the response's socket. Throws a message without the URL's query (none is used) when the server
 * does not upgrade.
 */
export async function connectWebSocket(url: string): Promise<WebSocket> {
  const response = await fetch(url.replace(/^ws(s?):/, "http$1:"), { headers: { Upgrade: "websocket" } });
  const socket = response.webSocket;
  if (!socket) {
    await response.body?.cancel();
    throw new Error(`AIS stream did not upgrade to a WebSocket (HTTP ${response.status})`);
  }
  socket.accept();
  return socket;
}

/** Counters of an {@link AisStreamSource}, for logs, the feed's status and tests. */
export interface AisCounters {
  messages: number;
  positions: number;
  identities: number;
  malformed: number;
  ignored: number;
  refusals: number;
  connects: number;
  drops: number;
}

/** {@link AisCounters} all at zero: a source's start, and the status of a feed with no source. */
export function noAisCounters(): AisCounters {
  return { messages: 0, positions: 0, identities: 0, malformed: 0, ignored: 0, refusals: 0, connects: 0, drops: 0 };
}

interface Slot {
  sub: AisSubscription;
  socket: WebSocket | null;
  /** Failed attempts since the last successful connection (drives the backoff). */
  attempts: number;
  /** When this slot may try to connect again (ms since epoch); 0 = now. */
  retryAt: number;
  connecting: boolean;
}

/** What an {@link AisStreamSource} needs: its key and endpoint, a sink, a clock, and how to open a socket. */
export interface AisStreamOptions {
  apiKey: string;
  url?: string;
  sink: VesselPositionSink;
  now?: () => number;
  random?: () => number;
  connect?: (url: string) => Promise<WebSocket>;
  /** Told when a socket dropped and a reconnection is due at `atMs` (the owner arms its alarm). */
  onReconnectDue?: (atMs: number) => void;
  log?: (line: string) => void;
}

function sameSub(a: AisSubscription, b: AisSubscription): boolean {
  return JSON.stringify(a.mmsis) === JSON.stringify(b.mmsis);
}

/**
 * The aisstream.io source: one socket per subscription of {@link subscriptionsFor}. `follow` opens, re-subscribes or
 * closes sockets so they match the set; a dropped socket is reopened by {@link AisStreamSource.reconnectDue} once its
 * backoff has passed. Positions and identities go to the sink as they arrive.
 */
export class AisStreamSource implements VesselPositionSource {
  readonly kind = "ais" as const;
  readonly counters: AisCounters = noAisCounters();
  private slots: Slot[] = [];
  private closed = false;
  private readonly url: string;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly connect: (url: string) => Promise<WebSocket>;
  private readonly log: (line: string) => void;

  constructor(private readonly options: AisStreamOptions) {
    this.url = options.url ?? AISSTREAM_URL;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.connect = options.connect ?? connectWebSocket;
    this.log = options.log ?? ((line) => console.warn(line));
  }

  /** Sockets currently open. */
  get openSockets(): number {
    return this.slots.filter((s) => s.socket).length;
  }

  /** The subscriptions currently wanted (tests, status). */
  get subscriptions(): AisSubscription[] {
    return this.slots.map((s) => s.sub);
  }

  async follow(vessels: readonly TrackedVessel[]): Promise<void> {
    this.closed = false;
    const wanted = subscriptionsFor(vessels);
    const keep: Slot[] = [];
    const spare = [...this.slots];
    for (const sub of wanted) {
      const same = spare.findIndex((s) => sameSub(s.sub, sub));
      if (same >= 0) {
        keep.push(...spare.splice(same, 1));
        continue;
      }
      // Reuse an open socket of the same kind (position or static) with a new subscription frame.
      const reuse = spare.findIndex((s) => s.socket && (s.sub.mmsis === null) === (sub.mmsis === null));
      if (reuse >= 0) {
        const [slot] = spare.splice(reuse, 1);
        if (slot) {
          slot.sub = sub;
          this.send(slot);
          keep.push(slot);
        }
        continue;
      }
      keep.push({ sub, socket: null, attempts: 0, retryAt: 0, connecting: false });
    }
    for (const slot of spare) this.shut(slot);
    this.slots = keep;
    await this.reconnectDue();
  }

  /**
   * Opens every socket that is down and whose backoff has passed. @returns the earliest time (ms) a socket still down
   * may be retried, or null when none is waiting.
   */
  async reconnectDue(): Promise<number | null> {
    if (this.closed) return null;
    const now = this.now();
    await Promise.all(
      this.slots.filter((s) => !s.socket && !s.connecting && s.retryAt <= now).map((s) => this.open(s)),
    );
    const waiting = this.slots.filter((s) => !s.socket && !s.connecting).map((s) => s.retryAt);
    return waiting.length > 0 ? Math.min(...waiting) : null;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) this.shut(slot);
    this.slots = [];
  }

  private shut(slot: Slot): void {
    const socket = slot.socket;
    slot.socket = null;
    try {
      socket?.close(1000, "unsubscribed");
    } catch {
      // Already closed.
    }
  }

  private send(slot: Slot): void {
    slot.socket?.send(subscriptionMessage(this.options.apiKey, slot.sub));
  }

  private scheduleRetry(slot: Slot): void {
    slot.retryAt = this.now() + reconnectDelayMs(slot.attempts, this.random());
    slot.attempts++;
    this.options.onReconnectDue?.(slot.retryAt);
  }

  private async open(slot: Slot): Promise<void> {
    slot.connecting = true;
    let socket: WebSocket;
    try {
      socket = await this.connect(this.url);
    } catch (error) {
      slot.connecting = false;
      this.counters.drops++;
      this.log(`AIS feed: connection failed (${error instanceof Error ? error.message : "unknown error"})`);
      this.scheduleRetry(slot);
      return;
    }
    slot.connecting = false;
    if (this.closed || !this.slots.includes(slot)) {
      socket.close(1000, "unsubscribed");
      return;
    }
    slot.socket = socket;
    this.counters.connects++;
    const dropped = (why: string) => {
      if (slot.socket !== socket) return;
      slot.socket = null;
      this.counters.drops++;
      this.log(`AIS feed: socket ${why}`);
      if (!this.closed && this.slots.includes(slot)) this.scheduleRetry(slot);
    };
    socket.addEventListener("message", (event) => {
      if (slot.socket !== socket) return;
      // A socket that delivers data has recovered: the next drop starts the backoff again.
      slot.attempts = 0;
      try {
        this.onFrame(typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data as ArrayBuffer));
      } catch {
        // Whatever a frame does (an undecodable binary frame, a sink that throws), the socket and the feed go on.
        this.counters.malformed++;
      }
    });
    socket.addEventListener("close", (event) => dropped(`closed (code ${event.code})`));
    socket.addEventListener("error", () => {
      dropped("error");
      try {
        socket.close(1011, "error");
      } catch {
        // Already closed.
      }
    });
    this.send(slot);
  }

  private onFrame(text: string): void {
    this.counters.messages++;
    const parsed = parseAisMessage(text);
    switch (parsed.kind) {
      case "position":
        this.counters.positions++;
        this.options.sink.position(parsed.report);
        return;
      case "identity":
        this.counters.identities++;
        this.options.sink.identity(parsed.report);
        return;
      case "error":
        // aisstream's refusal names the problem (e.g. an invalid key), never the key itself; cut to be safe.
        this.counters.refusals++;
        this.log(
          `AIS feed: subscription refused (${parsed.message.slice(0, 120).replaceAll(this.options.apiKey, "***")})`,
        );
        return;
      case "ignored":
        this.counters.ignored++;
        return;
      case "malformed":
        this.counters.malformed++;
        return;
    }
  }
}
