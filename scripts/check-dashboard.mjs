#!/usr/bin/env node
// `npm run check:dashboard`: the web dashboard end to end in headless Chromium (issue 28 §Tests and figures).
//
// Starts what `npm start` runs, throwaway: a `wrangler dev` on a free 127.0.0.1 port with temporary state
// (scripts/lib/local-worker.mjs: migrations, reference data, an account with an API key, and its admin user), the
// journey simulator on at SIMULATION_SPEED 10 (a simulated day every 6 s), the cron ticked as `npm start` does,
// SMTP pointed at a local mail store (scripts/lib/mail-store.mjs) and webhooks allowed to a local receiver
// (scripts/receiver.mjs). Then, in Debian's Chromium driven by playwright-core, one person's session:
//   a. sign in through the e-mailed link (the cookie's flags, the link used once);
//   b. Track: upload a 12-row CSV with two bad rows, see the preview explain them, create, "10 created", download
//      the per-row results;
//   c. watch a simulator box reach "available" with its LFD on /app/containers without reloading (c1), open its page
//      (c2: timeline, holds, the map's canvas, a custom field value holding markup shown as text);
//   d. "Export CSV" of the table equals GET /v2/containers (numbers, statuses, LFDs);
//   e. Settings → Webhooks: create one to the receiver, "Send test", the delivery succeeds on the page and arrives;
//   g. the other settings pages render;
//   h. another account's box is a 404 page, an admin page a 403 page for a viewer, whose POST changes nothing, and a
//      POST without the CSRF token is refused (each error page readable and audited);
//   f. sign out, and /app/containers goes back to /sign-in.
// On every page: no CSP violation, console error or request to another origin; axe-core with no serious or critical
// violation; the keyboard reaches the skip link first and the page's main controls (scripts/lib/page-audit.mjs). A
// screenshot of each page goes to artifacts/dashboard/ (CI artefacts; `--docs-screenshots` also refreshes the ones
// docs/dashboard.md shows, in docs/screenshots/).
//
// When a scenario fails the others still run where they can: without a signed-in session (a failed) they use a
// session seeded in D1, without the upload (b failed) the ten boxes are tracked through the API, without the table
// (c1 failed) c2 finds an available box through the API; each such fallback
// is printed, and the check fails. Bounded: everything stops after LIMIT_MS, and what it started is killed.
//
//   npm run check:dashboard
//   npm run check:dashboard -- --docs-screenshots
//   npm run check:dashboard -- --only a,c2      only these scenarios (with the fallbacks the others would need)
//
// Environment: CHROMIUM_PATH (default /usr/bin/chromium). Exits 1 when a check fails, 2 when Chromium is missing.
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { apiKeyPrefix, generateApiKey, hashApiKey } from "./lib/api-keys.mjs";
import * as scenarios from "./lib/dashboard-scenarios.mjs";
import * as accountScenarios from "./lib/dashboard-scenarios-account.mjs";
import { freePort, startLocalWorker, tail } from "./lib/local-worker.mjs";
import { startMailStore } from "./lib/mail-store.mjs";
import { AUDIT_STATS, auditPage, watchedContext } from "./lib/page-audit.mjs";
import { ROOT } from "./lib/wrangler.mjs";
import { startReceiver } from "./receiver.mjs";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
/** The whole run, start to kill. */
const LIMIT_MS = 6 * 60_000;
/** Where the screenshots go (gitignored; CI keeps the folder as artefacts). */
const ARTIFACTS = join(ROOT, "artifacts", "dashboard");
/** The screenshots docs/dashboard.md shows, copied by `--docs-screenshots`. */
const DOCS_SCREENSHOTS = [
  "01-sign-in",
  "05-track-progress",
  "08-containers-available",
  "09-container-map",
  "12-webhook-tested",
];
/** The account's admin user, who signs in: the address `npm start` gives the development admin (scripts/start.mjs). */
const USER_EMAIL = "dev@localhost";
/** The box the other account tracks (scenario h opens its page as this account's admin). */
const OTHER_ACCOUNT_BOX = { number: "MSCU2556654", scac: "MSCU" };
/** A viewer of the same account (scenario h). */
const VIEWER_EMAIL = "viewer@localhost";
/** Simulated days per real minute (see TRACKED_BOXES in scripts/lib/dashboard-fixtures.mjs). */
const SIMULATION_SPEED = "10";
/** The create bucket (RATE_LIMIT_CREATE_TRACKING_REQUEST): one less than the upload's ten boxes. */
const CREATES_PER_MINUTE = 9;
/** How often the cron is triggered (`npm start` does it every minute; the simulator's clock runs faster here). */
const CRON_EVERY_MS = 15_000;

