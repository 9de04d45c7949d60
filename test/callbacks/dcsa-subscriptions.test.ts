import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import {
  MAX_CALLBACK_BODY_BYTES,
  SUBSCRIPTION_RETRY_AFTER_MS,
  sweepUpstreamSubscriptions,
} from "../../src/callbacks/lifecycle";
import { decryptSecret, subscriptionKeyFrom } from "../../src/callbacks/secrets";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import { nextPollDelayMs } from "../../src/tracking/schedule";
import type { SourceRegistry } from "../../src/tracking/sources";
import { createDcsaSource, parseDcsaSources } from "../../src/tracking/sources/dcsa";
import type { TerminalPollMessage } from "../../src/tracking/terminal-poll-message";
import { PUSH_POLL_INTERVAL_FACTOR } from "../../src/tracking/tracker-state";
import { WEBHOOK_EVENTS } from "../../src/webhooks/catalog";
import { BOX_A, CALLS, equipmentEvent, JOURNEY_BL, transportEvent } from "../fixtures/dcsa-events";
import { createAccount } from "../helpers/api";
import {
  containersOfShipment,
  FUTURE_T0,
  insertRequest,
  type RecordingQueue,
  recordingQueue,
  requestRow,
  trackerStub,
} from "../helpers/engine";
import { HOUR_MS } from "../helpers/facts";
import { dcsaSignature, FakeDcsaCarrier, oauthSourcesJson, subscriptionRequests } from "../helpers/fake-dcsa-carrier";
import { insertWebhook, notificationsOf } from "../helpers/receiver";
import { streamedBody } from "../helpers/streamed-body";

// DCSA TNT 2.2 event subscriptions (issue 13 §4), end to end: the fake carrier of test/helpers/fake-dcsa-carrier.ts
// (OAuth, /v2/events, /v2/event-subscriptions, signed pushes) behind the injected fetch; our real lookup and poll
// consumers, the Tracker, D1, the webhook outbox, and the Worker's HTTP app for the callbacks and stop_tracking.

const PUBLIC_BASE_URL = "https://tracking.example.test";
/** A fixed AES key for the tests (base64 of 32 bytes). */
const KEY = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => i + 1)));

/** Box A until it left the POL, with the POD's arrival estimated (so the POD is known). */
const BEFORE = [
  equipmentEvent({ n: 1, box: BOX_A, code: "GTOT", empty: "EMPTY", at: "2024-02-01T09:00:00+08:00", locode: "CNYTN" }),
  equipmentEvent({
    n: 2,
    box: BOX_A,
    code: "GTIN",
    at: "2024-02-03T14:00:00+08:00",
    locode: "CNYTN",
    facility: "YICT",
  }),
  equipmentEvent({ n: 3, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: CALLS.pol }),
  transportEvent({ n: 4, code: "DEPA", at: "2024-02-06T03:15:00+08:00", call: CALLS.pol }),
  transportEvent({
    n: 5,
    code: "ARRI",
    classifier: "EST",
    at: "2024-03-07T08:00:00+01:00",
    created: "2024-02-20T09:00:00+01:00",
    call: CALLS.pod,
  }),
];
/** What the carrier pushes later: the arrival and the discharge at the POD. */
const PUSHED = [
  transportEvent({ n: 6, code: "ARRI", at: "2024-03-06T23:30:00+01:00", call: CALLS.pod }),
  equipmentEvent({ n: 7, box: BOX_A, code: "DISC", at: "2024-03-07T10:00:00+01:00", call: CALLS.pod }),
];

interface Harness {
  carrier: FakeDcsaCarrier;
  clock: FakeClock;
  testEnv: Env;
  polls: RecordingQueue<TerminalPollMessage>;
  sources: SourceRegistry;
  account: Awaited<ReturnType<typeof createAccount>>;
  webhookId: string;
  shipmentId: string;
  containerId: string;
  /** Sends a request to the Worker's HTTP app with the test env. */
  fetchApp: (request: Request) => Promise<Response>;
  /** Runs the polls our callbacks queued (the terminal-polls consumer's work), then empties the queue. */
  runQueuedPolls: () => Promise<number>;
  /** A scheduled poll, an hour later. */
  poll: () => Promise<void>;
}

