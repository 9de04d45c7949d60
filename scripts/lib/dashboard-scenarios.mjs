// The scenarios of `npm run check:dashboard` (issue 28 §Tests and figures), run in order in one signed-in browser
// page by scripts/check-dashboard.mjs. Each one throws an Error saying what it saw when it fails; page audits
// (scripts/lib/page-audit.mjs) add their failures through `ctx.audit` without stopping the scenario. These are a–d; the
// settings and account ones (e, g, h, f) are in scripts/lib/dashboard-scenarios-account.mjs.
import { findKey, parseCsv, readTable, TRACKED_BOXES, trackUploadCsv } from "./dashboard-fixtures.mjs";
import { downloadText, headingOf, mainText, open, STEP_MS } from "./dashboard-pages.mjs";

/** Milliseconds for the bulk import to create its ten tracking requests. */
const IMPORT_MS = 90_000;
/** Milliseconds to wait for a simulator box to show "available" with an LFD, without reloading. */
const AVAILABLE_MS = 150_000;

/**
 * a. Sign in through the e-mailed link, with the keyboard; the session cookie is `__Host-`, HttpOnly, Secure,
 * SameSite=Lax; no session fixation; the link works once.
 */
export async function signIn(ctx) {
  const { page, origin, email } = ctx;
  // Session fixation: a session token planted in the browser before sign-in must not be the session after it.
  await ctx.plantSession();
  await open(page, origin, "/sign-in");
  const address = page.getByLabel(/e-?mail/i);
  const send = page.getByRole("button", { name: /sign in|send|continue|e-?mail me/i });
  await ctx.audit("01-sign-in", { controls: [address, send] });
  // With the keyboard only: type into the field, Enter submits.
  await address.focus();
  await page.keyboard.type(email);
  await page.keyboard.press("Enter");
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
  // The audit's Tab walk ended on the button: Enter presses it.
  if (!(await confirm.evaluate((el) => el === document.activeElement))) await confirm.focus();
  await page.keyboard.press("Enter");
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
  // As after the upload (which takes a minute), the boxes exist before c opens the table.
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const answer = await ctx.api("GET", "/v2/containers?page[size]=100");
    if ((answer.body?.data ?? []).length >= TRACKED_BOXES.length - 1) return;
    await new Promise((r) => setTimeout(r, 1000));
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
  if (!found && atLoad === null)
    throw new Error(
      `the page showed no containers table (empty: "${(await mainText(page)).slice(0, 80)}…") and none appeared ` +
        `without a reload within ${AVAILABLE_MS / 1000} s, though GET /v2/containers lists ` +
        `${(await ctx.api("GET", "/v2/containers")).body?.data?.length ?? "?"} boxes`,
    );
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