/** The scenario running now, for the watchdog's message. */
const running = { id: null };

/** The scenarios in order; `needs`: what must have passed for it to run at all. */
const PLAN = [
  { id: "a", title: "sign in through the e-mailed link", run: scenarios.signIn },
  { id: "b", title: "Track: 12-row CSV upload, 10 created, 2 explained", run: scenarios.trackUpload },
  { id: "c1", title: "a simulator box reaches available on /app/containers, live", run: scenarios.watchAvailable },
  { id: "c2", title: "its page: timeline, holds, map, custom field markup inert", run: scenarios.containerPage },
  { id: "d", title: "Export CSV equals GET /v2/containers", run: scenarios.exportMatchesApi },
  { id: "e", title: "Webhooks: create, Send test, delivery shown and received", run: accountScenarios.webhookTest },
  { id: "g", title: "the other settings pages", run: accountScenarios.otherPages },
  { id: "h", title: "another account's box 404, a viewer's 403, no CSRF token 403", run: accountScenarios.security },
  { id: "f", title: "sign out", run: accountScenarios.signOut },
];

/**
 * The session token's shape (src/sessions/session.ts): 43 base62 characters, like an API key's random part.
 */
function sessionToken() {
  return generateApiKey("test").slice("svc_test_".length);
}

/** The browser cookie of a session token, as the Worker sets it (domain + path: CDP refuses a __Host- cookie by URL). */
function sessionCookie(token) {
  return {
    name: "__Host-session",
    value: token,
    domain: "127.0.0.1",
    path: "/",
    httpOnly: true,
    secure: true,
    sameSite: "Lax",
  };
}

/**
 * Writes into D1, before the Worker starts: the account's admin (USER_EMAIL) with a session for each of
 * `adminTokens` (the spare one b–g fall back on when a fails, and the one a plants before signing in); a viewer of the
 * account with a session (`viewerToken`); and another account with an API key (`otherApiKey`), whose box h opens.
 * @param {{ adminTokens: string[], viewerToken: string, otherApiKey: string }} seeds
 */
function seedUsers({ adminTokens, viewerToken, otherApiKey }) {
  return (db, { accountId, now }) => {
    const expires = new Date(Date.now() + 24 * 3600_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const user = (email, role, tokens) => {
      const userId = crypto.randomUUID();
      db.prepare("INSERT INTO users (id, account_id, email, name, role, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
        userId,
        accountId,
        email,
        `Dashboard check ${role}`,
        role,
        now,
      );
      for (const token of tokens) {
        db.prepare(
          `INSERT INTO web_sessions (id, token_hash, user_id, account_id, created_at, last_seen_at, rotated_at,
             expires_at, user_agent, csrf_token) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'check:dashboard (seeded)', ?)`,
        ).run(
          crypto.randomUUID(),
          createHash("sha256").update(token).digest("hex"),
          userId,
          accountId,
          now,
          now,
          now,
          expires,
          generateApiKey("test").slice(-32),
        );
      }
    };
    user(USER_EMAIL, "admin", adminTokens);
    user(VIEWER_EMAIL, "viewer", [viewerToken]);
    const otherAccountId = crypto.randomUUID();
    db.prepare("INSERT INTO accounts (id, name, entitlements, created_at) VALUES (?, 'Other', '[\"routing\"]', ?)").run(
      otherAccountId,
      now,
    );
    db.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, 'other', ?, ?, ?)",
    ).run(crypto.randomUUID(), otherAccountId, hashApiKey(otherApiKey), apiKeyPrefix(otherApiKey), now);
  };
}

