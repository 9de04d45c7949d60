// bench/webhooks: webhook delivery end to end against a local `wrangler dev` (workerd, local D1, Queues, Durable
// Objects), to a signature-verifying receiver on 127.0.0.1 (scripts/receiver.mjs, a child process).
//
// Events are made the way production makes them: `POST /v2/tracking_requests` for sandbox numbers the TEST line does
// not know (`BENCH-…`), at a fixed rate; the tracking-requests consumer fails each one (`not_found`) and writes a
// `tracking_request.failed` notification for each of the account's K webhooks (default 10, all pointing at the
// receiver) in the same D1 batch, then queues them; the webhook-deliveries consumer signs and POSTs each to the
// receiver, which verifies both signatures and reports each receipt to the bench over IPC. So N notifications/s take
// N/K tracking requests/s (the local API takes about 40 POST /tracking_requests per second on a 2-CPU machine, see
// bench/README.md, so one webhook per event could not offer 100 notifications/s). Event-to-receipt latency is from the
// moment the bench sent the POST (the change that causes the event) to the moment the receiver got the notification,
// on the same machine clock.
//
// Then, in the same run, a direct load generator (autocannon) POSTs a correctly signed body straight to the receiver
// at the same rate (and once unthrottled, for its capacity), so the Worker's delivery rate is judged against what the
// receiver takes directly under the same conditions.
import { fork } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { Webhook } from "standardwebhooks";
import { load } from "../lib/load.mjs";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";
import { execStatements, generateTestKey, hashKey, isoSeconds, openForBulkLoad, uuidv7At } from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, snapshotProject, startDev, wipePersistDir } from "../lib/wrangler.mjs";

export const description =
  "Webhooks: N events/s → outbox → queue → signed POST to a verifying local receiver (delivered/s, latency, lost)";

export const usage = `bench webhooks options (or the environment variable in brackets):
  --rate N              notifications per second (BENCH_WEBHOOK_RATE, default 100)
  --webhooks K          webhooks of the account, each notified of every event: the bench makes rate/K events
                        (tracking requests → tracking_request.failed) per second (BENCH_WEBHOOKS, default 10)
  --duration S          seconds of load (BENCH_DURATION, default 60)
  --drain S             at most this many seconds after the load for the last deliveries (BENCH_DRAIN, default 30)
  --direct-duration S   seconds of the receiver's direct load phases (BENCH_DIRECT_DURATION, default 10)
  --port P              port of the bench's wrangler dev on 127.0.0.1 (BENCH_PORT, default 8792)
  --keep-state          keep .wrangler/bench-webhooks-state (API key in bench-api-key) and the source snapshot
  BENCH_LOG_LEVEL=info  wrangler's log level (default warn); info logs every queue batch and its duration
  --check               exit 1 when a target fails (BENCH_CHECK=1)`;

const TARGETS = { ratio: 0.5, p99Ms: 5000 };
const ACCOUNT_ID = "00000000-0000-7000-8000-00000000b0b1";

function options(argv) {
  const { values, num, flag } = benchOptions(argv, {
    rate: { type: "string" },
    webhooks: { type: "string" },
    duration: { type: "string" },
    drain: { type: "string" },
    "direct-duration": { type: "string" },
    port: { type: "string" },
    "keep-state": { type: "boolean" },
    check: { type: "boolean" },
  });
  return {
    rate: num("rate", "BENCH_WEBHOOK_RATE", 100),
    webhooks: Math.floor(num("webhooks", "BENCH_WEBHOOKS", 10)),
    duration: num("duration", "BENCH_DURATION", 60),
    drain: num("drain", "BENCH_DRAIN", 30, 0),
    directDuration: num("direct-duration", "BENCH_DIRECT_DURATION", 10),
    port: Math.floor(num("port", "BENCH_PORT", 8792)),
    keepState: values["keep-state"] === true,
    check: flag("check", "BENCH_CHECK"),
  };
}

function step(message) {
  console.log(`[webhooks] ${message}`);
}

