// The settings and account scenarios of `npm run check:dashboard` (e, g, h, f; scripts/lib/dashboard-scenarios.mjs has
// a–d), run in order in the signed-in page by scripts/check-dashboard.mjs.
import { headingOf, mainText, open, STEP_MS } from "./dashboard-pages.mjs";

/** Milliseconds for a test delivery to show on the webhook's page and at the receiver. */
const DELIVERY_MS = 30_000;

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