async function run({ docsScreenshots, only }) {
  const closers = [];
  const results = [];
  const notes = [];
  const deliveries = [];
  try {
    rmSync(ARTIFACTS, { recursive: true, force: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    const mail = await startMailStore();
    closers.push(mail.close);
    let apiKey = "";
    let origin = "";
    const learnSecrets = async () => {
      const res = await fetch(`${origin}/v2/webhooks?page[size]=100`, {
        headers: { Authorization: `Token ${apiKey}` },
      });
      const body = await res.json();
      return (body.data ?? []).map((w) => w.attributes?.secret).filter(Boolean);
    };
    const receiver = await startReceiver({ port: 0, quiet: true, learnSecrets, onDelivery: (d) => deliveries.push(d) });
    closers.push(receiver.close);
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const seededToken = sessionToken();
    const plantedToken = sessionToken();
    const viewerToken = sessionToken();
    const otherApiKey = generateApiKey("test");
    const worker = await startLocalWorker({
      port,
      seedReferenceData: true,
      snapshot: true,
      // The container map (GET /v2/containers/{id}/map_geojson) is the routing feature's.
      entitlements: ["routing"],
      logLevel: "log",
      timeoutMs: 120_000,
      setup: seedUsers({ adminTokens: [seededToken, plantedToken], viewerToken, otherApiKey }),
      vars: {
        PUBLIC_BASE_URL: origin,
        SIMULATOR_ENABLED: "true",
        SIMULATION_SPEED,
        SMTP_HOST: "127.0.0.1",
        SMTP_PORT: String(mail.port),
        SMTP_SECURITY: "none",
        ALERT_EMAIL_FROM: "dashboard@check.localhost",
        WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
        DOCUMENT_SIGNING_KEY: randomBytes(32).toString("hex"),
        // The pages poll and the check reads the API besides: more than the default 100 requests a minute.
        RATE_LIMIT_DEFAULT: "5000",
        // Nine creates a minute: the upload's tenth box waits for the bucket, so the import runs long enough to show
        // its progress bar (issue 28: "created within the create bucket's limit with a progress bar").
        RATE_LIMIT_CREATE_TRACKING_REQUEST: String(CREATES_PER_MINUTE),
      },
      log: (line) => console.log(line),
    });
    closers.push(worker.stop);
    apiKey = worker.apiKey;
    const cron = setInterval(() => {
      fetch(`${origin}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}`, {
        signal: AbortSignal.timeout(30_000),
      })
        .then((r) => r.body?.cancel())
        .catch(() => undefined);
    }, CRON_EVERY_MS);
    closers.push(async () => clearInterval(cron));

    // The other account tracks a box now, so that h finds its container (another account's id in a URL).
    await fetch(`${origin}/v2/tracking_requests`, {
      method: "POST",
      headers: { Authorization: `Token ${otherApiKey}`, "Content-Type": "application/vnd.api+json" },
      body: JSON.stringify({
        data: {
          type: "tracking_request",
          attributes: {
            request_type: "container",
            request_number: OTHER_ACCOUNT_BOX.number,
            scac: OTHER_ACCOUNT_BOX.scac,
          },
        },
      }),
    }).then((r) => r.body?.cancel());

    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      // WebGL (the map) on the CPU: SwiftShader through ANGLE.
      args: [
        "--no-sandbox",
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    closers.push(() => browser.close());
    const { context, events, warnings, blocked } = await watchedContext(browser, origin);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);

    let current = null;
    const ctx = {
      origin,
      page,
      context,
      apiKey,
      email: USER_EMAIL,
      mail,
      receiverUrl: `http://127.0.0.1:${receiver.port}/hooks/dashboard-check`,
      deliveries,
      state: {},
      plantedToken,
      plantSession: () => context.addCookies([sessionCookie(plantedToken)]),
      // A second watched browser context signed in as the account's viewer; what its pages report joins `events`.
      viewerPage: async () => {
        const viewer = await watchedContext(browser, origin);
        closers.push(() => viewer.context.close());
        await viewer.context.addCookies([sessionCookie(viewerToken)]);
        const viewerPage = await viewer.context.newPage();
        return { page: viewerPage, events: viewer.events };
      },
      otherApiKey,
      note: (text) => current.notes.push(text),
      // A viewport screenshot with `top` scrolled to the top of the window (a section further down the page).
      screenshot: async (name, top) => {
        await top.evaluate((el) => el.scrollIntoView({ block: "start" }));
        await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), animations: "disabled" });
      },
      audit: async (name, options = {}) => {
        const audit = await auditPage(page, { name, dir: ARTIFACTS, events, ...options });
        current.audits.push(...audit.failures.map((f) => `${name}: ${f}`));
        if (audit.notes.length > 0) current.notes.push(`${name}: ${audit.notes.join("; ")}`);
      },
      // The same audit of a page of another context (the viewer's), with that context's events.
      auditWith: async (otherPage, otherEvents, name) => {
        const audit = await auditPage(otherPage, { name, dir: ARTIFACTS, events: otherEvents });
        current.audits.push(...audit.failures.map((f) => `${name}: ${f}`));
      },
      api: async (method, path, body, key = apiKey) => {
        const res = await fetch(`${origin}${path}`, {
          method,
          headers: {
            Authorization: `Token ${key}`,
            ...(body ? { "Content-Type": "application/vnd.api+json" } : {}),
          },
          body: body ? JSON.stringify(body) : undefined,
        });
        const text = await res.text();
        let parsed = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
        return { status: res.status, body: parsed };
      },
    };
    for (const step of PLAN.filter((p) => only === null || only.has(p.id) || p.id === "a" || p.id === "b")) {
      if (only !== null && !only.has(step.id)) {
        // Not asked for: only what later scenarios need from it (a session, tracked boxes), through the fallbacks.
        if (step.id === "a") await context.addCookies([sessionCookie(seededToken)]);
        if (step.id === "b" && [...only].some((id) => id.startsWith("c") || id === "d"))
          await scenarios.trackThroughApi(ctx);
        continue;
      }
      running.id = step.id;
      current = { ...step, ok: false, error: null, audits: [], notes: [], ms: 0 };
      results.push(current);
      const started = Date.now();
      try {
        await step.run(ctx);
        current.ok = true;
      } catch (err) {
        current.error = err?.message ?? String(err);
        await page.screenshot({ path: join(ARTIFACTS, `failed-${step.id}.png`) }).catch(() => undefined);
      }
      current.ms = Date.now() - started;
      // What the pages reported after the scenario's last audit belongs to it too.
      current.audits.push(...events.splice(0));
      current.notes.push(...[...new Set(warnings.splice(0))].slice(0, 5));
      if (step.id === "a" && !current.ok) {
        await context.addCookies([sessionCookie(seededToken)]);
        current.notes.push("fallback: b–h run on a session seeded in D1");
      }
      if (step.id === "b" && !current.ok) {
        try {
          await scenarios.trackThroughApi(ctx);
          current.notes.push("fallback: the ten boxes tracked through POST /v2/tracking_requests for c and d");
        } catch (err) {
          current.notes.push(`fallback failed: ${err.message}`);
        }
      }
      printResult(current);
    }
    notes.push(
      `axe-core ${AUDIT_STATS.axeVersion} on ${AUDIT_STATS.pages} pages ` +
        `(${Math.round(AUDIT_STATS.rulesPassed / Math.max(1, AUDIT_STATS.pages))} rules passed a page on average); ` +
        `requests to other origins: ${blocked.length}; receiver: ${receiver.stats.accepted} deliveries verified`,
    );
    if (docsScreenshots) copyDocsScreenshots(results);
    // The Worker's own errors, for a failed run (the log goes with the temporary state).
    if (results.some((r) => !r.ok || r.audits.length > 0)) {
      const errors = tail(worker.logFile, 400)
        .split("\n")
        .filter((line) => /error|exception|uncaught/i.test(line));
      if (errors.length > 0) notes.push(`wrangler log, last error lines:\n    ${errors.slice(-8).join("\n    ")}`);
    }
    return { results, notes };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}

