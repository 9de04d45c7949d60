// What `npm run check:dashboard` checks on every page it visits (issue 28 §Tests and figures), in headless Chromium
// driven by playwright-core:
//   - the network is off: every request that is not to the local Worker is aborted and counted (0 expected);
//   - no dialog (an XSS payload's alert() running), no Content-Security-Policy violation (`securitypolicyviolation` events, reported through a binding that an
//     init script registers before any page script runs), no console error, no uncaught page error;
//   - axe-core finds no serious or critical violation. axe runs under the page's real CSP, no `bypassCSP`: its source
//     is evaluated through the DevTools protocol (page.evaluate → Runtime.evaluate), which a page's CSP does not
//     govern, so the page is audited exactly as a user gets it and axe adds no <script> of its own;
//   - the keyboard: from the start of the document the first Tab stop is the skip link, it is visible and shows a
//     focus indicator, and Tab then reaches each of the page's main controls, each with a visible focus indicator;
//   - a viewport screenshot (1280×800) into the artefacts folder.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);

/** Impact levels of axe-core that fail the check. */
const FAILING_IMPACTS = new Set(["serious", "critical"]);
/** Most Tab presses spent looking for one control. */
const MAX_TABS = 120;

/** What the audits did, for the run's summary: pages audited, axe rules passed (summed over pages), axe's version. */
export const AUDIT_STATS = { pages: 0, rulesPassed: 0, axeVersion: "" };

let axeSource;
/** The axe-core build (node_modules/axe-core/axe.min.js), read once. */
function axeScript() {
  axeSource ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  return axeSource;
}

/**
 * A browser context whose pages are watched: requests to anything but `origin` aborted and recorded, CSP violations,
 * console errors and page errors recorded with the page's path. Failures accumulate in `events` until an audit (or the
 * end of the run) takes them; console warnings go to `warnings` (printed, not failures).
 * @param {import("playwright-core").Browser} browser
 * @param {string} origin e.g. `http://127.0.0.1:40123`
 * @param {{ viewport?: { width: number, height: number } }} [options]
 * @returns {Promise<{ context: import("playwright-core").BrowserContext, events: string[], warnings: string[],
 *   blocked: string[] }>}
 */
export async function watchedContext(browser, origin, { viewport = { width: 1280, height: 800 } } = {}) {
  const context = await browser.newContext({ viewport, acceptDownloads: true, locale: "en-US" });
  const { host } = new URL(origin);
  const events = [];
  const warnings = [];
  const blocked = [];
  const where = (url) => {
    try {
      const u = new URL(url);
      return u.host === host ? `${u.pathname}${u.search}` : url;
    } catch {
      return url;
    }
  };
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.host === host || url.protocol === "data:" || url.protocol === "blob:") return route.continue();
    blocked.push(url.href);
    events.push(`request to another origin aborted: ${url.href}`);
    return route.abort("internetdisconnected");
  });
  await context.exposeBinding("__reportCspViolation", ({ page }, violation) => {
    events.push(
      `CSP violation on ${where(page.url())}: ${violation.directive} blocked ${violation.blocked || "(inline)"}` +
        `${violation.source ? ` at ${where(violation.source)}:${violation.line}` : ""}` +
        `${violation.sample ? ` "${violation.sample}"` : ""}`,
    );
  });
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      window.__reportCspViolation({
        directive: e.effectiveDirective || e.violatedDirective,
        blocked: e.blockedURI,
        source: e.sourceFile,
        line: e.lineNumber,
        sample: e.sample,
      });
    });
  });
  context.on("page", (page) => {
    page.on("console", (message) => {
      if (message.type() === "warning") warnings.push(`console warning on ${where(page.url())}: ${message.text()}`);
      if (message.type() !== "error") return;
      // A page's own status (a 404 the check navigated to) is judged by the scenario that opened it.
      if (/^Failed to load resource/.test(message.text()) && message.location().url === page.url()) return;
      events.push(`console error on ${where(page.url())}: ${message.text()}`);
    });
    page.on("pageerror", (error) => events.push(`page error on ${where(page.url())}: ${error.message}`));
    // A dialog would be injected script running (the XSS payloads the check stores call alert()).
    page.on("dialog", (dialog) => {
      events.push(`a ${dialog.type()} dialog opened on ${where(page.url())}: "${dialog.message()}"`);
      dialog.dismiss().catch(() => undefined);
    });
  });
  return { context, events, warnings, blocked };
}