/** Nearest-rank percentile of sorted numbers. */
function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Starts scripts/receiver.mjs as a child process; resolves once it listens. Receipts arrive through `onDelivery`. */
function startReceiverProcess(secret, onDelivery) {
  return new Promise((resolve, reject) => {
    const child = fork(join(ROOT, "scripts", "receiver.mjs"), ["--ipc", "--quiet", "--port", "0", "--secret", secret], {
      execPath: process.execPath,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const pendingStats = [];
    child.on("message", (m) => {
      if (m?.type === "ready") {
        resolve({
          port: m.port,
          child,
          stats: () =>
            new Promise((res) => {
              pendingStats.push(res);
              child.send({ type: "stats" });
            }),
          stop: () => {
            if (child.connected) child.disconnect();
            child.kill("SIGTERM");
          },
        });
      } else if (m?.type === "delivery") onDelivery(m);
      else if (m?.type === "stats") pendingStats.shift()?.(m.stats);
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`receiver exited (${code}) before listening`)));
    process.once("exit", () => child.kill("SIGKILL"));
  });
}

/**
 * Seeds the reference data, one account with an API key, and its `webhooks` webhooks to the receiver, subscribed to
 * `tracking_request.failed`. They share one secret, so the receiver's verification costs the same per request as in
 * the direct phase.
 */
async function prepareDatabase(project, persistDir, receiverUrl, secret, webhooks) {
  await applyMigrations(persistDir, { cwd: project });
  const { referenceSeedStatements } = await import(pathToFileURL(join(project, "src", "reference", "seed.ts")).href);
  const key = generateTestKey();
  const db = openForBulkLoad(d1SqliteFile(persistDir));
  try {
    execStatements(db, referenceSeedStatements());
    const now = Date.now();
    const created = isoSeconds(now);
    db.exec("BEGIN");
    db.prepare("INSERT INTO accounts (id, name, entitlements, created_at) VALUES (?, 'Bench webhooks', '[]', ?)").run(
      ACCOUNT_ID,
      created,
    );
    db.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, 'bench', ?, ?, ?)",
    ).run(uuidv7At(now), ACCOUNT_ID, hashKey(key), key.slice(0, 13), created);
    const insertWebhook = db.prepare(
      `INSERT INTO webhooks (id, account_id, url, active, events, headers, secret, created_at, updated_at)
       VALUES (?, ?, ?, 1, '["tracking_request.failed"]', '[{"name":"X-Bench","value":"webhooks"}]', ?, ?, ?)`,
    );
    for (let i = 0; i < webhooks; i++) {
      insertWebhook.run(uuidv7At(now + 1 + i), ACCOUNT_ID, `${receiverUrl}/${i}`, secret, created, created);
    }
    db.exec("COMMIT");
  } finally {
    db.close();
  }
  writeFileSync(join(persistDir, "bench-api-key"), `${key}\n`);
  return key;
}

/**
 * POSTs `count` tracking requests for unknown sandbox numbers at `rate` per second (each at its slot on a fixed
 * schedule, not waiting for earlier answers) and records when each was sent.
 */