function copyDocsScreenshots(results) {
  if (results.some((r) => !r.ok || r.audits.length > 0)) {
    console.log("  --docs-screenshots: not copied (a scenario failed)");
    return;
  }
  const dir = join(ROOT, "docs", "screenshots");
  mkdirSync(dir, { recursive: true });
  for (const name of DOCS_SCREENSHOTS)
    copyFileSync(join(ARTIFACTS, `${name}.png`), join(dir, `dashboard-${name.slice(3)}.png`));
  console.log(`  docs/screenshots/: ${DOCS_SCREENSHOTS.length} screenshots refreshed`);
}

/** Whether a scenario passed: it ran to its end and its pages' audits found nothing. */
function passed(result) {
  return result.ok && result.audits.length === 0;
}

/** Prints one scenario's outcome as soon as it is known (a stopped run still shows what it got through). */
function printResult(r) {
  console.log(`${passed(r) ? "✓" : "✗"} ${r.id}. ${r.title} (${(r.ms / 1000).toFixed(0)} s)`);
  if (r.error) console.log(`    failed: ${r.error}`);
  for (const audit of r.audits) console.log(`    audit: ${audit}`);
  for (const note of r.notes) console.log(`    ${note}`);
}

async function main() {
  const { values } = parseArgs({
    options: { "docs-screenshots": { type: "boolean", default: false }, only: { type: "string" } },
  });
  const only = values.only ? new Set(values.only.split(",").map((id) => id.trim())) : null;
  if (!existsSync(CHROMIUM_PATH)) {
    console.error(`check:dashboard needs Chromium at ${CHROMIUM_PATH} (Debian: apt-get install -y chromium).`);
    return 2;
  }
  console.log("check:dashboard: the dashboard in headless Chromium, network off");
  const watchdog = setTimeout(() => {
    console.error(
      `✗ check:dashboard: still running after ${LIMIT_MS / 60_000} min (scenario ${running.id ?? "setup"}); stopped`,
    );
    process.exit(1);
  }, LIMIT_MS);
  watchdog.unref();
  const { results, notes } = await run({ docsScreenshots: values["docs-screenshots"] && only === null, only });
  const failed = results.filter((r) => !passed(r)).length;
  for (const note of notes) console.log(`  ${note}`);
  console.log(`  screenshots: ${ARTIFACTS}`);
  console.log(`check:dashboard: ${results.length - failed} of ${results.length} scenarios passed`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`check:dashboard: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
