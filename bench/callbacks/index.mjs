// bench/callbacks: throughput of the carrier push endpoint `POST /callbacks/dcsa/{id}` (issue 13 §4) as a ratio to
// `GET /health` in the same run (target ≥ 0.3).
//
// Runs `wrangler dev --local` on a snapshot of the committed sources (git HEAD: edits in the working tree during the
// run change nothing), seeds one active DCSA subscription whose secret is AES-GCM encrypted under the bench's
// UPSTREAM_SUBSCRIPTION_KEY exactly as src/callbacks/secrets.ts stores it, and loads 127.0.0.1 only, for a bounded
// time each: first `GET /health`, then signed callbacks. Every callback body is distinct (a new eventID per request,
// else the endpoint would answer 409 as a replay) and signed per request (`Notification-Signature: sha256=<hex
// HMAC-SHA256 of the body with the base64-decoded secret>`), so each 204 is the full path: decrypt the secret,
// verify the HMAC, insert the receipt (replay guard), update the subscription. No box is tracked by the subscription's
// reference, so no poll is queued: the figure is the endpoint's own cost, not the poll it triggers.
import { createCipheriv, createHmac, randomBytes } from "node:crypto";
import { join, relative } from "node:path";
import { load } from "../lib/load.mjs";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, printTargets, sourceVersion, writeResult } from "../lib/report.mjs";
import { isoSeconds, openForBulkLoad } from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, snapshotProject, startDev, wipePersistDir } from "../lib/wrangler.mjs";

export const description = "Callbacks: signed DCSA push callbacks/s at POST /callbacks/dcsa/{id}, ratio to GET /health";

export const usage = `bench callbacks options (or the environment variable in brackets):
  --duration S      seconds of each load phase (BENCH_DURATION, default 15)
  --connections N   concurrent connections (BENCH_CONNECTIONS, default 16)
  --port P          wrangler dev port (BENCH_PORT, default 8797)
  --ref REF         git ref of the sources to run (BENCH_REF, default HEAD)
  --check           exit 1 when a target fails (BENCH_CHECK=1)`;

/** Issue 13 bench: the callback endpoint serves at least 0.3 of what GET /health does on the same machine and run. */
const TARGET_RATIO = 0.3;
const SUBSCRIPTION_ID = "0196a000-0000-7000-8000-00000000cb01";
const UPSTREAM_ID = "5f0ad1c2-0000-4000-8000-00000000be01";

function options(argv) {
  const { values, num, flag } = benchOptions(argv, {
    duration: { type: "string" },
    connections: { type: "string" },
    port: { type: "string" },
    ref: { type: "string" },
    check: { type: "boolean" },
  });
  return {
    duration: Math.floor(num("duration", "BENCH_DURATION", 15)),
    connections: Math.floor(num("connections", "BENCH_CONNECTIONS", 16)),
    port: Math.floor(num("port", "BENCH_PORT", 8797)),
    ref: values.ref ?? process.env.BENCH_REF ?? "HEAD",
    check: flag("check", "BENCH_CHECK"),
  };
}

