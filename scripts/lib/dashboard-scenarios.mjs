// The scenarios of `npm run check:dashboard` (issue 28 §Tests and figures), run in order in one signed-in browser
// page by scripts/check-dashboard.mjs. Each one throws an Error saying what it saw when it fails; page audits
// (scripts/lib/page-audit.mjs) add their failures through `ctx.audit` without stopping the scenario.
import { readFileSync } from "node:fs";
import { findKey, parseCsv, readTable, TRACKED_BOXES, trackUploadCsv } from "./dashboard-fixtures.mjs";

/** Milliseconds for a page element to appear after an action. */
const STEP_MS = 15_000;
/** Milliseconds for the bulk import to create its ten tracking requests. */
const IMPORT_MS = 90_000;
/** Milliseconds to wait for a simulator box to show "available" with an LFD, without reloading. */
const AVAILABLE_MS = 150_000;
/** Milliseconds for a test delivery to show on the webhook's page and at the receiver. */
const DELIVERY_MS = 30_000;

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
 *   note: (text: string) => void, state: Record<string, unknown>, useSeededSession: () => Promise<void>,
 *   api: (method: string, path: string, body?: unknown, key?: string) => Promise<{ status: number, body: any }> }} Ctx
 */

/** Navigates to `path` and fails with what came back unless it is a 200 page at that path (after redirects). */
async function open(page, origin, path) {
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
function mainText(page) {
  // biome-ignore lint/performance/useDomNodeTextContent: rendered text on purpose (what a reader sees)
  return page.locator("main").innerText();
}

/** ` ("<h1 text>")` of the page, for failure messages. */
async function headingOf(page) {
  const h1 = await page
    .locator("h1")
    .first()
    .textContent({ timeout: 1000 })
    .catch(() => null);
  return h1 ? ` ("${h1.trim().slice(0, 80)}")` : "";
}

/** Waits for a download started by `action`; returns its text. */
async function downloadText(page, action) {
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: STEP_MS }), action()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: readFileSync(path, "utf8") };
}

