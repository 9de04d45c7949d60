#!/usr/bin/env node
// `npm run check:docs`: the API reference page (/docs) checked in a real browser with the network off (issue 11 §4).
//
// Starts a throwaway `wrangler dev` (free 127.0.0.1 port, temporary state; scripts/lib/local-worker.mjs), opens
// /docs in headless Chromium (Debian package `chromium`, driven by playwright-core) with every request that is not
// to that server aborted, and passes only when
//   1. /docs answers 200 with the security headers (Content-Security-Policy without any third-party origin,
//      X-Content-Type-Options, Referrer-Policy, frame-ancestors 'none'), and the script it loads is served from
//      the Worker's static assets as JavaScript with X-Content-Type-Options: nosniff;
//   2. the page shows every tag of /v2/openapi.json and the first tag's first operation, and clicking OPENED_TAGS
//      other tags shows each one's first operation: Scalar loaded from the Worker's own assets and rendered the
//      document;
//   3. "Test Request" on the first operation, then "Send", reaches the service itself (no request proxy), the
//      page being opened under a non-local host name (BROWSER_HOST, mapped to 127.0.0.1 inside Chromium) because
//      Scalar never proxies requests to localhost anyway;
//   4. the browser reported no Content-Security-Policy violation (the policy and the page agree);
//   5. no request left for another origin (the page needs nothing from the network to work).
//
//   npm run check:docs                          the check
//   npm run check:docs -- --screenshot out.png  also saves a full-page screenshot
//
// Environment: CHROMIUM_PATH (default /usr/bin/chromium). Exits 1 when a check fails, 2 when Chromium is missing.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { startLocalWorker, tail } from "./lib/local-worker.mjs";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
/** How many tags besides the first the check opens in the sidebar, each showing its first operation. */
const OPENED_TAGS = 5;
/** Milliseconds for the first render; Scalar parses the whole OpenAPI document in the page. */
const RENDER_TIMEOUT_MS = 60_000;
/** Milliseconds for an operation to show after its tag is clicked, or for "Test Request" to get its answer. */
const CLICK_TIMEOUT_MS = 10_000;
/** The page's host name in the browser, resolved to the local Worker by Chromium (`.test` is reserved, RFC 2606). */
const BROWSER_HOST = "docs-check.test";

/** Headers /docs must carry, each with a test of its value. */
const REQUIRED_HEADERS = {
  "content-security-policy": (value) =>
    /frame-ancestors 'none'/.test(value) && /script-src 'self'(;|$)/.test(value) && !/https?:|\*/.test(value),
  "x-content-type-options": (value) => value === "nosniff",
  "referrer-policy": (value) => value === "no-referrer",
};

/** Each tag of an OpenAPI document with its first operation (summary, method, path), in document order. */
function tagsWithFirstOperation(document) {
  const byTag = new Map();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation?.tags?.[0];
      if (typeof operation?.summary !== "string" || tag === undefined || byTag.has(tag)) continue;
      byTag.set(tag, { tag, summary: operation.summary, method: method.toUpperCase(), path });
    }
  }
  return [...byTag.values()];
}

/** Waits until every string of `texts` is in the page's rendered text; returns those still missing at the timeout. */
async function waitForTexts(page, texts, timeoutMs) {
  try {
    await page.waitForFunction(
      // biome-ignore lint/performance/useDomNodeTextContent: rendered text on purpose (what a reader sees)
      (expected) => expected.every((text) => document.body.innerText.includes(text)),
      texts,
      { timeout: timeoutMs, polling: 250 },
    );
    return [];
  } catch {
    // biome-ignore lint/performance/useDomNodeTextContent: rendered text on purpose (what a reader sees)
    const rendered = await page.evaluate(() => document.body.innerText);
    return texts.filter((text) => !rendered.includes(text));
  }
}