/** src/callbacks/secrets.ts `encryptSecret`: `v1.` + base64(IV ‖ ciphertext ‖ tag), AAD = the subscription id. */
function encryptSecret(keyBytes, subscriptionId, secret) {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyBytes, iv);
  cipher.setAAD(Buffer.from(subscriptionId, "utf8"));
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1.${Buffer.concat([iv, sealed]).toString("base64")}`;
}

/** One DCSA 2.2 transport event; `n` makes the body unique. */
function eventBody(n) {
  return JSON.stringify([
    {
      eventID: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
      eventType: "TRANSPORT",
      eventClassifierCode: "ACT",
      eventCreatedDateTime: "2024-03-06T23:35:00+01:00",
      eventDateTime: "2024-03-06T23:30:00+01:00",
      transportEventTypeCode: "ARRI",
      transportCall: {
        transportCallID: "8b64d20b-523b-4491-b2e5-32cfa5174eed",
        modeOfTransport: "VESSEL",
        UNLocationCode: "FRLEH",
        facilityCode: "GMP",
        carrierVoyageNumber: "2103S",
        vessel: { vesselIMONumber: "9321483", vesselName: "King of the Seas" },
      },
      documentReferences: [{ documentReferenceType: "TRD", documentReferenceValue: "BENCH0000001" }],
    },
  ]);
}

export async function run(argv) {
  const opts = options(argv);
  const srcDir = join(ROOT, ".wrangler", "bench-callbacks-src");
  const persistDir = join(ROOT, ".wrangler", "bench-callbacks-state");
  const logFile = join(ROOT, "bench", "results", `wrangler-callbacks-${Date.now()}.log`);
  const project = snapshotProject(srcDir, { ref: opts.ref });
  wipePersistDir(persistDir);
  await applyMigrations(persistDir, { cwd: project });

  const keyBytes = randomBytes(32);
  const secret = randomBytes(32).toString("base64");
  const hmacKey = Buffer.from(secret, "base64");
  const db = openForBulkLoad(d1SqliteFile(persistDir));
  try {
    const now = isoSeconds(Date.now());
    db.prepare(
      `INSERT INTO upstream_subscriptions (id, provider, scac, reference_type, reference_number, upstream_id,
         callback_url, secret_ciphertext, status, callback_count, created_at, updated_at)
       VALUES (?, 'dcsa:BNCH', 'BNCH', 'bill_of_lading', 'BENCH0000001', ?, ?, ?, 'active', 0, ?, ?)`,
    ).run(
      SUBSCRIPTION_ID,
      UPSTREAM_ID,
      `http://127.0.0.1:${opts.port}/callbacks/dcsa/${SUBSCRIPTION_ID}`,
      encryptSecret(keyBytes, SUBSCRIPTION_ID, secret),
      now,
      now,
    );
  } finally {
    db.close();
  }

  let dev;
  try {
    dev = await startDev({
      cwd: project,
      persistDir,
      port: opts.port,
      logFile,
      vars: {
        UPSTREAM_SUBSCRIPTION_KEY: keyBytes.toString("base64"),
        PUBLIC_BASE_URL: `http://127.0.0.1:${opts.port}`,
      },
    });
    console.log(`wrangler dev (${opts.ref}) on ${dev.baseUrl} (log: ${relative(ROOT, logFile)})`);
    const callbackUrl = `${dev.baseUrl}/callbacks/dcsa/${SUBSCRIPTION_ID}`;

    // Sanity: one signed callback is accepted, its replay refused, a bad signature refused.
    const first = eventBody(0);
    const sign = (body) => `sha256=${createHmac("sha256", hmacKey).update(body).digest("hex")}`;
    const post = (body, signature) =>
      fetch(callbackUrl, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "Subscription-ID": UPSTREAM_ID,
          "Notification-Signature": signature,
        },
        body,
      }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    const sanity = [
      await post(first, sign(first)),
      await post(first, sign(first)),
      await post(eventBody(1), "sha256=00"),
    ];
    console.log(`sanity: accepted ${sanity[0]}, replay ${sanity[1]}, bad signature ${sanity[2]}`);
    if (sanity.join(",") !== "204,409,401") throw new Error(`unexpected sanity answers ${sanity.join(",")}`);

    // Warm-up of both paths (a cold isolate is not what is measured).
    await load({
      name: "warm-up",
      url: `${dev.baseUrl}/health`,
      connections: opts.connections,
      duration: 2,
      serverPgid: dev.pid,
    });
    let n = 10;
    const setupRequest = (req) => {
      n += 1;
      const body = eventBody(n);
      return { ...req, body, headers: { ...req.headers, "Notification-Signature": sign(body) } };
    };
    const callbackHeaders = { "Content-Type": "application/json", "Subscription-ID": UPSTREAM_ID };
    await load({
      name: "warm-up",
      url: callbackUrl,
      method: "POST",
      headers: callbackHeaders,
      setupRequest,
      connections: opts.connections,
      duration: 2,
      serverPgid: dev.pid,
    });

    const health = await load({
      name: "GET /health",
      url: `${dev.baseUrl}/health`,
      connections: opts.connections,
      duration: opts.duration,
      serverPgid: dev.pid,
    });
    const callbacks = await load({
      name: "POST /callbacks/dcsa/{id}",
      url: callbackUrl,
      method: "POST",
      headers: callbackHeaders,
      setupRequest,
      connections: opts.connections,
      duration: opts.duration,
      serverPgid: dev.pid,
    });
    const refused = await load({
      name: "POST /callbacks/dcsa/{id} (bad signature → 401)",
      url: callbackUrl,
      method: "POST",
      headers: { ...callbackHeaders, "Notification-Signature": "sha256=00" },
      body: eventBody(1),
      connections: opts.connections,
      duration: opts.duration,
      serverPgid: dev.pid,
    });

    console.log(`\n${opts.connections} connections, ${opts.duration} s per phase`);
    printTable(
      ["endpoint", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors", "server CPU ms/req", "other CPUs"],
      [health, callbacks, refused].map((r) => [
        r.name,
        fmt(r.rps, 1),
        fmt(r.p50),
        fmt(r.p99),
        r.non2xx,
        r.errors,
        r.serverCpuMsPerRequest === null ? "" : fmt(r.serverCpuMsPerRequest),
        r.cpuCores.other === null ? "" : fmt(r.cpuCores.other),
      ]),
    );
    const accepted = callbacks.statusCodes["204"] ?? 0;
    const acceptedPerSecond = accepted / callbacks.durationSeconds;
    const ratio = acceptedPerSecond / health.rps;
    const cpuRatio =
      health.serverCpuMsPerRequest && callbacks.serverCpuMsPerRequest
        ? health.serverCpuMsPerRequest / callbacks.serverCpuMsPerRequest
        : undefined;
    console.log(
      `\naccepted callbacks (204): ${accepted} (${fmt(acceptedPerSecond, 1)}/s); status codes ${JSON.stringify(callbacks.statusCodes)}`,
    );
    const targets = [
      {
        name: "accepted callbacks/s ÷ GET /health req/s",
        value: ratio,
        op: "≥",
        threshold: TARGET_RATIO,
        ...(cpuRatio === undefined ? {} : { alt: cpuRatio }),
      },
    ];
    const passed = printTargets(targets);
    const file = writeResult("callbacks", {
      options: opts,
      machine: machine(),
      source: sourceVersion(opts.ref),
      health,
      callbacks,
      refused,
      derived: { acceptedPerSecond, ratio, cpuRatio },
      targets,
    });
    console.log(`\nresults: ${file}`);
    return opts.check && !passed ? 1 : 0;
  } finally {
    if (dev) await dev.stop();
  }
}
