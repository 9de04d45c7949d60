// What the scenarios of `npm run check:dashboard` share: the context they get and small page helpers.
import { readFileSync } from "node:fs";

/** Milliseconds for a page element to appear after an action. */
export const STEP_MS = 15_000;

/**
 * What a scenario gets.
 * @typedef {{ origin: string, page: import("playwright-core").Page, context: import("playwright-core").BrowserContext,
 *   apiKey: string, email: string, mail: Awaited<ReturnType<typeof import("./mail-store.mjs").startMailStore>>,
 *   receiverUrl: string, deliveries: { event: string, receivedAt: number }[],
 *   audit: (name: string, options?: { controls?: import("playwright-core").Locator[], keyboard?: boolean }) =>
 *     Promise<void>,
 *   screenshot: (name: string, top: import("playwright-core").Locator) => Promise<void>,
 *   auditWith: (page: import("playwright-core").Page, events: string[], name: string) => Promise<void>,
 *   viewerPage: () => Promise<{ page: import("playwright-core").Page, events: string[] }>, otherApiKey: string,
 *   note: (text: string) => void, state: Record<string, unknown>, plantSession: () => Promise<void>,
 *   plantedToken: string,
 *   api: (method: string, path: string, body?: unknown, key?: string) => Promise<{ status: number, body: any }> }} Ctx
 */

/** Navigates to `path` and fails with what came back unless it is a 200 page at that path (after redirects). */
export async function open(page, origin, path) {
  const response = await page.goto(`${origin}${path}`, { waitUntil: "load" });
  const status = response?.status() ?? 0;
  const at = new URL(page.url());
  if (status !== 200) throw new Error(`GET ${path} answered ${status}${await headingOf(page)}`);
  const wanted = new URL(path, origin).pathname;
  if (at.pathname !== wanted)
    throw new Error(`GET ${path} ended on ${at.pathname}${at.search}${await headingOf(page)}`);
  return response;
}

/** The rendered text of the page's `<main>` (what a reader sees, hidden elements left out). */
export function mainText(page) {
  // biome-ignore lint/performance/useDomNodeTextContent: rendered text on purpose (what a reader sees)
  return page.locator("main").innerText();
}

/** ` ("<h1 text>")` of the page, for failure messages. */
export async function headingOf(page) {
  const h1 = await page
    .locator("h1")
    .first()
    .textContent({ timeout: 1000 })
    .catch(() => null);
  return h1 ? ` ("${h1.trim().slice(0, 80)}")` : "";
}

/** Waits for a download started by `action`; returns its text. */
export async function downloadText(page, action) {
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: STEP_MS }), action()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: readFileSync(path, "utf8") };
}
