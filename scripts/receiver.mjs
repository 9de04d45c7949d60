#!/usr/bin/env node
// `npm run receiver`: a local webhook receiver on 127.0.0.1 for development and the webhooks bench.
//
// Verifies every delivery both ways docs/decisions.md §Webhooks signs it — the plain HMAC (`X-SVC-Webhook-Signature`,
// lowercase hex HMAC-SHA256 of the raw body keyed with the secret string) and Standard Webhooks (`webhook-id`,
// `webhook-timestamp`, `webhook-signature`, checked with the `standardwebhooks` library, which also refuses
// timestamps more than 5 minutes off) — prints one line per notification, and keeps a dedup log on `data.id`: a
// notification seen before is acknowledged again (a retry whose first answer was lost) but reported as a duplicate.
//
//   npm run receiver                                   listen on 127.0.0.1:9000; secrets learned from the API
//   npm run receiver -- --secret whsec_…               verify with this secret (repeatable)
//   npm run receiver -- --api http://127.0.0.1:8787 --key svc_test_…
//                                                      learn the secrets of the account's webhooks (GET /v2/webhooks)
//   npm run receiver -- --fail-first 3                 answer 503 to the first 3 requests (watch the retries)
//   npm run receiver -- --log .wrangler/receiver.jsonl append every delivery to a JSON-lines dedup log
//
// Answers 200 to a verified delivery, 401 to one whose signature does not verify (so it is retried), 400 to a body
// that is not a webhook notification. With no secret at all (none given, none learned) deliveries are accepted and
// reported as unverified. See docs/webhooks.md §Receiving locally for the walkthrough with `npm start`.
import { createHmac, timingSafeEqual } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Webhook } from "standardwebhooks";

/** Checks `X-SVC-Webhook-Signature` (hex HMAC-SHA256 of the raw body, key = the secret's UTF-8) in constant time. */
export function verifyPlain(secret, rawBody, signature) {
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(rawBody).digest("hex"));
  return timingSafeEqual(expected, Buffer.from(signature));
}

/** Checks the Standard Webhooks headers with the `standardwebhooks` library (raw-bytes key for non-whsec secrets). */
export function verifyStandard(secret, rawBody, headers) {
  try {
    const hook = secret.startsWith("whsec_") ? new Webhook(secret) : new Webhook(secret, { format: "raw" });
    hook.verify(rawBody.toString("utf8"), {
      "webhook-id": String(headers["webhook-id"] ?? ""),
      "webhook-timestamp": String(headers["webhook-timestamp"] ?? ""),
      "webhook-signature": String(headers["webhook-signature"] ?? ""),
    });
    return true;
  } catch {
    return false;
  }
}

/** What a notification body says, for the log line. */
function describe(doc) {
  const data = doc?.data ?? {};
  const event = data.attributes?.event ?? "?";
  const included = Array.isArray(doc?.included) ? doc.included : [];
  const container = included.find((r) => r.type === "container")?.attributes?.number;
  const request = included.find((r) => r.type === "tracking_request")?.attributes;
  const status = included.find((r) => r.type === "container")?.attributes?.current_status;
  const what = container
    ? `${container}${status ? ` ${status}` : ""}`
    : request
      ? `${request.request_number} ${request.status}`
      : (data.relationships?.reference_object?.data?.type ?? "");
  return { id: data.id, event, what, requestNumber: request?.request_number ?? null };
}

/**
 * Starts a receiver. `secrets` may grow later (`receiver.addSecrets`). `onDelivery` is called for every verified
 * notification with `{ id, event, requestNumber, receivedAt, duplicate }`.
 * @returns {Promise<{ port: number, close: () => Promise<void>, stats: object, addSecrets: (s: string[]) => void }>}
 */