async function checkPage(origin, { screenshot }) {
  const failures = [];
  const docsResponse = await fetch(`${origin}/docs`);
  const html = await docsResponse.text();
  if (docsResponse.status !== 200) failures.push(`GET /docs answered ${docsResponse.status}`);
  for (const [name, ok] of Object.entries(REQUIRED_HEADERS)) {
    const value = docsResponse.headers.get(name);
    if (value === null || !ok(value)) failures.push(`GET /docs header ${name}: ${value ?? "(missing)"}`);
  }
  // The Scalar build, as Workers static assets serve it (public/_headers).
  const scriptPath = /<script src="([^"]+)"/.exec(html)?.[1];
  if (scriptPath === undefined) failures.push("GET /docs: no <script src>");
  else {
    const asset = await fetch(new URL(scriptPath, origin));
    const size = (await asset.arrayBuffer()).byteLength;
    const type = asset.headers.get("content-type") ?? "";
    const nosniff = asset.headers.get("x-content-type-options");
    if (asset.status !== 200 || !/javascript/.test(type) || nosniff !== "nosniff")
      failures.push(`GET ${scriptPath}: ${asset.status}, content-type ${type}, x-content-type-options ${nosniff}`);
    else console.log(`  ${scriptPath}: ${size} bytes, ${type}, cache-control ${asset.headers.get("cache-control")}`);
  }
  const openapi = await (await fetch(`${origin}/v2/openapi.json`)).json();
  const tags = tagsWithFirstOperation(openapi);
  if (tags.length < 3) failures.push(`only ${tags.length} tags in /v2/openapi.json`);

  // launch() gives the browser a fresh temporary profile (--user-data-dir) and removes it on close.
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--host-resolver-rules=MAP ${BROWSER_HOST} 127.0.0.1`,
    ],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const pageOrigin = `http://${BROWSER_HOST}:${new URL(origin).port}`;
    const { host } = new URL(pageOrigin);
    const blocked = [];
    // The network is off for the page: only the local Worker answers; everything else is aborted and recorded.
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.host === host || url.protocol === "data:" || url.protocol === "blob:") return route.continue();
      blocked.push(url.href);
      return route.abort("internetdisconnected");
    });
    const page = await context.newPage();
    const cspViolations = [];
    const pageErrors = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    const started = Date.now();
    await page.goto(`${pageOrigin}/docs`, { waitUntil: "load" });
    // Scalar opens the first tag; the others are listed by name in the sidebar and open when clicked.
    const [first, ...others] = tags;
    const expected = [...tags.map(({ tag }) => tag), ...(first ? [first.summary] : [])];
    const missing = await waitForTexts(page, expected, RENDER_TIMEOUT_MS);
    const renderMs = Date.now() - started;
    if (missing.length > 0) failures.push(`not rendered within ${RENDER_TIMEOUT_MS / 1000} s: ${missing.join(" | ")}`);
    else console.log(`  rendered the sidebar (${tags.length} tags) and "${first?.summary}" in ${renderMs} ms`);
    const opened = [];
    for (const { tag, summary } of missing.length > 0 ? [] : others.slice(0, OPENED_TAGS)) {
      await page.getByText(tag, { exact: true }).first().click();
      const notShown = await waitForTexts(page, [summary], CLICK_TIMEOUT_MS);
      if (notShown.length > 0) failures.push(`tag "${tag}" opened, but its operation "${summary}" did not show`);
      else opened.push(summary);
    }
    if (opened.length > 0) console.log(`  opened ${opened.length} more tags: ${opened.join(" | ")}`);
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: false });
    if (first && missing.length === 0) {
      const answered = page.waitForResponse(
        (response) =>
          new URL(response.url()).pathname.endsWith(first.path) && response.request().method() === first.method,
        { timeout: CLICK_TIMEOUT_MS },
      );
      answered.catch(() => undefined);
      try {
        await page
          .getByRole("button", { name: /Test Request/ })
          .first()
          .click({ timeout: CLICK_TIMEOUT_MS });
        await page.getByRole("button", { name: /^Send/ }).first().click({ timeout: CLICK_TIMEOUT_MS });
        const response = await answered;
        console.log(`  "Test Request" → Send: ${first.method} ${response.url()} answered ${response.status()}`);
      } catch (err) {
        failures.push(`"Test Request" on "${first.summary}" did not reach ${first.method} ${first.path}: ${err}`);
      }
    }
    for (const text of cspViolations) failures.push(`CSP violation: ${text}`);
    for (const text of pageErrors) failures.push(`page error: ${text}`);
    for (const url of [...new Set(blocked)]) failures.push(`request to another origin: ${url}`);
  } finally {
    await browser.close();
  }
  return failures;
}

async function main() {
  const { values } = parseArgs({ options: { screenshot: { type: "string" } } });
  if (!existsSync(CHROMIUM_PATH)) {
    console.error(
      `check:docs needs Chromium at ${CHROMIUM_PATH} (Debian: apt-get install -y chromium; or set CHROMIUM_PATH).`,
    );
    return 2;
  }
  const screenshot = values.screenshot ? resolve(values.screenshot) : undefined;
  console.log("check:docs: /docs in headless Chromium, network off");
  const worker = await startLocalWorker({ log: (line) => console.log(line) });
  let failures;
  try {
    failures = await checkPage(worker.origin, { screenshot });
  } catch (err) {
    failures = [`${err?.stack ?? err}\n${tail(worker.logFile)}`];
  } finally {
    await worker.stop();
  }
  if (screenshot) console.log(`  screenshot: ${screenshot}`);
  if (failures.length > 0) {
    for (const failure of failures) console.error(`✗ ${failure}`);
    return 1;
  }
  console.log("✓ /docs renders offline under its Content-Security-Policy");
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`check:docs: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
