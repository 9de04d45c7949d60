#!/usr/bin/env node
// `npm run check:sources`: real carriers and terminals checked from outside, the way a deployment meets them. A
// throwaway `wrangler dev` (local D1, Durable Objects, Queues; scripts/lib/local-worker.mjs) is configured through
// its secrets exactly as an operator would (DCSA_SOURCES, TERMINAL_SOURCES, UPSTREAM_SUBSCRIPTION_KEY; vars
// PUBLIC_BASE_URL, SIMULATOR_ENABLED=false) with every provider URL pointing at a local fake served over real HTTP on
// 127.0.0.1: the fakes of the Workers tests (test/helpers/fake-{dcsa-carrier,apmt,lbct,port-of-virginia}.ts, imported
// as they are, no logic copied) behind node:http, each on its own free port. Nothing else is faked: the Worker's own
// fetch, OAuth token cache (the Credentials Durable Object), queues, Trackers, webhook deliveries and signatures are
// the real ones. Journeys go through the public API with the account's key only:
//
//   1. a DCSA carrier box (MAEU) over OAuth 2.0 client credentials, its TNT 2.2 push subscription created by the
//      engine (after the carrier's HEAD check of the callback URL) and the carrier's signed callback causing the poll
//      that brings the discharge; a mis-signed and a replayed callback refused; the token fetched once and reused;
//   2. the box at APM Terminals Pier 400 (FIRMS W185 → APMT facility USLAX): availability, holds, last free day, yard
//      location and demurrage in GET /v2/containers/{id}; holds released and demurrage accruing after a refresh
//      (PATCH /v2/containers/{id}/refresh);
//   3. APMT refusing our credentials (403), visible in `terminal_tracking_failed_reason` and as
//      `source_outage.started`, then recovered (`source_outage.resolved`); the carrier answering 500, visible in the
//      shipment's `line_tracking_failed_reason`, then recovered; last, the carrier's token endpoint refusing our client
//      (its refusal body echoes the secret we sent), visible as `shipping_line_credentials_rejected`;
//   4. boxes at LBCT Pier E (FIRMS WAC8, API key in the URL path; LBCT throttling us with 429 and Retry-After, shown on
//      the box and left alone until it has passed) and at the Port of Virginia's NIT (L005, API key header; its push
//      subscription created and its callback causing a poll); tracking stopped through the API and the cron
//      (wrangler's /__scheduled) deleting the subscriptions at the carrier and at the port;
//   5. webhooks (container.updated, container.transport.*, source_outage.*) received at a local receiver
//      (scripts/receiver.mjs) with both signatures verified;
//   6. no credential (client secrets, API keys, tokens, the subscription key, subscription secrets, our API key)
//      anywhere in wrangler's stdout and stderr, the Worker's console lines included (log level `log`; checked to be
//      there), and the Port of Virginia callback token in none of the Worker's own lines.
//
// The Worker serves a snapshot of src/ (local-worker.mjs `snapshot`), so edits made meanwhile do not reload it, and
// gets the reference data seeded (`seedReferenceData`) as `npm start` does. Rate limits are raised through vars
// because the check reads its boxes every 250 ms.
//
// Every check prints one line; the first failure prints what was expected and what was seen, the Worker's last log
// lines (the whole log is kept in the temporary directory and named), what each fake was asked, and exits 1. Waits poll a condition against a deadline (no fixed sleeps); the whole run is bounded (RUN_LIMIT_MS)
// and always stops what it started.
import { randomBytes } from "node:crypto";
import { copyFileSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { freePort, startLocalWorker } from "./lib/local-worker.mjs";
import { startReceiver } from "./receiver.mjs";

/**
 * The whole run, wrangler's start included, ms. Measured on 2 cores at load average 7–8 (other builds running): the
 * migrations 45–57 s, wrangler dev ready 61–78 s after the start, the whole run 114–142 s.
 */
const RUN_LIMIT_MS = 240_000;
/** Longest wait for one condition (a queue hop, a poll, a webhook delivery), ms. */
const WAIT_MS = 30_000;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** A check that did not hold: what was expected and what was seen. */
class CheckFailure extends Error {
  constructor(name, expected, seen) {
    super(`${name}\n    expected: ${expected}\n    seen:     ${seen}`);
    this.name = "CheckFailure";
  }
}

let passed = 0;

/** Records a check that holds: one line. */
function pass(name, detail = "") {
  passed += 1;
  console.log(`✓ ${name}${detail ? ` — ${detail}` : ""}`);
}

/** Checks `ok`; throws a {@link CheckFailure} naming `expected` and `seen` when it does not hold. */
function check(name, ok, expected, seen, detail = "") {
  if (!ok) throw new CheckFailure(name, expected, typeof seen === "string" ? seen : JSON.stringify(seen));
  pass(name, detail);
}

/**
 * Polls `read` until `accept(value)` holds or `timeoutMs` passes; returns the accepted value or throws a
 * {@link CheckFailure} with the last value seen. `read` may throw (a request refused): counted as not yet.
 */
async function waitFor(name, read, accept, expected, { timeoutMs = WAIT_MS, intervalMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await read();
      if (accept(last)) {
        pass(name);
        return last;
      }
    } catch (err) {
      last = `(error) ${err?.message ?? err}`;
    }
    if (Date.now() > deadline) {
      throw new CheckFailure(`${name} (within ${timeoutMs / 1000} s)`, expected, JSON.stringify(last));
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

function checkNode() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 18)) return;
  console.error(
    `check:sources needs Node 22.18 or later (it imports the TypeScript fakes of test/helpers with type stripping; ` +
      `found ${process.version}). Run it as \`npm run check:sources\`, which uses the project's Node.`,
  );
  process.exit(1);
}