export async function startReceiver({
  host = "127.0.0.1",
  port = 9000,
  secrets = [],
  failFirst = 0,
  log = null,
  quiet = false,
  learnSecrets = null,
  onDelivery = null,
} = {}) {
  const known = new Set(secrets);
  const seen = new Set();
  const stats = { requests: 0, accepted: 0, duplicates: 0, rejected: 0, refused: 0, direct: 0 };
  let lastLearn = 0;
  let learning = null;

  /** Asks the API for the webhooks' secrets: at most once every 2 s; concurrent callers share one request. */
  function learn() {
    if (!learning && Date.now() - lastLearn > 2000) {
      lastLearn = Date.now();
      learning = learnSecrets()
        .then((list) => {
          for (const s of list) known.add(s);
        })
        .catch(() => undefined)
        .finally(() => {
          learning = null;
        });
    }
    return learning ?? Promise.resolve();
  }

  async function verifyWithAnySecret(raw, headers) {
    const check = () => {
      for (const secret of known) {
        const plain = verifyPlain(secret, raw, headers["x-svc-webhook-signature"]);
        const standard = verifyStandard(secret, raw, headers);
        if (plain || standard) return { plain, standard };
      }
      return null;
    };
    let result = check();
    if (!result && learnSecrets) {
      await learn();
      result = check();
    }
    return result;
  }

  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      stats.requests++;
      const raw = Buffer.concat(chunks);
      const answer = (status, text) => {
        res.writeHead(status, { "content-type": "text/plain" });
        res.end(text);
      };
      if (req.method !== "POST") return answer(405, "POST only\n");
      if (stats.requests <= failFirst) {
        stats.refused++;
        if (!quiet) console.log(`${time()} 503 (refusing the first ${failFirst} requests)`);
        return answer(503, "not yet\n");
      }
      let doc;
      try {
        doc = JSON.parse(raw.toString("utf8"));
      } catch {
        stats.rejected++;
        return answer(400, "not JSON\n");
      }
      const info = describe(doc);
      if (typeof info.id !== "string") {
        stats.rejected++;
        return answer(400, "not a webhook notification\n");
      }
      if (info.id !== req.headers["webhook-id"]) {
        stats.rejected++;
        return answer(400, "webhook-id does not match data.id\n");
      }
      let verified = { plain: false, standard: false };
      if (known.size > 0 || learnSecrets) {
        const result = await verifyWithAnySecret(raw, req.headers);
        if (!result) {
          stats.rejected++;
          if (!quiet) console.log(`${time()} 401 ${info.event} ${info.id}: signature does not verify`);
          return answer(401, "bad signature\n");
        }
        verified = result;
      }
      // The bench's direct load generator posts the same signed body over and over to /direct: verified, counted,
      // not deduplicated or logged.
      if (req.url === "/direct") {
        stats.direct++;
        return answer(200, "ok\n");
      }
      const duplicate = seen.has(info.id);
      seen.add(info.id);
      if (duplicate) stats.duplicates++;
      else stats.accepted++;
      const receivedAt = Date.now();
      if (log) appendFileSync(log, `${JSON.stringify({ receivedAt, ...info, duplicate, ...verified })}\n`);
      if (!quiet) {
        const marks =
          known.size === 0 && !learnSecrets
            ? "unverified"
            : `hmac ${mark(verified.plain)} std ${mark(verified.standard)}`;
        console.log(`${time()} ${marks}  ${info.event}  ${info.what}  ${info.id}${duplicate ? "  (duplicate)" : ""}`);
      }
      onDelivery?.({ id: info.id, event: info.event, requestNumber: info.requestNumber, receivedAt, duplicate });
      answer(200, "ok\n");
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    port: server.address().port,
    stats,
    addSecrets: (list) => {
      for (const s of list) known.add(s);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function mark(ok) {
  return ok ? "✓" : "✗";
}

function time() {
  return new Date().toISOString().slice(11, 19);
}

/** Reads the secrets of the account's webhooks through the API (`GET /v2/webhooks`, every page). */
function secretsFromApi(api, key) {
  return async () => {
    const secrets = [];
    let url = `${api.replace(/\/$/, "")}/v2/webhooks?page[size]=100`;
    for (let page = 0; url && page < 20; page++) {
      const res = await fetch(url, { headers: { Authorization: `Token ${key}` }, signal: AbortSignal.timeout(5000) });
      if (!res.ok) break;
      const body = await res.json();
      for (const w of body.data ?? []) if (w.attributes?.secret) secrets.push(w.attributes.secret);
      url = body.links?.next ?? null;
    }
    return secrets;
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: process.env.RECEIVER_PORT ?? "9000" },
      secret: { type: "string", multiple: true, default: [] },
      api: { type: "string" },
      key: { type: "string" },
      "fail-first": { type: "string", default: "0" },
      log: { type: "string" },
      quiet: { type: "boolean", default: false },
      ipc: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(
      "usage: npm run receiver -- [--port 9000] [--secret whsec_…]… [--api http://127.0.0.1:8787 --key svc_test_…]\n" +
        "                           [--fail-first N] [--log file.jsonl] [--quiet]",
    );
    return;
  }
  const secrets = [...values.secret, ...(process.env.WEBHOOK_SECRET ? [process.env.WEBHOOK_SECRET] : [])];
  const api = values.api ?? (values.key ? "http://127.0.0.1:8787" : null);
  const key = values.key ?? process.env.API_KEY;
  const ipc = values.ipc && typeof process.send === "function";
  const receiver = await startReceiver({
    host: values.host,
    port: Number(values.port),
    secrets,
    failFirst: Number(values["fail-first"]),
    log: values.log ?? null,
    quiet: values.quiet,
    learnSecrets: api && key ? secretsFromApi(api, key) : null,
    onDelivery: ipc ? (d) => process.send({ type: "delivery", ...d }) : null,
  });
  const url = `http://${values.host}:${receiver.port}/`;
  if (ipc) {
    process.send({ type: "ready", port: receiver.port });
    process.on("message", (m) => {
      if (m?.type === "stats") process.send({ type: "stats", stats: receiver.stats });
    });
    process.on("disconnect", () => process.exit(0));
  } else {
    console.log(`webhook receiver listening on ${url}`);
    console.log(
      secrets.length > 0
        ? `verifying with ${secrets.length} secret(s)`
        : api && key
          ? `verifying with the secrets of the webhooks at ${api} (GET /v2/webhooks)`
          : "no secret given: deliveries are accepted unverified (pass --secret or --key)",
    );
    console.log(`register it: POST /v2/webhooks with "url": "${url}" (npm start allows http://127.0.0.1)`);
  }
  const stop = async () => {
    await receiver.close();
    if (!ipc) console.log(`\n${JSON.stringify(receiver.stats)}`);
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(err?.stack ?? err);
    process.exit(1);
  });
}