/** a. Sign in through the e-mailed link; the session cookie is `__Host-`, HttpOnly, Secure, SameSite=Lax. */
export async function signIn(ctx) {
  const { page, origin, email } = ctx;
  // Session fixation: a session token planted in the browser before sign-in must not be the session after it.
  await ctx.plantSession();
  await open(page, origin, "/sign-in");
  const address = page.getByLabel(/e-?mail/i);
  const send = page.getByRole("button", { name: /sign in|send|continue|e-?mail me/i });
  await ctx.audit("01-sign-in", { controls: [address, send] });
  await address.fill(email);
  await send.click();
  await page.waitForURL((url) => url.pathname === "/sign-in/sent", { timeout: STEP_MS });
  await ctx.audit("02-sign-in-sent");
  const mail = await ctx.mail.waitFor((m) => m.to.includes(email), STEP_MS);
  const link = /https?:\/\/[^\s"'<>]+\/sign-in\/link\?token=[^\s"'<>]+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`the sign-in e-mail ("${mail.subject}") has no /sign-in/link?token= link`);
  if (new URL(link).origin !== origin) throw new Error(`the e-mailed link points to ${new URL(link).origin}`);
  await page.goto(link, { waitUntil: "load" });
  const confirm = page.getByRole("button", { name: /^sign in/i });
  await confirm.waitFor({ timeout: STEP_MS });
  await ctx.audit("03-sign-in-link", { controls: [confirm] });
  await confirm.click();
  await page.waitForURL((url) => url.pathname === "/app/containers", { timeout: STEP_MS });
  const cookie = (await ctx.context.cookies(origin)).find((c) => c.name === "__Host-session");
  if (!cookie) throw new Error("signed in, but the browser holds no __Host-session cookie");
  const flags = `${cookie.httpOnly ? "HttpOnly" : "no HttpOnly"}, ${cookie.secure ? "Secure" : "no Secure"}, SameSite=${cookie.sameSite}, path ${cookie.path}`;
  if (!cookie.httpOnly || !cookie.secure || cookie.sameSite !== "Lax" || cookie.path !== "/")
    throw new Error(`__Host-session cookie flags: ${flags}`);
  if (cookie.value === ctx.plantedToken)
    throw new Error("session fixation: the planted session token is still the session");
  const planted = await fetch(`${origin}/app/containers`, {
    headers: { Cookie: `__Host-session=${ctx.plantedToken}` },
    redirect: "manual",
  });
  await planted.body?.cancel();
  if (planted.status !== 303) throw new Error(`the planted session still answers ${planted.status} after sign-in`);
  // The link is one use: in a browser without the session, opening it again and pressing "Sign in" is refused.
  const replay = await ctx.context.browser().newContext();
  let replayStatus;
  try {
    const other = await replay.newPage();
    const shown = await other.goto(link, { waitUntil: "load" });
    replayStatus = shown?.status() ?? 0;
    const button = other.getByRole("button", { name: /^sign in/i });
    if (replayStatus < 400 && (await button.count()) > 0) {
      const [answer] = await Promise.all([other.waitForNavigation(), button.click()]);
      replayStatus = answer?.status() ?? 0;
    }
  } finally {
    await replay.close();
  }
  if (replayStatus < 400) throw new Error(`the used sign-in link signed in again (${replayStatus})`);
  ctx.note(
    `e-mail "${mail.subject}" to ${email}; cookie ${flags}; a planted session replaced and refused; ` +
      `the used link answers ${replayStatus}`,
  );
}

/** b. Track: a 12-row CSV with two bad rows → preview with both explained → create → "10 created"; results CSV. */
export async function trackUpload(ctx) {
  const { page, origin } = ctx;
  const upload = trackUploadCsv();
  await open(page, origin, "/app/track");
  const file = page.getByLabel(/file|csv|spreadsheet|upload/i).and(page.locator("input[type=file]"));
  const submitFile = page.getByRole("button", { name: /upload|preview|check|validate/i });
  await ctx.audit("04-track", { controls: [file, submitFile] });
  await file.setInputFiles({ name: "boxes.csv", mimeType: "text/csv", buffer: Buffer.from(upload.csv) });
  await submitFile.click();
  const create = page.getByRole("button", { name: new RegExp(`create ${upload.valid}\\b`, "i") });
  await create.waitFor({ timeout: STEP_MS }).catch(async () => {
    throw new Error(`no "Create ${upload.valid} …" button after the upload${await headingOf(page)}`);
  });
  const previewText = await mainText(page);
  for (const bad of upload.badRows) {
    if (!previewText.includes(bad.number) || !bad.reason.test(previewText))
      throw new Error(`the preview does not explain row ${bad.row} (${bad.number}, ${bad.reason})`);
  }
  await ctx.audit("05-track-preview", { controls: [create] });
  await create.click();
  // The create bucket holds fewer than ten (check-dashboard.mjs CREATES_PER_MINUTE): the import runs a while.
  const sawProgress = await page
    .getByRole("progressbar")
    .first()
    .waitFor({ timeout: STEP_MS })
    .then(() => true)
    .catch(() => false);
  if (!sawProgress) throw new Error(`no progress bar after "Create ${upload.valid} …"${await headingOf(page)}`);
  await ctx.audit("05-track-progress", { keyboard: false });
  const created = page.getByText(new RegExp(`\\b${upload.valid} (created|tracked)\\b`, "i"));
  await created
    .first()
    .waitFor({ timeout: IMPORT_MS })
    .catch(async () => {
      throw new Error(
        `no "${upload.valid} created" within ${IMPORT_MS / 1000} s; the page says: ${(await mainText(page)).slice(0, 300)}`,
      );
    });
  const resultText = await mainText(page);
  if (!/\b2 (invalid|not created|explained|rejected|failed)\b/i.test(resultText))
    throw new Error("the results do not say the two bad rows were not created");
  await ctx.audit("06-track-results");
  const results = await downloadText(page, () =>
    page
      .getByRole("link", { name: /download/i })
      .first()
      .click(),
  );
  const records = parseCsv(results.text);
  const keys = Object.keys(records[0] ?? {});
  const outcomeKey = findKey(keys, /^outcome$/i) ?? findKey(keys, /outcome|result|status/i);
  if (records.length !== upload.rows || !outcomeKey)
    throw new Error(`results CSV ${results.name}: ${records.length} rows, columns ${keys.join(",")}`);
  const createdRows = records.filter((r) => /created/i.test(r[outcomeKey])).length;
  if (createdRows !== upload.valid) throw new Error(`results CSV: ${createdRows} rows "created", not ${upload.valid}`);
  ctx.state.tracked = true;
  ctx.note(`${upload.valid} created, 2 explained; a progress bar while it ran; ${results.name} ${records.length} rows`);
}

/** When the upload did not work: the same ten boxes through POST /v2/tracking_requests, so c and d can still run. */
export async function trackThroughApi(ctx) {
  for (const box of TRACKED_BOXES) {
    const answer = await ctx.api("POST", "/v2/tracking_requests", {
      data: {
        type: "tracking_request",
        attributes: { request_type: "container", request_number: box.number, scac: box.scac },
      },
    });
    // 429: the create bucket is smaller than ten (CREATES_PER_MINUTE); nine boxes are enough to watch.
    if (![200, 201, 422, 429].includes(answer.status))
      throw new Error(`POST /v2/tracking_requests ${box.number} answered ${answer.status}`);
  }
}

/** c. A simulator box reaches "available" with its LFD on /app/containers without a reload; then its page. */
export async function watchAvailable(ctx) {
  const { page, origin } = ctx;
  await open(page, origin, "/app/containers");
  await ctx.audit("07-containers", { controls: [page.getByRole("link", { name: /export|csv/i }).first()] });
  await page.evaluate(() => {
    window.__sameDocument = true;
  });
  let navigations = 0;
  const onNavigate = (frame) => {
    if (frame === page.mainFrame()) navigations++;
  };
  page.on("framenavigated", onNavigate);
  const started = Date.now();
  let found = null;
  let last = null;
  /** Boxes already available with an LFD when the page loaded: seeing them proves no live update. */
  let atLoad = null;
  while (!found && Date.now() - started < AVAILABLE_MS) {
    last = await readTable(page);
    if (last) {
      const statusKey = findKey(last.headers, /status/i);
      const lfdKey = findKey(last.headers, /last free|lfd/i);
      const numberKey = findKey(last.headers, /number|container/i);
      if (!statusKey || !lfdKey || !numberKey) throw new Error(`containers table columns: ${last.headers.join(" | ")}`);
      const available = last.rows
        .filter((r) => /^available\b/i.test(r.cells[statusKey]) && /\d/.test(r.cells[lfdKey]))
        .map((r) => ({ number: r.cells[numberKey], lfd: r.cells[lfdKey], href: r.links[numberKey] }));
      if (atLoad === null) {
        atLoad = new Set(available.map((b) => b.number));
        if (last.rows.length > 0 && atLoad.size === last.rows.length)
          throw new Error("every box was already available when the page loaded: no change left to watch");
      } else found = available.find((b) => !atLoad.has(b.number)) ?? null;
    }
    if (!found) await page.waitForTimeout(2000);
  }
  page.off("framenavigated", onNavigate);
  if (!found) {
    const statuses = last?.rows.map((r) => r.cells[findKey(last.headers, /status/i) ?? ""]).join(", ");
    throw new Error(
      `no box showed "available" with an LFD within ${AVAILABLE_MS / 1000} s (statuses: ${statuses || "no rows"})`,
    );
  }
  const sameDocument = await page.evaluate(() => window.__sameDocument === true);
  if (!sameDocument || navigations > 0) throw new Error("the page reloaded to show the change (no live update)");
  const announced = await page
    .getByRole("status")
    .allInnerTexts()
    .then((texts) => texts.join(" ").trim());
  ctx.note(
    `${found.number} turned available, LFD ${found.lfd}, after ${Math.round((Date.now() - started) / 1000)} s on the ` +
      `page (${atLoad.size} already were); the live region says "${announced || "nothing"}"`,
  );
  await ctx.audit("08-containers-available", { keyboard: false });
  if (!found.href) throw new Error(`${found.number}: its number is not a link to its page`);
  ctx.state.availableBox = found;
}

/**
 * c (continued). The page of the box c saw turn available (or, when the table failed, of one the API reports
 * available with an LFD): timeline, holds, the map's canvas, and a custom field value holding markup shown as text.
 */
export async function containerPage(ctx) {
  const { page, origin } = ctx;
  const found = ctx.state.availableBox ?? (await availableThroughApi(ctx));
  const xss = await storeXssPayloads(ctx, found.href.split("/").pop());
  await open(page, origin, found.href);
  // Shown as text, or as the value of its edit field: either way the markup stays characters.
  const shownText = await mainText(page);
  const fieldValues = await page.locator("main input, main textarea").evaluateAll((els) => els.map((el) => el.value));
  if (!shownText.includes(XSS_VALUE) && !fieldValues.includes(XSS_VALUE))
    throw new Error(`${found.href}: the custom field value ${xss.slug} is not shown, as text or in its field`);
  if (!shownText.includes(XSS_NAME)) throw new Error(`${found.href}: the custom field's name is not shown as text`);
  if ((await page.locator('main img[src="x"]').count()) > 0)
    throw new Error(`${found.href}: the custom field value became markup`);
  const timeline = page.getByRole("heading", { name: /timeline|milestones/i });
  const holds = page.getByRole("heading", { name: /holds/i });
  for (const [what, locator] of [
    ["timeline", timeline],
    ["holds", holds],
  ]) {
    if ((await locator.count()) === 0) throw new Error(`${found.href}: no ${what} heading${await headingOf(page)}`);
  }
  const canvas = page.locator("canvas").first();
  await canvas.waitFor({ timeout: STEP_MS }).catch(async () => {
    const section = page.locator("section", { has: page.getByRole("heading", { name: /map/i }) }).first();
    // biome-ignore lint/performance/useDomNodeTextContent: rendered text on purpose (what a reader sees)
    const said = await section.innerText({ timeout: 1000 }).catch(() => "no map section");
    throw new Error(`${found.href}: no map canvas; the map section says: ${said.replace(/\s+/g, " ").slice(0, 200)}`);
  });
  const box = await canvas.boundingBox();
  if (!box || box.width < 100 || box.height < 100)
    throw new Error(`${found.href}: the map canvas is ${box?.width}×${box?.height}`);
  // Give the map a moment to draw before the screenshot.
  await page.waitForTimeout(1500);
  await ctx.audit("09-container", { controls: [page.getByRole("link", { name: /containers/i }).first()] });
  await ctx.screenshot("09-container-map", page.getByRole("heading", { name: /map/i }).first());
  await ctx.screenshot("09-container-timeline", timeline.first());
}

/** When the table could not show it: a box the API reports available with an LFD, waited for as c would. */
async function availableThroughApi(ctx) {
  const deadline = Date.now() + AVAILABLE_MS;
  for (;;) {
    const answer = await ctx.api("GET", "/v2/containers?page[size]=100");
    const box = (answer.body?.data ?? []).find(
      (c) => c.attributes?.current_status === "available" && c.attributes?.pickup_lfd,
    );
    if (box) {
      ctx.note(`fallback: ${box.attributes.number} found available through GET /v2/containers`);
      return { number: box.attributes.number, href: `/app/containers/${box.id}` };
    }
    if (Date.now() > deadline)
      throw new Error(`no box available with an LFD in GET /v2/containers within ${AVAILABLE_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 3000));
  }
}

/** A custom field value written as markup: shown as text it is harmless; rendered as HTML it runs alert(). */
const XSS_VALUE = `"><img src=x onerror=alert(1)><script>alert(2)</script>`;
/** The custom field's display name, markup too. */
const XSS_NAME = "Note <script>alert(3)</script>";

/**
 * Through the API: a container custom field whose display name and value are XSS payloads, set on `containerId` (the
 * page must show them as text; a dialog or a CSP violation would mean they ran).
 */
async function storeXssPayloads(ctx, containerId) {
  const slug = "dashboard_check_note";
  const definition = await ctx.api("POST", "/v2/custom_field_definitions", {
    data: {
      type: "custom_field_definition",
      attributes: {
        entity_type: "Container",
        api_slug: slug,
        display_name: XSS_NAME,
        data_type: "short_text",
      },
    },
  });
  if (definition.status !== 201 && definition.status !== 422)
    throw new Error(`POST /v2/custom_field_definitions answered ${definition.status}`);
  const value = await ctx.api("POST", `/v2/containers/${containerId}/custom_fields`, {
    data: { type: "custom_field", attributes: { api_slug: slug, value: XSS_VALUE } },
  });
  if (value.status !== 201)
    throw new Error(`POST /v2/containers/${containerId}/custom_fields answered ${value.status}`);
  return { slug };
}

/** d. "Export CSV" of the containers table equals the API's list: same numbers, statuses and LFDs. */
export async function exportMatchesApi(ctx) {
  const { page, origin } = ctx;
  await open(page, origin, "/app/containers");
  const before = await apiContainers(ctx);
  const csv = await downloadText(page, () =>
    page
      .getByRole("link", { name: /export|csv/i })
      .first()
      .click(),
  );
  const after = await apiContainers(ctx);
  const records = parseCsv(csv.text);
  const keys = Object.keys(records[0] ?? {});
  const numberKey = findKey(keys, /^(number|container_number|container)$/i) ?? findKey(keys, /number/i);
  const statusKey = findKey(keys, /status/i);
  const lfdKey = findKey(keys, /lfd|last_free|last free/i);
  if (!numberKey || !statusKey || !lfdKey) throw new Error(`${csv.name} columns: ${keys.join(",")}`);
  const mismatches = [];
  const numbers = new Set(records.map((r) => r[numberKey]));
  for (const number of new Set([...before.keys(), ...after.keys()])) {
    if (!numbers.has(number) && after.has(number) && before.has(number))
      mismatches.push(`${number} missing from the CSV`);
  }
  for (const record of records) {
    const number = record[numberKey];
    const views = [before.get(number), after.get(number)].filter(Boolean);
    if (views.length === 0) {
      mismatches.push(`${number} in the CSV, not in the API`);
      continue;
    }
    // The simulator moves boxes between the reads: the CSV must agree with the API before or after it.
    if (!views.some((v) => v.status === record[statusKey]))
      mismatches.push(`${number} status ${record[statusKey]} vs API ${views.map((v) => v.status).join("/")}`);
    if (!views.some((v) => sameLfd(record[lfdKey], v)))
      mismatches.push(
        `${number} LFD ${record[lfdKey] || "(none)"} vs API ${views.map((v) => v.lfd ?? "null").join("/")}`,
      );
  }
  if (mismatches.length > 0) throw new Error(`${csv.name} vs GET /v2/containers: ${mismatches.slice(0, 6).join("; ")}`);
  ctx.note(`${csv.name}: ${records.length} rows equal the API's numbers, statuses and LFDs`);
}

/** The CSV's LFD equals the API's `pickup_lfd` (the same timestamp, or its date in the POD's zone / in UTC). */
function sameLfd(csvValue, view) {
  const value = (csvValue ?? "").trim();
  if (view.lfd === null) return value === "";
  if (value === view.lfd) return true;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value))
    return value === view.lfdLocal?.slice(0, 10) || value === view.lfd.slice(0, 10);
  return Date.parse(value) === Date.parse(view.lfd);
}

/** Every container of the account through the API: number → status, LFD. */
async function apiContainers(ctx) {
  const byNumber = new Map();
  for (let pageNumber = 1; pageNumber <= 20; pageNumber++) {
    const answer = await ctx.api("GET", `/v2/containers?page[size]=100&page[number]=${pageNumber}`);
    if (answer.status !== 200) throw new Error(`GET /v2/containers answered ${answer.status}`);
    for (const c of answer.body.data ?? []) {
      const a = c.attributes ?? {};
      byNumber.set(a.number, {
        status: a.current_status,
        lfd: a.pickup_lfd ?? null,
        lfdLocal: a.pickup_lfd_local ?? null,
      });
    }
    if ((answer.body.data ?? []).length < 100) break;
  }
  return byNumber;
}

/** e. Settings → Webhooks: create one to the local receiver, "Send test", the delivery shows on the page and arrives. */
export async function webhookTest(ctx) {
  const { page, origin } = ctx;
  await open(page, origin, "/app/settings/webhooks");
  const url = page.getByLabel(/url|endpoint/i).first();
  const create = page.getByRole("button", { name: /create|add/i }).first();
  await ctx.audit("10-webhooks", { controls: [url, create] });
  await url.fill(ctx.receiverUrl);
  const firstEvent = page.getByRole("checkbox").first();
  if ((await firstEvent.count()) > 0 && !(await firstEvent.isChecked())) await firstEvent.check();
  await create.click();
  await page.waitForLoadState("load");
  if (
    !(await page
      .getByText(ctx.receiverUrl)
      .first()
      .isVisible()
      .catch(() => false))
  )
    throw new Error(`after "Create" the page does not show ${ctx.receiverUrl}${await headingOf(page)}`);
  if (!/\/app\/settings\/webhooks\/[^/]+$/.test(new URL(page.url()).pathname)) {
    const link = page.locator('a[href^="/app/settings/webhooks/"]').first();
    if ((await link.count()) === 0) throw new Error("no link to the new webhook's page");
    await link.click();
    await page.waitForLoadState("load");
  }
  const sendTest = page.getByRole("button", { name: /send test/i });
  await sendTest.waitFor({ timeout: STEP_MS }).catch(async () => {
    throw new Error(`no "Send test" button on ${new URL(page.url()).pathname}${await headingOf(page)}`);
  });
  await ctx.audit("11-webhook", { controls: [sendTest] });
  const sentAt = Date.now();
  await sendTest.click();
  const arrived = await waitUntil(() => ctx.deliveries.some((d) => d.receivedAt >= sentAt), DELIVERY_MS);
  const shown = await page
    .getByText(/\b(delivered|succeeded|success|200)\b/i)
    .first()
    .waitFor({ timeout: DELIVERY_MS })
    .then(() => true)
    .catch(() => false);
  if (!arrived) throw new Error(`the receiver got no delivery within ${DELIVERY_MS / 1000} s of "Send test"`);
  if (!shown) throw new Error(`the webhook's page did not show the delivery's success within ${DELIVERY_MS / 1000} s`);
  await ctx.audit("12-webhook-tested", { keyboard: false });
  ctx.note(`test delivery ${ctx.deliveries.at(-1)?.event} verified at the receiver and shown on the page`);
}

async function waitUntil(test, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (test()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return test();
}

/** The other pages of the navigation render (200) and pass the audits. */
export async function otherPages(ctx) {
  const { page, origin } = ctx;
  const failures = [];
  const pages = [
    ["/app/settings/alerts", "13-alerts"],
    ["/app/settings/tariffs", "14-tariffs"],
    ["/app/settings/api-keys", "15-api-keys"],
    ["/app/settings/team", "16-team"],
  ];
  for (const [path, name] of pages) {
    try {
      await open(page, origin, path);
      await ctx.audit(name, { controls: [page.locator("main").getByRole("button").first()] });
    } catch (err) {
      failures.push(err.message);
    }
  }
  if (failures.length > 0) throw new Error(failures.join("; "));
}

/** Opens `path` expecting the error `status` as a readable HTML page with a heading; returns the page's text. */
async function openError(page, origin, path, status) {
  const response = await page.goto(`${origin}${path}`, { waitUntil: "load" });
  const got = response?.status() ?? 0;
  if (got !== status) throw new Error(`GET ${path} answered ${got}, not ${status}${await headingOf(page)}`);
  if ((await page.locator("h1").count()) !== 1) throw new Error(`GET ${path}: the ${status} page has no single <h1>`);
  return mainText(page);
}

/**
 * h. From a browser: another account's container id in the URL is a 404 page that shows nothing of it; a viewer gets
 * a 403 page for the admin-only API keys page, and their POST creating a webhook is refused and creates nothing; a
 * POST without the CSRF token (sign-out) is refused and the session goes on. Error pages pass the audits too.
 */
export async function security(ctx) {
  const { page, origin } = ctx;
  let otherBox = null;
  const deadline = Date.now() + STEP_MS * 2;
  while (!otherBox && Date.now() < deadline) {
    const answer = await ctx.api("GET", "/v2/containers", undefined, ctx.otherApiKey);
    otherBox = answer.body?.data?.[0] ?? null;
    if (!otherBox) await new Promise((r) => setTimeout(r, 1000));
  }
  if (!otherBox) throw new Error("the other account's box did not appear in its GET /v2/containers");
  const notFound = await openError(page, origin, `/app/containers/${otherBox.id}`, 404);
  if (notFound.includes(otherBox.attributes.number))
    throw new Error("the 404 page shows the other account's box number");
  await ctx.audit("18-not-found", { keyboard: false });

  const viewer = await ctx.viewerPage();
  await openError(viewer.page, origin, "/app/settings/api-keys", 403);
  await ctx.auditWith(viewer.page, viewer.events, "19-forbidden");
  await open(viewer.page, origin, "/app/settings/webhooks");
  const csrf = await viewer.page.locator('input[name="_csrf"]').first().getAttribute("value");
  const before = await ctx.api("GET", "/v2/webhooks?page[size]=100");
  const refused = await viewer.page.request.post(`${origin}/app/settings/webhooks`, {
    headers: { Origin: origin },
    form: { _csrf: csrf ?? "", url: `${ctx.receiverUrl}/viewer` },
    maxRedirects: 0,
  });
  const after = await ctx.api("GET", "/v2/webhooks?page[size]=100");
  if (refused.status() !== 403) throw new Error(`a viewer's POST /app/settings/webhooks answered ${refused.status()}`);
  if ((after.body?.data ?? []).length !== (before.body?.data ?? []).length)
    throw new Error("a viewer's refused POST created a webhook");

  const noToken = await page.request.post(`${origin}/sign-out`, { headers: { Origin: origin }, maxRedirects: 0 });
  if (noToken.status() !== 403) throw new Error(`POST /sign-out without the CSRF token answered ${noToken.status()}`);
  await open(page, origin, "/app/containers");
  ctx.note(
    "404 for another account's box, 403 page for a viewer (their POST changed nothing), 403 without a CSRF token",
  );
}

/**
 * f. Sign out (from the account page, which lists the sessions) → /sign-in; /app/containers then redirects to
 * sign-in, and the old cookie no longer works.
 */
export async function signOut(ctx) {
  const { page, origin } = ctx;
  await open(page, origin, "/app/account");
  await ctx.audit("17-account", { controls: [page.getByRole("button", { name: /sign out everywhere/i })] });
  const cookie = (await ctx.context.cookies(origin)).find((c) => c.name === "__Host-session");
  await page.getByRole("button", { name: /^sign out$/i }).click();
  await page.waitForURL((url) => url.pathname === "/sign-in", { timeout: STEP_MS });
  await page.goto(`${origin}/app/containers`, { waitUntil: "load" });
  if (new URL(page.url()).pathname !== "/sign-in")
    throw new Error(`after sign-out /app/containers shows ${page.url()}`);
  if (cookie) {
    const replay = await fetch(`${origin}/app/containers`, {
      headers: { Cookie: `__Host-session=${cookie.value}` },
      redirect: "manual",
    });
    const to = replay.headers.get("location") ?? "";
    if (replay.status !== 303 || !to.includes("/sign-in"))
      throw new Error(`the signed-out cookie still answers ${replay.status} ${to}`);
  }
  ctx.note("signed out; /app/containers → /sign-in; the old cookie is refused");
}