/**
 * Serves a fake's `fetch` over HTTP on a free 127.0.0.1 port: each request is handed to `handler` with its URL
 * rewritten onto `upstreamOrigin` (the origin the fake answers for, e.g. `https://api.apmterminals.test`), its method,
 * headers and body as received, and a signal aborted when the client goes away (the fakes' "timeout" modes wait on
 * it). The fake's Response is written back as is.
 * @returns {Promise<{ origin: string, close: () => Promise<void> }>}
 */
function serveFake(handler, upstreamOrigin) {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString("utf8");
    const abort = new AbortController();
    res.on("close", () => abort.abort(new Error("client closed the connection")));
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) headers.append(name, v);
    }
    try {
      const response = await handler(`${upstreamOrigin}${req.url}`, {
        method: req.method,
        headers,
        signal: abort.signal,
        ...(body === "" ? {} : { body }),
      });
      const out = req.method === "HEAD" ? Buffer.alloc(0) : Buffer.from(await response.arrayBuffer());
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(out);
    } catch {
      res.destroy();
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolvePromise({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

/** A JSON:API client of the Worker with the account's key. */
function apiClient(origin, apiKey) {
  const call = async (method, path, body) => {
    const res = await fetch(`${origin}/v2${path}`, {
      method,
      headers: {
        Authorization: `Token ${apiKey}`,
        ...(body === undefined ? {} : { "Content-Type": "application/vnd.api+json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let json = null;
    try {
      json = text === "" ? null : JSON.parse(text);
    } catch {
      // not JSON: kept as text below
    }
    return { status: res.status, json, text };
  };
  /** GET that must answer 200; returns the document. */
  const get = async (path) => {
    const r = await call("GET", path);
    if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}: ${r.text.slice(0, 300)}`);
    return r.json;
  };
  return { call, get };
}

/** `iso` of an instant, UTC seconds (`2026-11-25T17:00:00Z`). */
const isoZ = (ms) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** The instant `ms` written as Pacific local time with its offset (what APMT and LBCT send: `…T09:30:00-08:00`). */
function pacificLocal(ms) {
  const offset = pacificOffsetMinutes(ms);
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** America/Los_Angeles' UTC offset at `ms`, minutes (−480 or −420). */
function pacificOffsetMinutes(ms) {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: "America/Los_Angeles", timeZoneName: "longOffset" })
    .formatToParts(new Date(ms))
    .find((p) => p.type === "timeZoneName")?.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? "");
  if (!m) return 0;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** The local date (YYYY-MM-DD) in Los Angeles `days` from `ms`. */
function pacificDate(ms, days) {
  return pacificLocal(ms + days * DAY_MS).slice(0, 10);
}

/** Midnight starting `date` (YYYY-MM-DD) in Los Angeles, as UTC ISO seconds. */
function pacificMidnightUtc(date) {
  const guess = Date.parse(`${date}T00:00:00Z`);
  return isoZ(guess - pacificOffsetMinutes(guess + 12 * HOUR_MS) * 60_000);
}

async function main() {
  checkNode();
  const started = Date.now();
  // The fakes of the Workers tests, as they are (Node strips their types).
  const dcsaFake = await import("../test/helpers/fake-dcsa-carrier.ts");
  const apmtFake = await import("../test/helpers/fake-apmt.ts");
  const lbctFake = await import("../test/helpers/fake-lbct.ts");
  const povFake = await import("../test/helpers/fake-port-of-virginia.ts");
  const dcsa = await import("../test/fixtures/dcsa-events.ts");

  const closers = [];
  let worker;
  let receiver;
  let failure = null;
  /** Every credential value the Worker holds or makes: none may appear in wrangler's log. */
  const secrets = new Set();
  /** The fake carriers by SCAC (their subscription secrets join `secrets` at the end). */
  const carriers = {};
  /** Verified webhook deliveries at the receiver: `{ id, event, requestNumber, receivedAt, duplicate }`. */
  const deliveries = [];
  /**
   * The last path segment of the Port of Virginia callback URL, its only authenticator (the port signs nothing): it
   * must not appear in the Worker's own log lines. wrangler's one line per request prints it (as any access log
   * prints URLs), so those lines are left out of this one check.
   */
  let povCallbackToken = "";
  /** What each fake was asked so far, for a failure message. */
  let providerCounts = () => "(fakes not started)";
  const runTimer = setTimeout(() => {
    console.error(`✗ check:sources did not finish within ${RUN_LIMIT_MS / 1000} s; requests seen: ${providerCounts()}`);
    // wrangler's process group is also killed by the exit hook of local-worker.mjs; stop() removes its state too.
    Promise.resolve(worker?.stop()).finally(() => process.exit(1));
  }, RUN_LIMIT_MS);
  runTimer.unref();
  try {
    // ------------------------------------------------------------------------------------------------------------
    // The providers, each behind its own port.
    const now = Date.now();
    const dcsaSources = {};
    /** A fake DCSA carrier for `scac` (OAuth, subscriptions on) and its DCSA_SOURCES entry. */
    const startCarrier = async (scac) => {
      const carrier = new dcsaFake.FakeDcsaCarrier();
      const api = await serveFake(carrier.fetch, new URL(dcsaFake.FAKE_CARRIER_BASE).origin);
      const auth = await serveFake(carrier.fetch, new URL(dcsaFake.FAKE_TOKEN_URL).origin);
      closers.push(api.close, auth.close);
      carrier.deliver = (request) => fetch(request);
      carriers[scac] = carrier;
      dcsaSources[scac] = {
        baseUrl: `${api.origin}${new URL(dcsaFake.FAKE_CARRIER_BASE).pathname}`,
        subscriptions: true,
        auth: {
          type: "oauth2_client_credentials",
          tokenUrl: `${auth.origin}${new URL(dcsaFake.FAKE_TOKEN_URL).pathname}`,
          clientId: dcsaFake.FAKE_CLIENT_ID,
          clientSecret: dcsaFake.FAKE_CLIENT_SECRET,
          extraHeaders: { "Consumer-Key": dcsaFake.FAKE_CLIENT_ID },
        },
      };
      return carrier;
    };
    const maeu = await startCarrier("MAEU");
    const oney = await startCarrier("ONEY");
    const cmdu = await startCarrier("CMDU");
    secrets.add(dcsaFake.FAKE_CLIENT_SECRET);

    const apmt = new apmtFake.FakeApmt();
    const apmtServer = await serveFake((input, init) => {
      apmt.nowMs = Date.now(); // token expiry by the real clock
      return apmt.fetch(input, init);
    }, apmtFake.FAKE_APMT_BASE);
    const lbct = new lbctFake.FakeLbct();
    const lbctServer = await serveFake(lbct.fetch, lbctFake.FAKE_LBCT_BASE);
    const pov = new povFake.FakePortOfVirginia();
    const povServer = await serveFake(pov.fetch, povFake.FAKE_POV_BASE);
    closers.push(apmtServer.close, lbctServer.close, povServer.close);
    providerCounts = () =>
      [
        ...Object.entries(carriers).map(
          ([scac, c]) =>
            `${scac} ${c.tokenRequests.length} token/${c.eventRequests.length} events/${c.subscriptions.size} subscriptions`,
        ),
        `APMT ${apmt.tokenRequests.length} token/${apmt.availabilityRequests.length} availability`,
        `LBCT ${lbct.searches.length} searches`,
        `Port of Virginia ${pov.requests.length} requests`,
      ].join(", ");
    secrets.add(apmtFake.FAKE_APMT_CLIENT_SECRET).add(lbctFake.FAKE_LBCT_KEY).add(povFake.FAKE_POV_API_KEY);
    const tokenPath = new URL(apmtFake.FAKE_APMT_TOKEN_URL);
    const terminalSources = {
      apmt: {
        baseUrl: apmtServer.origin,
        auth: {
          type: "oauth2_client_credentials",
          tokenUrl: `${apmtServer.origin}${tokenPath.pathname}${tokenPath.search}`,
          clientId: apmtFake.FAKE_APMT_CLIENT_ID,
          clientSecret: apmtFake.FAKE_APMT_CLIENT_SECRET,
        },
        facilities: { W185: "USLAX" },
      },
      lbct: {
        baseUrl: lbctServer.origin,
        auth: { type: "api_key", apiKey: lbctFake.FAKE_LBCT_KEY },
        facilities: { WAC8: "LBCT" },
      },
      port_of_virginia: {
        baseUrl: povServer.origin,
        auth: { type: "api_key", apiKey: povFake.FAKE_POV_API_KEY, header: "X-API-KEY" },
        facilities: { L005: "NIT" },
        subscriptions: true,
      },
    };

    receiver = await startReceiver({ port: 0, quiet: true, onDelivery: (d) => deliveries.push(d) });
    closers.push(receiver.close);

    // ------------------------------------------------------------------------------------------------------------
    // The Worker.
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const subscriptionKey = randomBytes(32).toString("base64");
    secrets.add(subscriptionKey);
    console.log("check:sources: starting wrangler dev with DCSA_SOURCES and TERMINAL_SOURCES on local fakes …");
    worker = await startLocalWorker({
      port,
      logLevel: "log",
      seedReferenceData: true,
      snapshot: true,
      testScheduled: true,
      vars: {
        SIMULATOR_ENABLED: "false",
        PUBLIC_BASE_URL: origin,
        WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
        // The check reads its boxes every 250 ms and refreshes a few times a minute: more than the defaults
        // (100 and 10 per minute) allow one account.
        RATE_LIMIT_DEFAULT: "5000",
        RATE_LIMIT_REFRESH_CONTAINER: "200",
      },
      secrets: {
        DCSA_SOURCES: JSON.stringify(dcsaSources),
        TERMINAL_SOURCES: JSON.stringify(terminalSources),
        UPSTREAM_SUBSCRIPTION_KEY: subscriptionKey,
      },
      log: (line) => console.log(line),
    });
    secrets.add(worker.apiKey);
    const api = apiClient(worker.origin, worker.apiKey);

    // ------------------------------------------------------------------------------------------------------------
    // Webhook: every event of the catalog and the source outage extensions, to the local receiver.
    const catalog = await api.get("/webhooks/events");
    const eventNames = (catalog.data ?? []).flatMap((group) =>
      (group.attributes?.events ?? []).map((e) => e.name ?? e),
    );
    const hook = await api.call("POST", "/webhooks", {
      data: {
        type: "webhook",
        attributes: {
          url: `http://127.0.0.1:${receiver.port}/`,
          events: [...eventNames, "source_outage.started", "source_outage.resolved"],
        },
      },
    });
    check("webhook to the local receiver created", hook.status === 201, "201", `${hook.status} ${hook.text}`);
    receiver.addSecrets([hook.json.data.attributes.secret]);

    // ------------------------------------------------------------------------------------------------------------
    // Journey 1 and 2: MAEU over OAuth with a push subscription, discharged at APM Terminals Pier 400.
    const podLax = {
      ...dcsa.CALLS.pod,
      transportCallID: "call-uslax-apmt-2103n",
      UNLocationCode: "USLAX",
      facilityCode: "APMT",
    };
    const boxLax = dcsa.BOX_A;
    const blLax = dcsa.JOURNEY_BL;
    const dischargedLax = now - 2 * HOUR_MS;
    maeu.events = journeyBefore(dcsa, boxLax, podLax, now);
    const lfdDate = pacificDate(now, 3);
    apmt.put("USLAX", {
      containerId: boxLax,
      billOfLading: blLax,
      shippingLine: "MAE",
      containerState: "Yard",
      readyForDelivery: "false",
      dischargeDateTimeLocal: pacificLocal(dischargedLax),
      containerHolds: "CUSTOMS",
      yardLocation: "Y0709A",
      storagePaidThroughDate: lfdDate,
      demurrageOwed: "0.00",
    });
    const lax = await track(api, "MAEU", blLax, boxLax);
    check(
      "MAEU: one OAuth token for the lookup (client credentials at the token endpoint)",
      maeu.tokenRequests.length === 1 && maeu.eventRequests.length >= 1,
      "1 token request, ≥ 1 events request",
      `${maeu.tokenRequests.length} token, ${maeu.eventRequests.length} events`,
    );
    const bearer = maeu.eventRequests.every((r) => /^Bearer token-\d+$/.test(r.headers.get("authorization") ?? ""));
    check(
      "MAEU: events asked with the Bearer token and Consumer-Key",
      bearer,
      "Authorization: Bearer token-N",
      "other",
    );

    const subscription = await waitFor(
      "MAEU: push subscription created at the carrier (after its HEAD check of our callback URL)",
      async () => [...maeu.subscriptions.values()].filter((s) => !s.deleted),
      (live) => live.length === 1,
      "one live subscription",
    ).then((live) => live[0]);
    secrets.add(subscription.secret);
    check(
      "MAEU: callback URL is PUBLIC_BASE_URL/callbacks/dcsa/{id}",
      subscription.callbackUrl.startsWith(`${origin}/callbacks/dcsa/`),
      `${origin}/callbacks/dcsa/…`,
      subscription.callbackUrl,
    );

    // The carrier learns of the arrival and discharge and pushes them; its API serves them from now on.
    const pushed = [
      dcsa.transportEvent({ n: 406, code: "ARRI", at: isoZ(now - 5 * HOUR_MS), call: podLax }),
      dcsa.equipmentEvent({ n: 407, box: boxLax, code: "DISC", at: isoZ(dischargedLax), call: podLax }),
    ];
    maeu.events = [...maeu.events, ...pushed];
    const missigned = await maeu.push(pushed, { signature: `sha256=${"0".repeat(64)}` });
    check("MAEU: a mis-signed callback is refused", missigned.status === 401, "401", String(missigned.status));
    const eventsBefore = maeu.eventRequests.length;
    const body = JSON.stringify(pushed);
    const accepted = await maeu.push(pushed, { body });
    check("MAEU: the signed callback is accepted", accepted.ok, "2xx", String(accepted.status));
    const replay = await maeu.push(pushed, { body });
    check("MAEU: the same callback replayed is refused", replay.status === 409, "409", String(replay.status));
    await waitFor(
      "MAEU: the callback caused a poll of the carrier",
      async () => maeu.eventRequests.length,
      (n) => n > eventsBefore,
      `more than ${eventsBefore} events requests`,
    );
    const discharged = await waitFor(
      "APZU4812090: discharge at Pier 400 and APMT's terminal data in GET /v2/containers/{id}",
      () => containerAttributes(api, lax.containerId),
      (a) => a.pod_discharged_at !== null && a.terminal_checked_at !== null,
      "pod_discharged_at and terminal_checked_at set",
    );
    check(
      "APZU4812090: discharged at the carrier's time",
      discharged.pod_discharged_at === isoZ(dischargedLax),
      isoZ(dischargedLax),
      discharged.pod_discharged_at,
    );
    check(
      "APZU4812090: not available, customs hold, yard location from APMT",
      discharged.available_for_pickup === false &&
        sameJson(discharged.holds_at_pod_terminal, [{ name: "customs", status: "hold", description: "CUSTOMS" }]) &&
        discharged.location_at_pod_terminal === "Y0709A",
      "available_for_pickup false, holds [customs hold], location Y0709A",
      pick(discharged, ["available_for_pickup", "holds_at_pod_terminal", "location_at_pod_terminal"]),
    );
    check(
      "APZU4812090: last free day = APMT's storage paid through date, midnight in Los Angeles",
      discharged.pickup_lfd === pacificMidnightUtc(lfdDate),
      pacificMidnightUtc(lfdDate),
      discharged.pickup_lfd,
    );

    // Holds released, demurrage accruing: seen after a refresh through the API.
    apmt.update("USLAX", boxLax, { containerHolds: "", readyForDelivery: "true", demurrageOwed: "125.00" });
    const refreshed = await refresh(api, lax.containerId);
    check(
      "PATCH /containers/{id}/refresh names the sources it queued",
      refreshed === "Started refresh for Shipping line, Terminal",
      "Started refresh for Shipping line, Terminal",
      String(refreshed),
    );
    const released = await waitFor(
      "APZU4812090: holds released, available, demurrage 125 USD after PATCH /containers/{id}/refresh",
      () => containerAttributes(api, lax.containerId),
      (a) => a.available_for_pickup === true,
      "available_for_pickup true",
    );
    check(
      "APZU4812090: no holds, fees = demurrage 125 USD",
      sameJson(released.holds_at_pod_terminal, []) &&
        sameJson(released.fees_at_pod_terminal, [{ type: "demurrage", amount: 125, currency_code: "USD" }]),
      'holds [], fees [{"type":"demurrage","amount":125,"currency_code":"USD"}]',
      pick(released, ["holds_at_pod_terminal", "fees_at_pod_terminal"]),
    );
    const transportEvents = await api.get(`/containers/${lax.containerId}/transport_events`);
    const discharges = (transportEvents.data ?? []).filter(
      (e) => e.attributes.event === "container.transport.vessel_discharged",
    );
    check(
      "APZU4812090: one vessel_discharged event (the carrier's and APMT's copies are one)",
      discharges.length === 1,
      "1",
      String(discharges.length),
    );
    check(
      "APMT and MAEU: one OAuth token each, reused for every call",
      apmt.tokenRequests.length === 1 &&
        apmt.availabilityRequests.length >= 2 &&
        maeu.tokenRequests.length === 1 &&
        maeu.eventRequests.length >= 2,
      "1 token each, ≥ 2 calls each",
      `APMT ${apmt.tokenRequests.length} token / ${apmt.availabilityRequests.length} calls, MAEU ${maeu.tokenRequests.length} token / ${maeu.eventRequests.length} calls`,
    );

    // ------------------------------------------------------------------------------------------------------------
    // Journey 3: failures made visible, then recovered.
    // APMT refuses our app (403: the API product withdrawn, §1.5) though the token is good.
    apmt.mode = "forbidden";
    await refresh(api, lax.containerId);
    const refused = await waitFor(
      "APMT refusing our credentials (403) shows in terminal_tracking_failed_reason",
      () => containerAttributes(api, lax.containerId),
      (a) => a.terminal_tracking_failed_reason !== null,
      "terminal_tracking_failed_reason set",
    );
    pass("  reason", String(refused.terminal_tracking_failed_reason));
    await waitFor(
      "source_outage.started delivered to the receiver",
      async () => deliveries.map((d) => d.event),
      (events) => events.includes("source_outage.started"),
      "source_outage.started among the deliveries",
    );
    apmt.mode = "ok";
    apmt.update("USLAX", boxLax, { demurrageOwed: "250.00" });
    await waitFor(
      "APMT accepting our credentials again clears the reason (refreshed until it does)",
      async () => {
        await refresh(api, lax.containerId);
        return containerAttributes(api, lax.containerId);
      },
      (a) => a.terminal_tracking_failed_reason === null && a.fees_at_pod_terminal?.[0]?.amount === 250,
      "terminal_tracking_failed_reason null, demurrage 250",
      { intervalMs: 2000 },
    );
    await waitFor(
      "source_outage.resolved delivered to the receiver",
      async () => deliveries.map((d) => d.event),
      (events) => events.includes("source_outage.resolved"),
      "source_outage.resolved among the deliveries",
    );

    const shipmentBefore = (await api.get(`/shipments/${lax.shipmentId}`)).data.attributes;
    maeu.mode = "error_500";
    await refresh(api, lax.containerId);
    const lineFailed = await waitFor(
      "MAEU answering 500 shows in the shipment's line_tracking_failed_reason; succeeded-at stays",
      () => api.get(`/shipments/${lax.shipmentId}`).then((d) => d.data.attributes),
      (a) =>
        a.line_tracking_failed_reason !== null &&
        a.line_tracking_last_attempted_at !== shipmentBefore.line_tracking_last_attempted_at,
      "line_tracking_failed_reason set, attempted-at moved",
    );
    check(
      "MAEU: succeeded-at did not move on the failed poll",
      lineFailed.line_tracking_last_succeeded_at === shipmentBefore.line_tracking_last_succeeded_at,
      shipmentBefore.line_tracking_last_succeeded_at,
      lineFailed.line_tracking_last_succeeded_at,
      String(lineFailed.line_tracking_failed_reason),
    );
    maeu.mode = "ok";
    await waitFor(
      "MAEU answering again clears line_tracking_failed_reason (refreshed until it does)",
      async () => {
        await refresh(api, lax.containerId);
        return api.get(`/shipments/${lax.shipmentId}`).then((d) => d.data.attributes);
      },
      (a) => a.line_tracking_failed_reason === null,
      "line_tracking_failed_reason null",
      { intervalMs: 2000 },
    );

    // ------------------------------------------------------------------------------------------------------------
    // Journey 4: LBCT Pier E (ONEY) and the Port of Virginia's NIT (CMDU), both discharged already when tracked.
    const podLgb = {
      ...dcsa.CALLS.pod,
      transportCallID: "call-uslgb-lbct-2103n",
      UNLocationCode: "USLGB",
      facilityCode: "LBCT",
    };
    const boxLgb = "MSKU9070323";
    const blLgb = "ONEY240001235";
    oney.events = [
      ...journeyBefore(dcsa, boxLgb, podLgb, now),
      dcsa.equipmentEvent({ n: 408, box: boxLgb, code: "DISC", at: isoZ(now - 3 * HOUR_MS), call: podLgb }),
    ];
    lbct.put(
      lbctFake.lbctImportUnit(boxLgb, {
        "visit-state": "Active",
        "transit-state": "Yard",
        "is-in-yard": true,
        "line-operator": "ONE",
        "bill-of-lading-number": blLgb,
        "time-in": pacificLocal(now - 3 * HOUR_MS),
        available: true,
        location: "Y-LBCT-A12",
      }),
    );
    const lgb = await track(api, "ONEY", blLgb, boxLgb);
    const lgbAttrs = await waitFor(
      "MSKU9070323 at LBCT Pier E: terminal data in GET /v2/containers/{id}",
      async () => {
        await refresh(api, lgb.containerId);
        return containerAttributes(api, lgb.containerId);
      },
      (a) => a.terminal_checked_at !== null,
      "terminal_checked_at set",
      { intervalMs: 2000 },
    );
    check(
      "MSKU9070323: LBCT asked with the key in its URL path; available, location Y-LBCT-A12",
      lbct.searches.length >= 1 &&
        lbct.searches.every((r) => r.key === lbctFake.FAKE_LBCT_KEY) &&
        lgbAttrs.available_for_pickup === true &&
        lgbAttrs.location_at_pod_terminal === "Y-LBCT-A12",
      "≥ 1 search with the configured key; available_for_pickup true, location_at_pod_terminal Y-LBCT-A12",
      `${lbct.searches.length} searches; ${JSON.stringify(pick(lgbAttrs, ["available_for_pickup", "location_at_pod_terminal"]))}`,
    );

    // LBCT throttles us (429, Retry-After 20 s): the failure is visible on the box, the provider's backoff (its
    // ProviderGate Durable Object, shared by every isolate) keeps the Worker from asking again until it has passed,
    // and the first poll after it recovers.
    const RETRY_AFTER_S = 20;
    lbct.mode = "throttled";
    lbct.retryAfterS = RETRY_AFTER_S;
    const searchesBefore = lbct.searches.length;
    const beforeThrottle = Date.now();
    const throttled = await waitFor(
      `${boxLgb}: LBCT answering 429 shows as terminal_tracking_failed_reason terminal_unreachable`,
      async () => {
        if (lbct.searches.length === searchesBefore) await refresh(api, lgb.containerId);
        return containerAttributes(api, lgb.containerId);
      },
      (a) => a.terminal_tracking_failed_reason === "terminal_unreachable",
      "terminal_tracking_failed_reason terminal_unreachable",
      { intervalMs: 1000 },
    );
    // The 429 was answered between beforeThrottle and now: the backoff lasts at least until beforeThrottle + 20 s,
    // and at most until now + 20 s.
    const throttleSeen = Date.now();
    const searchesThrottled = lbct.searches.length;
    // Attempt times are whole seconds: refresh again until one lands in a later second.
    let lastRefresh = 0;
    const during = await waitFor(
      `${boxLgb}: polled again during the backoff`,
      async () => {
        if (Date.now() - lastRefresh > 1500) {
          lastRefresh = Date.now();
          await refresh(api, lgb.containerId);
        }
        return containerAttributes(api, lgb.containerId);
      },
      (a) => a.terminal_tracking_last_attempted_at !== throttled.terminal_tracking_last_attempted_at,
      `terminal_tracking_last_attempted_at after ${throttled.terminal_tracking_last_attempted_at}`,
    );
    const polledAt = Date.parse(during.terminal_tracking_last_attempted_at);
    check(
      "LBCT not asked again during its Retry-After (the provider's backoff), the box still unreachable",
      lbct.searches.length === searchesThrottled &&
        polledAt < beforeThrottle + RETRY_AFTER_S * 1000 &&
        during.terminal_tracking_failed_reason === "terminal_unreachable",
      `${searchesThrottled} searches; a poll before ${new Date(beforeThrottle + RETRY_AFTER_S * 1000).toISOString()}`,
      `${lbct.searches.length} searches; polled at ${during.terminal_tracking_last_attempted_at}, ${during.terminal_tracking_failed_reason}`,
    );
    lbct.mode = "ok";
    await waitFor(
      `${boxLgb}: after the Retry-After, LBCT asked again and the failure cleared`,
      async () => {
        if (Date.now() > throttleSeen + RETRY_AFTER_S * 1000) await refresh(api, lgb.containerId);
        return containerAttributes(api, lgb.containerId);
      },
      (a) => a.terminal_tracking_failed_reason === null && lbct.searches.length > searchesThrottled,
      "terminal_tracking_failed_reason null, one more search",
      { intervalMs: 2000, timeoutMs: RETRY_AFTER_S * 1000 + WAIT_MS },
    );

    const boxOrf = "TGHU1234567";
    const blOrf = "CMDU240001236";
    const podOrf = {
      ...dcsa.CALLS.pod,
      transportCallID: "call-usorf-nit-2103n",
      UNLocationCode: "USORF",
      facilityCode: "NIT",
    };
    cmdu.events = [
      ...journeyBefore(dcsa, boxOrf, podOrf, now),
      dcsa.equipmentEvent({ n: 409, box: boxOrf, code: "DISC", at: isoZ(now - 4 * HOUR_MS), call: podOrf }),
    ];
    pov.set(povFake.povAvailability(boxOrf, blOrf, { carrierScac: "CMDU" }));
    const orf = await track(api, "CMDU", blOrf, boxOrf);
    await waitFor(
      `${boxOrf} at NIT: Port of Virginia polled, terminal_checked_at set`,
      async () => {
        await refresh(api, orf.containerId);
        return containerAttributes(api, orf.containerId);
      },
      (a) => a.terminal_checked_at !== null,
      "terminal_checked_at set",
      { intervalMs: 2000 },
    );
    const povSub = await waitFor(
      "Port of Virginia: subscription created with our callback URL",
      async () => [...pov.subscriptions.values()].filter((s) => s.equipmentId === boxOrf),
      (subs) => subs.length === 1 && subs[0].callbackUrl.startsWith(origin),
      `one subscription for ${boxOrf} calling back ${origin}`,
    );
    pass("  callback", povSub[0].callbackUrl);
    povCallbackToken = new URL(povSub[0].callbackUrl).pathname.split("/").at(-1) ?? "";
    pov.update(boxOrf, { shipmentStatus: "Available", yardBlock: "B12" });
    const statuses = await pov.push(boxOrf, fetch);
    check("Port of Virginia: its push accepted", statuses.length === 1 && statuses[0] < 300, "[2xx]", statuses);
    await waitFor(
      `${boxOrf}: the push caused a poll; available, yard block B12`,
      () => containerAttributes(api, orf.containerId),
      (a) => a.available_for_pickup === true && a.location_at_pod_terminal === "B12",
      "available_for_pickup true, location_at_pod_terminal B12",
    );

    // ------------------------------------------------------------------------------------------------------------
    // Tracking stopped through the API; the cron (wrangler's /__scheduled, what the every-minute trigger runs) deletes
    // the push subscriptions at the carrier and at the port.
    for (const shipmentId of [lax.shipmentId, orf.shipmentId]) {
      const stopped = await api.call("PATCH", `/shipments/${shipmentId}/stop_tracking`);
      check(
        `PATCH /v2/shipments/${shipmentId}/stop_tracking`,
        stopped.status === 200,
        "200",
        `${stopped.status} ${stopped.text.slice(0, 200)}`,
      );
    }
    await waitFor(
      "cron (/__scheduled): MAEU's subscription deleted at the carrier, NIT's at the Port of Virginia",
      async () => {
        const ran = await fetch(`${origin}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
        await ran.arrayBuffer();
        return {
          maeu: [...maeu.subscriptions.values()].filter((s) => !s.deleted).length,
          pov: [...pov.subscriptions.values()].filter((s) => s.equipmentId === boxOrf).length,
        };
      },
      (live) => live.maeu === 0 && live.pov === 0,
      "no live subscription left at either",
      { intervalMs: 2000 },
    );

    // ------------------------------------------------------------------------------------------------------------
    // Last, the carrier's token endpoint refusing our client (its secret rotated there): visible on the shipment. Its
    // refusal body echoes the secret we sent, so the log check below also proves the Worker never logs it. Recovery
    // is not waited for: a refusal is remembered for TOKEN_REFUSAL_MEMORY_MS (60 s, src/tracking/sources/auth.ts).
    oney.clientSecret = "rotated-at-the-carrier";
    oney.forgetTokens();
    const tokenRequestsBefore = oney.tokenRequests.length;
    await refresh(api, lgb.containerId);
    const rejected = await waitFor(
      "ONEY's token endpoint refusing our client shows as shipping_line_credentials_rejected",
      () => api.get(`/shipments/${lgb.shipmentId}`).then((d) => d.data.attributes),
      (a) => a.line_tracking_failed_reason === "shipping_line_credentials_rejected",
      "line_tracking_failed_reason shipping_line_credentials_rejected",
    );
    await refresh(api, lgb.containerId);
    await waitFor(
      "ONEY: polled again while refused",
      () => api.get(`/shipments/${lgb.shipmentId}`).then((d) => d.data.attributes),
      (a) => a.line_tracking_last_attempted_at !== rejected.line_tracking_last_attempted_at,
      `line_tracking_last_attempted_at after ${rejected.line_tracking_last_attempted_at}`,
    );
    check(
      "ONEY: the refusal is remembered: one token request for two polls",
      oney.tokenRequests.length === tokenRequestsBefore + 1,
      String(tokenRequestsBefore + 1),
      String(oney.tokenRequests.length),
    );

    // ------------------------------------------------------------------------------------------------------------
    // Webhooks seen at the receiver, all verified.
    const seenEvents = await waitFor(
      "webhooks: container.updated and container.transport.vessel_discharged received",
      async () => new Set(deliveries.map((d) => d.event)),
      (s) => s.has("container.updated") && s.has("container.transport.vessel_discharged"),
      "container.updated, container.transport.vessel_discharged",
    );
    const dischargeNotices = deliveries.filter((d) => d.event === "container.transport.vessel_discharged");
    // Only APZU4812090 was discharged while tracked; the other two joined discharged, which container.created
    // announces (a joining row's history is not announced, src/tracking/box-writes.ts).
    check(
      "webhooks: one vessel_discharged (APZU4812090's), though carrier, push and APMT all reported it; no duplicate",
      dischargeNotices.length === 1 && deliveries.every((d) => !d.duplicate),
      "1 vessel_discharged, 0 duplicates",
      `${dischargeNotices.length} vessel_discharged, ${deliveries.filter((d) => d.duplicate).length} duplicates`,
    );
    check(
      "webhooks: every delivery verified (plain HMAC or Standard Webhooks), none rejected",
      receiver.stats.rejected === 0 && receiver.stats.accepted > 0,
      "rejected 0, accepted > 0",
      JSON.stringify(receiver.stats),
      `${receiver.stats.accepted} deliveries: ${[...seenEvents].sort().join(", ")}`,
    );
  } catch (err) {
    failure = err;
  } finally {
    // Credentials never in wrangler's output: checked even after a failure (a failure path is where leaks happen).
    if (worker) {
      for (const carrier of Object.values(carriers))
        for (const s of carrier.subscriptions.values()) secrets.add(s.secret);
      const log = readFileSync(worker.logFile, "utf8");
      const leaked = [...secrets].filter((s) => s && log.includes(s));
      const apmtTokens = /apmt-token-\d+/.test(log);
      const ownLines = log
        .split("\n")
        .filter((l) => !/^\[wrangler:info\] [A-Z]+ \//.test(l))
        .join("\n");
      const callbackTokenShown = povCallbackToken !== "" && ownLines.includes(povCallbackToken);
      if (!failure) {
        // Without the Worker's own lines in the file the check below would prove nothing: the refusals of the
        // journeys above are logged by the Worker (console.error).
        try {
          check(
            "wrangler log: holds the Worker's own console lines (its report of the refused credentials)",
            /refused our credentials/.test(ownLines),
            'a line with "refused our credentials"',
            `${ownLines.split("\n").length} lines without it`,
          );
        } catch (err) {
          failure = err;
        }
      }
      try {
        check(
          "wrangler log: no credential (client secrets, API keys, tokens, subscription key and secrets, our key)",
          leaked.length === 0 && !apmtTokens && !callbackTokenShown,
          "none of them",
          `${leaked.length} leaked${apmtTokens ? ", an APMT token" : ""}${callbackTokenShown ? ", the Port of Virginia callback token" : ""} (values withheld)`,
          `${secrets.size} values checked against ${log.split("\n").length} lines`,
        );
      } catch (err) {
        failure ??= err;
      }
      // The Worker's errors and warnings, for the reader: expected ones (the refusals played above) and any other.
      const plain = stripVTControlCharacters(ownLines);
      const problems = [...new Set(plain.split("\n").filter((l) => /^(✘ \[ERROR\]|▲ \[WARNING\])/.test(l.trim())))];
      console.log(`\nthe Worker's errors and warnings (${problems.length} distinct):`);
      for (const line of problems.slice(0, 20)) console.log(`  ${line.trim().slice(0, 220)}`);
      if (failure) {
        // The Worker's own lines, without wrangler's one line per request; the whole log is kept for reading.
        const kept = join(tmpdir(), `check-sources-wrangler-${Date.now()}.log`);
        copyFileSync(worker.logFile, kept);
        const lines = log.split("\n").filter((l) => l.trim() !== "" && !/^\[wrangler:info\] [A-Z]+ \//.test(l));
        console.log(`\nwrangler's log without request lines (whole log: ${kept}):`);
        console.log(lines.slice(-40).join("\n"));
        console.log(`requests seen by the fakes: ${providerCounts()}`);
      }
      await worker.stop();
    }
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (failure) {
    console.log(`\n✗ ${failure instanceof CheckFailure ? failure.message : (failure?.stack ?? failure)}`);
    console.log(`check:sources: FAILED after ${passed} checks (${seconds} s)`);
    process.exit(1);
  }
  console.log(`\ncheck:sources: ${passed} checks passed (${seconds} s)`);
  process.exit(0);
}

/**
 * The carrier's events for `box` until its vessel left the POL 20 days before `now`, with the POD's arrival estimated
 * a day after `now` (so the POD and its terminal are known): empty out, full in, load, departure, estimated arrival.
 * Event numbers are unique per box (its check digit in the thousands).
 */
function journeyBefore(dcsa, box, pod, now) {
  const base = 1000 * Number(box.at(-1)) + 10 * box.charCodeAt(0);
  const pol = dcsa.CALLS.pol;
  return [
    dcsa.equipmentEvent({
      n: base + 1,
      box,
      code: "GTOT",
      empty: "EMPTY",
      at: isoZ(now - 24 * DAY_MS),
      locode: "CNYTN",
    }),
    dcsa.equipmentEvent({
      n: base + 2,
      box,
      code: "GTIN",
      at: isoZ(now - 22 * DAY_MS),
      locode: "CNYTN",
      facility: "YICT",
    }),
    dcsa.equipmentEvent({ n: base + 3, box, code: "LOAD", at: isoZ(now - 21 * DAY_MS), call: pol }),
    dcsa.transportEvent({ n: base + 4, code: "DEPA", at: isoZ(now - 20 * DAY_MS), call: pol }),
    dcsa.transportEvent({
      n: base + 5,
      code: "ARRI",
      classifier: "EST",
      at: isoZ(now + DAY_MS),
      created: isoZ(now - 10 * DAY_MS),
      call: pod,
    }),
  ];
}

/**
 * Tracks `bl` of `scac` through POST /v2/tracking_requests and waits until it created its shipment with `box`.
 * @returns {Promise<{ requestId: string, shipmentId: string, containerId: string }>}
 */
async function track(api, scac, bl, box) {
  const created = await api.call("POST", "/tracking_requests", {
    data: { type: "tracking_request", attributes: { request_type: "bill_of_lading", request_number: bl, scac } },
  });
  check(
    `${scac} ${bl}: POST /v2/tracking_requests`,
    created.status === 201,
    "201",
    `${created.status} ${created.text}`,
  );
  const requestId = created.json.data.id;
  const request = await waitFor(
    `${scac} ${bl}: looked up at the fake carrier, status created`,
    () => api.get(`/tracking_requests/${requestId}`),
    (d) => d.data.attributes.status === "created" && d.data.relationships?.tracked_object?.data?.id,
    'status "created" with its shipment',
  );
  const shipmentId = request.data.relationships.tracked_object.data.id;
  const shipment = await api.get(`/shipments/${shipmentId}?include=containers`);
  const container = (shipment.included ?? []).find((r) => r.type === "container" && r.attributes.number === box);
  check(
    `${scac} ${bl}: shipment holds ${box}`,
    container !== undefined,
    box,
    (shipment.included ?? []).map((r) => r.attributes?.number),
  );
  return { requestId, shipmentId, containerId: container.id };
}

/** The container's attributes as `GET /v2/containers/{id}` serves them. */
function containerAttributes(api, containerId) {
  return api.get(`/containers/${containerId}`).then((d) => d.data.attributes);
}

/** PATCH /v2/containers/{id}/refresh, which must answer 200 (it queues a poll). */
async function refresh(api, containerId) {
  const r = await api.call("PATCH", `/containers/${containerId}/refresh`);
  if (r.status !== 200)
    throw new CheckFailure(`PATCH /containers/${containerId}/refresh`, "200", `${r.status} ${r.text}`);
  return r.json?.message;
}

/** Whether two JSON values are equal (key order as built). */
function sameJson(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The `keys` of `object`, for a failure message. */
function pick(object, keys) {
  return Object.fromEntries(keys.map((k) => [k, object?.[k]]));
}

main();