async function emit(baseUrl, key, prefix, count, rate) {
  const sentAt = new Map();
  const statuses = {};
  const inFlight = new Set();
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const number = `${prefix}-${i}`;
    const at = Date.now();
    const p = fetch(`${baseUrl}/v2/tracking_requests`, {
      method: "POST",
      headers: { Authorization: `Token ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        data: {
          type: "tracking_request",
          attributes: { request_type: "container", request_number: number, scac: "TEST" },
        },
      }),
      signal: AbortSignal.timeout(30_000),
    })
      .then(async (res) => {
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 201) sentAt.set(number, at);
      })
      .catch((err) => {
        statuses[String(err?.name ?? "error")] = (statuses[String(err?.name ?? "error")] ?? 0) + 1;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return { sentAt, statuses, seconds: (performance.now() - start) / 1000 };
}

/** Waits until every number of `sentAt` has `perEvent` receipts, or the deadline passes; returns how many are missing. */
async function waitForReceipts(sentAt, receipts, perEvent, deadline) {
  for (;;) {
    let missing = 0;
    for (const number of sentAt.keys()) missing += perEvent - Math.min(perEvent, receipts.get(number)?.length ?? 0);
    if (missing === 0 || Date.now() > deadline) return missing;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A signed notification body and its headers, as the Worker sends them, for the direct load generator. */
function signedExample(secret) {
  const id = "0192b6a4-1c2d-7e3f-8a4b-5c6d7e8f9a0b";
  const body = JSON.stringify({
    data: {
      id,
      type: "webhook_notification",
      attributes: {
        id,
        event: "tracking_request.failed",
        delivery_status: "pending",
        created_at: isoSeconds(Date.now()),
      },
      relationships: {
        reference_object: { data: { id: "0192b6a4-0000-7000-8000-00000000a001", type: "tracking_request" } },
        webhook: { data: { id: "0192b6a4-0000-7000-8000-00000000b001", type: "webhook" } },
        webhook_notification_logs: { data: [] },
      },
    },
    included: [
      {
        id: "0192b6a4-0000-7000-8000-00000000a001",
        type: "tracking_request",
        attributes: { request_number: "BENCH-DIRECT", request_type: "container", scac: "TEST", status: "failed" },
      },
    ],
  });
  const ts = new Date();
  return {
    body,
    headers: {
      "Content-Type": "application/json",
      "User-Agent": "ContainerTrackingService-Webhook/1",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(ts.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, ts, body),
      "X-SVC-Webhook-Signature": createHmac("sha256", secret).update(body).digest("hex"),
      "X-Bench": "webhooks",
    },
  };
}

/** autocannon at a fixed overall rate: what the receiver accepts when offered `rate` requests/s directly. */
async function directAtRate(url, body, headers, rate, duration) {
  const result = await autocannon({
    url,
    method: "POST",
    headers,
    body,
    connections: 10,
    overallRate: rate,
    duration,
    pipelining: 1,
    timeout: 30,
  });
  const ok = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => Number(code) === 200)
    .reduce((a, [, v]) => a + Number(v.count), 0);
  return {
    acceptedPerSecond: ok / result.duration,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export async function run(argv) {
  const opts = options(argv);
  const srcDir = join(ROOT, ".wrangler", "bench-webhooks-src");
  const persistDir = join(ROOT, ".wrangler", "bench-webhooks-state");
  const logFile = join(ROOT, "bench", "results", `wrangler-webhooks-${Date.now()}.log`);
  const project = snapshotProject(srcDir);
  wipePersistDir(persistDir);
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  /** Request number → receipt times of its notifications (one per webhook); ids seen, for duplicates. */
  const receipts = new Map();
  const seenIds = new Set();
  let duplicates = 0;
  const receiver = await startReceiverProcess(secret, (d) => {
    if (!d.requestNumber) return;
    if (seenIds.has(d.id) || d.duplicate) {
      duplicates++;
      return;
    }
    seenIds.add(d.id);
    const list = receipts.get(d.requestNumber);
    if (list) list.push(d.receivedAt);
    else receipts.set(d.requestNumber, [d.receivedAt]);
  });
  let dev;
  try {
    const receiverUrl = `http://127.0.0.1:${receiver.port}/hook`;
    step(`receiver (scripts/receiver.mjs) on ${receiverUrl}, verifying both signatures`);
    const key = await prepareDatabase(project, persistDir, receiverUrl, secret, opts.webhooks);
    dev = await startDev({
      cwd: project,
      persistDir,
      port: opts.port,
      logFile,
      logLevel: process.env.BENCH_LOG_LEVEL ?? "warn",
      vars: {
        RATE_LIMIT_DEFAULT: "1000000000",
        RATE_LIMIT_CREATE_TRACKING_REQUEST: "1000000000",
        WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      },
    });
    step(`wrangler dev on ${dev.baseUrl} (log: ${relative(ROOT, logFile)})`);
    const eventRate = opts.rate / opts.webhooks;

    // Warm-up: the first events of a cold Worker (and the first queue batches) are not what is measured.
    const warm = await emit(dev.baseUrl, key, "WARM", 5, Math.min(5, eventRate));
    const warmMissing = await waitForReceipts(warm.sentAt, receipts, opts.webhooks, Date.now() + 60_000);
    if (warm.sentAt.size === 0 || warmMissing > 0) {
      throw new Error(
        `warm-up: ${warm.sentAt.size} tracking requests accepted (${JSON.stringify(warm.statuses)}), ` +
          `${warmMissing} notifications never reached the receiver within 60 s (see ${relative(ROOT, logFile)})`,
      );
    }
    step(
      `warm-up delivered; measuring ${opts.rate} notifications/s (${fmt(eventRate, 1)} events/s × ${opts.webhooks} webhooks)`,
    );

    const count = Math.round(eventRate * opts.duration);
    const loadStart = Date.now();
    const sent = await emit(dev.baseUrl, key, "BENCH", count, eventRate);
    const expected = sent.sentAt.size * opts.webhooks;
    step(
      `sent ${count} tracking requests in ${fmt(sent.seconds, 1)} s: ${JSON.stringify(sent.statuses)} ` +
        `(${expected} notifications expected); waiting up to ${opts.drain} s for the last deliveries`,
    );
    const lost = await waitForReceipts(sent.sentAt, receipts, opts.webhooks, Date.now() + opts.drain * 1000);
    const latencies = [];
    let lastReceipt = loadStart;
    for (const [number, at] of sent.sentAt) {
      for (const got of receipts.get(number) ?? []) {
        latencies.push(got - at);
        if (got > lastReceipt) lastReceipt = got;
      }
    }
    latencies.sort((a, b) => a - b);
    const delivered = latencies.length;
    const deliveredPerSecond = delivered / ((lastReceipt - loadStart) / 1000);
    const receiverStats = await receiver.stats();

    // The receiver, loaded directly: at the same rate, then as fast as 10 connections go.
    const example = signedExample(secret);
    const directUrl = `http://127.0.0.1:${receiver.port}/direct`;
    step(`direct load generator → receiver at ${opts.rate}/s for ${opts.directDuration} s`);
    const direct = await directAtRate(directUrl, example.body, example.headers, opts.rate, opts.directDuration);
    step(`direct load generator → receiver, unthrottled, 10 connections, ${opts.directDuration} s`);
    const max = await load({
      name: "receiver direct (max)",
      url: directUrl,
      method: "POST",
      headers: example.headers,
      body: example.body,
      connections: 10,
      duration: opts.directDuration,
    });
    const ratio = deliveredPerSecond / direct.acceptedPerSecond;

    console.log("");
    printTable(
      ["measure", "value"],
      [
        ["events (tracking requests accepted)", `${sent.sentAt.size} of ${count} at ${fmt(eventRate, 1)}/s`],
        ["notifications offered", `${expected} at ${opts.rate}/s (${opts.webhooks} webhooks)`],
        ["notifications delivered (unique, verified)", delivered],
        ["lost (accepted, never delivered)", lost],
        ["duplicates at the receiver", duplicates],
        ["worker delivered/s", fmt(deliveredPerSecond, 1)],
        ["event-to-receipt p50 (ms)", fmt(percentile(latencies, 50), 0)],
        ["event-to-receipt p99 (ms)", fmt(percentile(latencies, 99), 0)],
        ["event-to-receipt max (ms)", fmt(latencies.at(-1) ?? Number.NaN, 0)],
        [`receiver direct at ${opts.rate}/s: accepted/s`, fmt(direct.acceptedPerSecond, 1)],
        ["receiver direct, unthrottled: accepted/s", fmt(max.rps, 0)],
        ["worker delivered/s ÷ receiver direct at the same rate", fmt(ratio, 3)],
        ["worker delivered/s ÷ receiver unthrottled", fmt(deliveredPerSecond / max.rps, 3)],
      ],
    );
    const targets = [
      { name: "lost notifications", value: lost, op: "≤", threshold: 0 },
      { name: "event-to-receipt p99 (ms)", value: percentile(latencies, 99), op: "≤", threshold: TARGETS.p99Ms },
      { name: "delivered/s ÷ receiver direct (same rate)", value: ratio, op: "≥", threshold: TARGETS.ratio },
    ];
    const pass = printTargets(targets);
    const file = writeResult("webhooks", {
      bench: "webhooks",
      at: new Date().toISOString(),
      machine: machine(),
      source: sourceVersion(),
      options: opts,
      offered: {
        rate: opts.rate,
        webhooks: opts.webhooks,
        duration: opts.duration,
        events: sent.sentAt.size,
        notifications: expected,
        statuses: sent.statuses,
      },
      delivered,
      lost,
      duplicates,
      deliveredPerSecond,
      latencyMs: {
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        max: latencies.at(-1) ?? null,
      },
      receiver: { stats: receiverStats, directAtRate: direct, directMax: { rps: max.rps, p50: max.p50, p99: max.p99 } },
      ratio,
      targets,
    });
    step(`results: ${relative(ROOT, file)}`);
    return opts.check && !pass ? 1 : 0;
  } finally {
    if (dev) await dev.stop();
    receiver.stop();
    if (!opts.keepState) {
      rmSync(persistDir, { recursive: true, force: true });
      rmSync(srcDir, { recursive: true, force: true });
    }
  }
}