/** Tracks JOURNEY_BL of `scac` at the fake carrier with subscriptions on; a webhook takes every transport event. */
async function track(
  scac: string,
  overrides: Partial<Env> = {},
  prepare: (carrier: FakeDcsaCarrier) => void = () => {},
): Promise<Harness> {
  const carrier = new FakeDcsaCarrier();
  carrier.events = [...BEFORE];
  prepare(carrier);
  const clock = new FakeClock(FUTURE_T0);
  const polls = recordingQueue<TerminalPollMessage>();
  const dcsaSources = oauthSourcesJson(scac, undefined, { subscriptions: true });
  const testEnv: Env = {
    ...env,
    DCSA_SOURCES: dcsaSources,
    PUBLIC_BASE_URL,
    UPSTREAM_SUBSCRIPTION_KEY: KEY,
    TERMINAL_POLLS_QUEUE: polls,
    TRACKING_REQUESTS_QUEUE: recordingQueue(),
    ...overrides,
  };
  const app = createApp();
  const fetchApp = async (request: Request) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(request, testEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  carrier.deliver = fetchApp;
  const sources: SourceRegistry = {
    carriers: [createDcsaSource(parseDcsaSources(dcsaSources))],
    terminals: [],
    supportedScacs: new Set([scac]),
    speedUpFor: () => 1,
    lookupSpeedUpFor: () => 1,
    lineSourceKind: () => "dcsa",
  };
  const account = await createAccount();
  const webhook = await insertWebhook(account, {
    events: WEBHOOK_EVENTS.filter((e) => e.startsWith("container.transport.")),
  });
  const requestId = await insertRequest(account, { number: JOURNEY_BL, scac, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: testEnv, clock, sources, fetch: carrier.fetch },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const [container] = await containersOfShipment(request.shipment_id ?? "");
  if (!container || !request.shipment_id) throw new Error("no container row");
  const runQueuedPolls = async () => {
    const queued = polls.sent.splice(0);
    for (const m of queued) await pollBox({ env: testEnv, clock, sources, fetch: carrier.fetch }, m.body);
    return queued.length;
  };
  const poll = async () => {
    clock.advance(HOUR_MS);
    const results = await pollBox({ env: testEnv, clock, sources, fetch: carrier.fetch }, { scac, number: BOX_A });
    expect(results?.carrier?.kind).toBe("found");
  };
  return {
    carrier,
    clock,
    testEnv,
    polls,
    sources,
    account,
    webhookId: webhook.id,
    shipmentId: request.shipment_id,
    containerId: container.id,
    fetchApp,
    runQueuedPolls,
    poll,
  };
}

interface SubscriptionRow {
  id: string;
  provider: string;
  reference_type: string;
  reference_number: string;
  upstream_id: string | null;
  callback_url: string;
  secret_ciphertext: string;
  status: string;
  callback_count: number;
  last_callback_at: string | null;
  deleted_at: string | null;
  last_error: string | null;
}

async function subscriptionRow(provider: string): Promise<SubscriptionRow> {
  const row = await env.DB.prepare("SELECT * FROM upstream_subscriptions WHERE provider = ?1")
    .bind(provider)
    .first<SubscriptionRow>();
  if (!row) throw new Error(`no subscription of ${provider}`);
  return row;
}

async function receiptCount(subscriptionId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM upstream_callback_receipts WHERE subscription_id = ?1")
    .bind(subscriptionId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

async function transportEventNames(containerId: string): Promise<string[]> {
  const { results } = await env.DB.prepare(
    "SELECT event FROM transport_events WHERE container_id = ?1 ORDER BY timestamp, event",
  )
    .bind(containerId)
    .all<{ event: string }>();
  return results.map((r) => r.event.replace("container.transport.", ""));
}

beforeEach(() => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("creating a subscription when tracking starts", () => {
  it("POSTs /v2/event-subscriptions for the BL with our callback URL and a random secret, kept encrypted", async () => {
    const h = await track("DSUA");
    const creates = subscriptionRequests(h.carrier).filter((r) => r.method === "POST");
    expect(creates).toHaveLength(1);
    const sub = h.carrier.subscription;
    expect(sub.body).toMatchObject({
      transportDocumentReference: JOURNEY_BL,
      eventType: ["TRANSPORT", "EQUIPMENT"],
    });
    // The carrier checked the callback URL (HEAD) before creating: it answered while the row was `creating`.
    const row = await subscriptionRow("dcsa:DSUA");
    expect(sub.callbackUrl).toBe(`${PUBLIC_BASE_URL}/callbacks/dcsa/${row.id}`);
    expect(row).toMatchObject({
      status: "active",
      upstream_id: sub.subscriptionID,
      reference_type: "bill_of_lading",
      reference_number: JOURNEY_BL,
    });
    expect(atob(sub.secret)).toHaveLength(32);
    // Stored encrypted, never in clear; it decrypts to what the carrier got.
    expect(row.secret_ciphertext).not.toContain(sub.secret);
    const key = await subscriptionKeyFrom(KEY);
    if (!key) throw new Error("no key");
    expect(await decryptSecret(key, row.id, row.secret_ciphertext)).toBe(sub.secret);
  });

  it("without PUBLIC_BASE_URL: no subscription, polling only, and a log line says why", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const h = await track("DSUB", { PUBLIC_BASE_URL: undefined });
    expect(subscriptionRequests(h.carrier)).toHaveLength(0);
    const row = await env.DB.prepare("SELECT id FROM upstream_subscriptions WHERE provider = 'dcsa:DSUB'").first();
    expect(row).toBeNull();
    expect(warn.mock.calls.flat().join("\n")).toContain("PUBLIC_BASE_URL");
  });

  it("a carrier refusing the subscription leaves it failed with the reason, tracking goes on, the sweep retries", async () => {
    const h = await track("DSUC", {}, (carrier) => {
      carrier.subscriptionStatus = 503;
    });
    const row = await subscriptionRow("dcsa:DSUC");
    expect(row).toMatchObject({ status: "failed", upstream_id: null, last_error: "answered 503" });
    await h.poll();
    // The sweep asks again once the retry delay passed; the carrier now accepts.
    h.carrier.subscriptionStatus = 201;
    const early = await sweepUpstreamSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.carrier.fetch });
    expect(early.retried).toBe(0);
    h.clock.advance(SUBSCRIPTION_RETRY_AFTER_MS);
    const late = await sweepUpstreamSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.carrier.fetch });
    expect(late.retried).toBe(1);
    expect(await subscriptionRow("dcsa:DSUC")).toMatchObject({
      status: "active",
      upstream_id: h.carrier.subscription.subscriptionID,
      last_error: null,
    });
  });
});