/** Runs axe-core in the page; returns the serious and critical violations, one line each, and the others' count. */
async function axeViolations(page) {
  const defined = await page.evaluate(() => typeof window.axe === "object");
  if (!defined) await page.evaluate(axeScript());
  const result = await page.evaluate(async () => {
    const report = await window.axe.run(document, { resultTypes: ["violations"] });
    const violations = report.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
      count: v.nodes.length,
    }));
    return { violations, passed: report.passes.length, version: window.axe.version };
  });
  AUDIT_STATS.pages++;
  AUDIT_STATS.rulesPassed += result.passed;
  AUDIT_STATS.axeVersion = result.version;
  const failing = result.violations.filter((v) => FAILING_IMPACTS.has(v.impact));
  return {
    failing: failing.map((v) => `axe ${v.impact} ${v.id} (${v.help}) ×${v.count}: ${v.targets.join(" | ")}`),
    others: result.violations.filter((v) => !FAILING_IMPACTS.has(v.impact)).map((v) => `${v.impact} ${v.id}`),
  };
}

/** What the focused element is and whether it shows a focus indicator (outline or box-shadow) and is on screen. */
function describeFocus(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    const rect = el.getBoundingClientRect();
    const outline = style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0;
    const shadow = style.boxShadow !== "none" && style.boxShadow !== "";
    return {
      tag: el.tagName.toLowerCase(),
      text: (el.getAttribute("aria-label") || el.textContent || el.getAttribute("name") || "").trim().slice(0, 40),
      href: el.getAttribute("href"),
      focusVisible: el.matches(":focus-visible"),
      indicator: outline || shadow,
      onScreen:
        rect.width > 0 &&
        rect.height > 0 &&
        rect.bottom > 0 &&
        rect.right > 0 &&
        rect.top < window.innerHeight &&
        rect.left < window.innerWidth,
    };
  });
}

/**
 * The keyboard check: the skip link is the first Tab stop from the start of the document, then Tab reaches each of
 * `controls` in turn. Returns failures.
 * @param {import("playwright-core").Page} page
 * @param {import("playwright-core").Locator[]} controls
 */
async function keyboardFailures(page, controls) {
  const failures = [];
  // Focus the document's start (the body, made focusable for a moment) so the next Tab goes to the first stop.
  await page.evaluate(() => {
    document.body.setAttribute("tabindex", "-1");
    document.body.focus();
    document.body.removeAttribute("tabindex");
  });
  await page.keyboard.press("Tab");
  const first = await describeFocus(page);
  if (first === null || first.href !== "#main" || !/skip/i.test(first.text))
    failures.push(
      `keyboard: the first Tab stop is ${first ? `<${first.tag}> "${first.text}"` : "nothing"}, not the skip link`,
    );
  else if (!first.focusVisible || !first.indicator || !first.onScreen)
    failures.push(
      `keyboard: the focused skip link is ${first.onScreen ? "on screen" : "off screen"}, ` +
        `${first.indicator ? "with" : "without"} a focus indicator`,
    );
  for (const control of controls) {
    const name = control.toString();
    // A control missing from the page is a failure at once (and no Tab walk waits for it to appear).
    if ((await control.count()) === 0) {
      failures.push(`keyboard: ${name} is not on the page`);
      continue;
    }
    let reached = false;
    for (let i = 0; i < MAX_TABS && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await control
        .evaluate((el) => el === document.activeElement, undefined, { timeout: 1000 })
        .catch(() => false);
    }
    if (!reached) {
      failures.push(`keyboard: Tab never reached ${name}`);
      continue;
    }
    const focus = await describeFocus(page);
    if (!focus?.indicator) failures.push(`keyboard: ${name} has no visible focus indicator`);
  }
  return failures;
}

/**
 * Audits the page as it is now: collected network/CSP/console events since the last audit, axe-core, the keyboard
 * check, and a screenshot `<dir>/<name>.png`. Returns the failures (empty: the page passed) and notes.
 * @param {import("playwright-core").Page} page
 * @param {{ name: string, dir: string, events: string[], controls?: import("playwright-core").Locator[],
 *   keyboard?: boolean }} options `controls`: the page's main controls that Tab must reach; `keyboard: false` skips
 *   the keyboard check (a page that is only passed through)
 * @returns {Promise<{ failures: string[], notes: string[], screenshot: string }>}
 */
export async function auditPage(page, { name, dir, events, controls = [], keyboard = true }) {
  const failures = [];
  const notes = [];
  await page.waitForLoadState("load");
  const screenshot = join(dir, `${name}.png`);
  // The top of the page, as a person arriving sees it.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: screenshot, animations: "disabled" });
  const axe = await axeViolations(page);
  failures.push(...axe.failing);
  if (axe.others.length > 0) notes.push(`axe (moderate/minor): ${axe.others.join(", ")}`);
  if (keyboard) failures.push(...(await keyboardFailures(page, controls)));
  failures.push(...events.splice(0));
  return { failures, notes, screenshot };
}