describe("a signed callback", () => {
  it("lands once: one immediate poll, the events once, one notification each; a polled copy adds nothing", async () => {
    const h = await track("DSUD");
    const before = await transportEventNames(h.containerId);
    expect(before).not.toContain("vessel_discharged");
    const notificationsBefore = (await notificationsOf(h.webhookId)).length;

    h.carrier.events = [...BEFORE, ...PUSHED];
    h.clock.advance(60_000);
    const res = await h.carrier.push(PUSHED);
    expect(res.status).toBe(204);
    expect(h.polls.sent.map((m) => m.body)).toEqual([{ scac: "DSUD", number: BOX_A }]);
    expect(await h.runQueuedPolls()).toBe(1);

    const after = await transportEventNames(h.containerId);
    expect(after.filter((e) => e === "vessel_arrived")).toHaveLength(1);
    expect(after.filter((e) => e === "vessel_discharged")).toHaveLength(1);
    const notified = (await notificationsOf(h.webhookId)).slice(notificationsBefore).map((n) => n.event);
    expect(notified.sort()).toEqual(["container.transport.vessel_arrived", "container.transport.vessel_discharged"]);
    const row = await subscriptionRow("dcsa:DSUD");
    expect(row.callback_count).toBe(1);
    expect(row.last_callback_at).not.toBeNull();

    // The scheduled poll reads the same events again: nothing new, nobody notified again.
    await h.poll();
    expect(await transportEventNames(h.containerId)).toEqual(after);
    expect((await notificationsOf(h.webhookId)).length).toBe(notificationsBefore + 2);
  });

  it("is refused when unsigned, mis-signed, for another subscription, not a list, or replayed: nothing written", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const h = await track("DSUE");
    const row = await subscriptionRow("dcsa:DSUE");
    const body = JSON.stringify(PUSHED);
    const status = async (r: Promise<Response>) => {
      const res = await r;
      const json = (await res.json()) as { errors: { status: string; detail: string }[] };
      expect(json.errors[0]?.status).toBe(String(res.status));
      return res.status;
    };

    expect(await status(h.carrier.push(PUSHED, { signature: null }))).toBe(401);
    expect(await status(h.carrier.push(PUSHED, { signature: "sha256=00ff" }))).toBe(401);
    const otherSecret = btoa("another secret, not this subscription's");
    expect(await status(h.carrier.push(PUSHED, { signature: await dcsaSignature(otherSecret, body) }))).toBe(401);
    expect(await status(h.carrier.push(PUSHED, { signature: "md5=abc" }))).toBe(401);
    // Signed right but the body changed after signing (one space more).
    const signed = await dcsaSignature(h.carrier.subscription.secret, body);
    expect(await status(h.carrier.push([], { body: `${body} `, signature: signed }))).toBe(401);
    const notAList = JSON.stringify({ events: PUSHED });
    expect(await status(h.carrier.push([], { body: notAList }))).toBe(400);
    // Unknown subscription id.
    const unknown = new Request(`${PUBLIC_BASE_URL}/callbacks/dcsa/00000000-0000-4000-8000-00000000dead`, {
      method: "POST",
      headers: { "Notification-Signature": signed, "Content-Type": "application/json" },
      body,
    });
    expect(await status(h.fetchApp(unknown))).toBe(404);
    expect(
      await status(h.fetchApp(new Request(`${PUBLIC_BASE_URL}/callbacks/dcsa/not-an-id`, { method: "POST" }))),
    ).toBe(404);
    expect(h.polls.sent).toHaveLength(0);
    expect(await receiptCount(row.id)).toBe(0);
    expect((await subscriptionRow("dcsa:DSUE")).callback_count).toBe(0);

    // Accepted once; the same bytes again are a replay.
    expect((await h.carrier.push(PUSHED)).status).toBe(204);
    expect(await status(h.carrier.push(PUSHED))).toBe(409);
    expect(h.polls.sent).toHaveLength(1);
    expect(await receiptCount(row.id)).toBe(1);
    expect((await subscriptionRow("dcsa:DSUE")).callback_count).toBe(1);
    // Nothing logged names the subscription's secret (the spies see every line of this test).
    const logged = [warn, error].flatMap((spy) => spy.mock.calls.flat().map(String)).join("\n");
    expect(logged).not.toContain(h.carrier.subscription.secret);
  });

  it("reads no body for a subscription it does not hold, and stops at the limit for one it does, whatever the framing", async () => {
    const h = await track("DSUL");
    const row = await subscriptionRow("dcsa:DSUL");
    const post = (url: string, body: BodyInit, headers: Record<string, string> = {}) =>
      h.fetchApp(
        new Request(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body }),
      );
    // Chunked (no Content-Length), eight times the limit: an unknown id costs no read at all.
    const toUnknown = streamedBody(8 * MAX_CALLBACK_BODY_BYTES);
    const unknownUrl = `${PUBLIC_BASE_URL}/callbacks/dcsa/00000000-0000-4000-8000-00000000dead`;
    expect((await post(unknownUrl, toUnknown.body)).status).toBe(404);
    expect(toUnknown.pulled()).toBe(0);
    // The subscription's own URL: read up to the limit, then 413.
    const toKnown = streamedBody(8 * MAX_CALLBACK_BODY_BYTES);
    const res = await post(row.callback_url, toKnown.body);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { errors: { status: string }[] }).errors[0]?.status).toBe("413");
    expect(toKnown.pulled()).toBeGreaterThan(0);
    expect(toKnown.pulled()).toBeLessThanOrEqual(MAX_CALLBACK_BODY_BYTES + 64 * 1024);
    // A declared length over the limit is refused before a byte is read.
    const declared = streamedBody(1024);
    const headers = { "Content-Length": String(MAX_CALLBACK_BODY_BYTES + 1) };
    expect((await post(row.callback_url, declared.body, headers)).status).toBe(413);
    expect(declared.pulled()).toBe(0);
    expect(h.polls.sent).toHaveLength(0);
    expect(await receiptCount(row.id)).toBe(0);
    expect((await subscriptionRow("dcsa:DSUL")).callback_count).toBe(0);
  });

  it("the endpoint check: HEAD and GET answer 204 for a subscription we hold, 404 otherwise", async () => {
    const h = await track("DSUF");
    const row = await subscriptionRow("dcsa:DSUF");
    for (const method of ["HEAD", "GET"]) {
      expect((await h.fetchApp(new Request(row.callback_url, { method }))).status).toBe(204);
      const other = `${PUBLIC_BASE_URL}/callbacks/dcsa/00000000-0000-4000-8000-00000000beef`;
      expect((await h.fetchApp(new Request(other, { method }))).status).toBe(404);
    }
  });
});

describe("when tracking stops", () => {
  it("the sweep deletes the subscription at the carrier; later callbacks are refused as gone", async () => {
    const h = await track("DSUG");
    const sub = h.carrier.subscription;
    const res = await h.fetchApp(
      new Request(`https://api.test/v2/shipments/${h.shipmentId}/stop_tracking`, {
        method: "PATCH",
        headers: { Authorization: `Token ${h.account.key}` },
      }),
    );
    expect(res.status).toBe(200);
    const report = await sweepUpstreamSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.carrier.fetch });
    expect(report.deleted).toBeGreaterThanOrEqual(1);
    const deletes = subscriptionRequests(h.carrier).filter((r) => r.method === "DELETE");
    expect(deletes.map((r) => r.url.pathname.split("/").at(-1))).toEqual([sub.subscriptionID]);
    expect(sub.deleted).toBe(true);
    const row = await subscriptionRow("dcsa:DSUG");
    expect(row.status).toBe("deleted");
    expect(row.deleted_at).not.toBeNull();
    expect((await h.carrier.push(PUSHED, { subscription: sub })).status).toBe(410);
    expect(h.polls.sent).toHaveLength(0);
  });

  it("resumed tracking subscribes again at the next sweep, with a new secret", async () => {
    const h = await track("DSUK");
    const first = h.carrier.subscription;
    const patch = (action: string) =>
      h.fetchApp(
        new Request(`https://api.test/v2/shipments/${h.shipmentId}/${action}`, {
          method: "PATCH",
          headers: { Authorization: `Token ${h.account.key}` },
        }),
      );
    expect((await patch("stop_tracking")).status).toBe(200);
    await sweepUpstreamSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.carrier.fetch });
    expect(first.deleted).toBe(true);
    expect((await patch("resume_tracking")).status).toBe(200);
    const report = await sweepUpstreamSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.carrier.fetch });
    expect(report.retried).toBe(1);
    const second = h.carrier.subscription;
    expect(second.subscriptionID).not.toBe(first.subscriptionID);
    expect(second.secret).not.toBe(first.secret);
    expect(await subscriptionRow("dcsa:DSUK")).toMatchObject({ status: "active", upstream_id: second.subscriptionID });
    // The old subscription's pushes are refused (its secret is gone); the new one's land.
    expect((await h.carrier.push(PUSHED, { subscription: first })).status).toBe(401);
    expect((await h.carrier.push(PUSHED, { subscription: second })).status).toBe(204);
  });

  it("the DCSA sweep leaves other providers' subscriptions alone", async () => {
    const id = "00000000-0000-4000-8000-0000000a0e01";
    await env.DB.prepare(
      `INSERT INTO upstream_subscriptions (id, provider, scac, reference_type, reference_number, upstream_id, callback_url,
         secret_ciphertext, status, created_at, updated_at)
       VALUES (?1, 'port_of_virginia', NULL, 'container', 'MSKU9070323', 'pov-1', 'https://x.test/cb', 'v1.x', 'active',
         '2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z')`,
    )
      .bind(id)
      .run();
    const calls: string[] = [];
    const recorder: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response(null, { status: 204 });
    };
    const report = await sweepUpstreamSubscriptions({
      env: { ...env, PUBLIC_BASE_URL, UPSTREAM_SUBSCRIPTION_KEY: KEY },
      fetch: recorder,
    });
    expect(report.deleted).toBe(0);
    expect(calls).toEqual([]);
    const row = await env.DB.prepare("SELECT status FROM upstream_subscriptions WHERE id = ?1").bind(id).first();
    expect(row).toEqual({ status: "active" });
  });

  it("a carrier unreachable on delete keeps the subscription and the next sweep retries", async () => {
    const h = await track("DSUH");
    await h.fetchApp(
      new Request(`https://api.test/v2/shipments/${h.shipmentId}/stop_tracking`, {
        method: "PATCH",
        headers: { Authorization: `Token ${h.account.key}` },
      }),
    );
    const down: typeof fetch = async () => {
      throw new TypeError("connection refused");
    };
    const first = await sweepUpstreamSubscriptions({ env: h.testEnv, clock: h.clock, fetch: down });
    expect(first.deleteFailures).toBe(1);
    expect((await subscriptionRow("dcsa:DSUH")).status).toBe("active");
    const second = await sweepUpstreamSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.carrier.fetch });
    expect(second.deleted).toBe(1);
    expect((await subscriptionRow("dcsa:DSUH")).status).toBe("deleted");
  });
});

describe("polling while subscribed", () => {
  it("is PUSH_POLL_INTERVAL_FACTOR times slower than the box's state asks", async () => {
    const h = await track("DSUI");
    await h.poll();
    const current = await trackerStub("DSUI", BOX_A).currentState();
    if (!current?.state || !current.shipment || !current.nextPollAt) throw new Error("no state");
    const base = nextPollDelayMs(current.state, current.shipment, h.clock.now(), 1);
    if (base === null) throw new Error("no regular poll");
    // Literally 4 (the documented factor), so a factor of 1 (no slowing) fails here.
    expect(PUSH_POLL_INTERVAL_FACTOR).toBe(4);
    expect(Date.parse(current.nextPollAt) - h.clock.now()).toBe(base * 4);
  });

  it("without a subscription the same box is polled at the state's own interval", async () => {
    const h = await track("DSUJ", { UPSTREAM_SUBSCRIPTION_KEY: undefined });
    await h.poll();
    const current = await trackerStub("DSUJ", BOX_A).currentState();
    if (!current?.state || !current.shipment || !current.nextPollAt) throw new Error("no state");
    const base = nextPollDelayMs(current.state, current.shipment, h.clock.now(), 1);
    expect(Date.parse(current.nextPollAt) - h.clock.now()).toBe(base);
  });
});
