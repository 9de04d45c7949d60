import { env } from "cloudflare:test";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { loadWholeView, parseViewQuery } from "../../src/dashboard/containers-view";
import { createDatabase } from "../../src/db/client";
import { apiJson, type TestAccount } from "../helpers/api";
import { type SeedContainer, seedContainerCustomField, seedContainers } from "../helpers/container-rows";
import { type Many, toOne } from "../helpers/tracking";
import { createAccountWithWebUser, createWebUser, type TestWebUser, web } from "../helpers/web-session";

const XSS_SCRIPT = "<script>alert(1)</script>";
const XSS_IMG = '"><img src=x onerror=alert(1)>';

type Signed = TestAccount & { user: TestWebUser };

/** Rows of the rendered table, as the ids of `<tr data-id>` in document order. */
function rowIds(html: string): string[] {
  return [...html.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1] ?? "");
}

async function page(user: TestWebUser, query = ""): Promise<{ res: Response; html: string }> {
  const res = await web(`/app/containers${query}`, { user });
  return { res, html: await res.text() };
}

const BOXES: SeedContainer[] = [
  {
    number: "MSCU1234565",
    scac: "MSCU",
    podLocode: "USLAX",
    podName: "Los Angeles",
    podTimezone: "America/Los_Angeles",
    status: "available",
    available: true,
    pickupLfd: "2026-01-10T07:59:59Z",
    podEtaAt: "2026-01-03T22:00:00Z",
    holds: [{ name: "customs", status: "hold", description: null }],
    customerName: "Acme Imports",
    second: 1,
  },
  {
    number: "CMAU7654321",
    scac: "CMDU",
    podLocode: "USNYC",
    podTimezone: "America/New_York",
    status: "on_ship",
    podEtaAt: "2026-01-02T15:00:00Z",
    second: 2,
  },
  {
    number: "MAEU0000005",
    scac: "MAEU",
    podLocode: "USLAX",
    podTimezone: "America/Los_Angeles",
    status: "not_available",
    available: false,
    pickupLfd: "2026-01-08T07:59:59Z",
    customerName: "Beta Freight",
    second: 3,
  },
];

async function seeded(): Promise<Signed & { ids: string[] }> {
  const account = await createAccountWithWebUser("viewer");
  const rows = await seedContainers(account.accountId, BOXES);
  return { ...account, ids: rows.map((r) => r.id) };
}

async function apiIds(account: TestAccount, query: string): Promise<string[]> {
  const { res, json } = await apiJson<Many>(`/containers?page[size]=100&${query}`, { key: account.key });
  expect(res.status).toBe(200);
  return json.data.map((c) => c.id);
}

describe("GET /app/containers", () => {
  it("shows the account's containers with what ops sort by, in local times at the POD", async () => {
    const { user, ids } = await seeded();
    const { res, html } = await page(user);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(rowIds(html)).toEqual([...ids].reverse());
    expect(html).toContain(`href="/app/containers/${ids[0]}"`);
    expect(html).toContain("MSCU1234565");
    expect(html).toContain("Los Angeles");
    // The ETA in the POD's local time and zone: 22:00Z is 14:00 PST.
    expect(html).toContain("2026-01-03 14:00 PST");
    // The LFD as the POD's local date (07:59:59Z on the 10th is the 9th in Los Angeles).
    expect(html).toContain('<time datetime="2026-01-09">2026-01-09</time>');
    expect(html).toContain("1: customs");
    expect(html).toContain("Acme Imports");
    expect(html).toContain("1–3 of 3");
    expect(html).toContain('href="/app/containers.csv"');
    expect(html).toContain('<script type="module" src="/app/assets/containers.js">');
    expect(html).toContain('href="/app/assets/containers.css"');
    expect(html).toMatch(/<caption>/);
    expect(html).toContain('aria-live="polite"');
  });

  it("sorts by a column link with aria-sort, in the REST list's order, and toggles direction", async () => {
    const account = await seeded();
    for (const sort of ["pickup_lfd", "-pod_eta_at", "pod_locode", "scac", "current_status", "-updated_at"]) {
      const { html } = await page(account.user, `?sort=${sort}`);
      expect(rowIds(html), sort).toEqual(await apiIds(account, `sort=${sort}`));
    }
    const { html } = await page(account.user, "?sort=pickup_lfd");
    expect(html).toMatch(/<th scope="col" aria-sort="ascending"><a href="\/app\/containers\?sort=-pickup_lfd">/);
    const desc = await page(account.user, "?sort=-pickup_lfd");
    expect(desc.html).toMatch(/<th scope="col" aria-sort="descending"><a href="\/app\/containers\?sort=pickup_lfd">/);
  });

  it("filters by status, port, line, customer, LFD window, holds, custom field and search, as the REST list does", async () => {
    const account = await seeded();
    const [a, b, c] = account.ids;
    if (!a || !b || !c) throw new Error("seed");
    await seedContainerCustomField(account.accountId, b, "warehouse", "North");
    const cases: [string, string, string[]][] = [
      ["?status=available", "filter[status]=available", [a]],
      ["?pod=uslax", "filter[pod_locode]=USLAX", [c, a]],
      ["?line=CMDU", "filter[scac]=CMDU", [b]],
      ["?customer=acme%20imports", "filter[customer_name]=Acme%20Imports", [a]],
      ["?holds=yes", "filter[has_holds]=true", [a]],
      ["?holds=no", "filter[has_holds]=false", [c, b]],
      [
        "?cf_key=warehouse&cf_value=north",
        "filter[custom_field][slug]=warehouse&filter[custom_field][value]=north",
        [b],
      ],
      ["?q=MSCU123", "filter[search]=MSCU123", [a]],
    ];
    for (const [query, apiQuery, expected] of cases) {
      const { res, html } = await page(account.user, query);
      expect(res.status, query).toBe(200);
      expect(rowIds(html), query).toEqual(expected);
      expect(await apiIds(account, apiQuery), apiQuery).toEqual(expected);
    }
  });

  it("shows today's charges from the charges service, blank where no tariff applies", async () => {
    const account = await createAccountWithWebUser("viewer");
    const discharged = new Date(Date.now() - 10 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const [charged, onShip] = await seedContainers(account.accountId, [
      {
        number: "DEMU0000001",
        podLocode: "USLAX",
        podTimezone: "America/Los_Angeles",
        status: "available",
        available: true,
        podDischargedAt: discharged,
        second: 1,
      },
      { number: "SHIU0000002", podLocode: "USLAX", podTimezone: "America/Los_Angeles", status: "on_ship", second: 2 },
    ]);
    const before = await page(account.user, "?sort=number");
    expect(before.html).not.toContain("USD ");
    const created = await apiJson("/tariffs", {
      key: account.key,
      body: {
        data: {
          type: "tariff",
          attributes: {
            kind: "demurrage",
            free_days: 4,
            clock_starts_at: "discharged",
            tiers: [{ from_day: 1, to_day: null, rate_per_day: "100.00", currency_code: "USD" }],
          },
        },
      },
    });
    expect(created.res.status).toBe(201);
    const { json } = await apiJson<{ data: { attributes: { demurrage: { amount_to_date: string } } } }>(
      `/containers/${charged?.id}/charges`,
      { key: account.key },
    );
    const amount = json.data.attributes.demurrage.amount_to_date;
    expect(Number(amount)).toBeGreaterThan(0);
    const { html } = await page(account.user, "?sort=number");
    const cells = [...html.matchAll(/<tr data-id="([^"]+)"[^>]*>(.*?)<\/tr>/g)];
    expect(cells.find((m) => m[1] === charged?.id)?.[2]).toContain(`<td>USD ${amount}</td>`);
    expect(cells.find((m) => m[1] === onShip?.id)?.[2]).not.toContain("USD");
    const csv = Papa.parse<Record<string, string>>(
      (await (await web("/app/containers.csv?sort=number", { user: account.user })).text()).trim(),
      { header: true },
    );
    expect(csv.data.map((r) => r.charges_to_date)).toEqual([`USD ${amount}`, ""]);
  });

  it("LFD within N days counts from now, overdue included", async () => {
    const account = await createAccountWithWebUser("viewer");
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
    const [overdue, soon, later] = await seedContainers(account.accountId, [
      { number: "AAAU0000001", pickupLfd: iso(now - 86_400_000), second: 1 },
      { number: "BBBU0000002", pickupLfd: iso(now + 2 * 86_400_000), second: 2 },
      { number: "CCCU0000003", pickupLfd: iso(now + 9 * 86_400_000), second: 3 },
      { number: "DDDU0000004", second: 4 },
    ]);
    const { html } = await page(account.user, "?lfd_within=3&sort=pickup_lfd");
    expect(rowIds(html)).toEqual([overdue?.id, soon?.id]);
    const wide = await page(account.user, "?lfd_within=30&sort=pickup_lfd");
    expect(rowIds(wide.html)).toEqual([overdue?.id, soon?.id, later?.id]);
  });

  it("pages by 50 with previous/next links and x–y of N", async () => {
    const account = await createAccountWithWebUser("viewer");
    await seedContainers(
      account.accountId,
      Array.from({ length: 53 }, (_, i) => ({ number: `TSTU${String(i).padStart(7, "0")}`, second: i + 1 })),
    );
    const first = await page(account.user);
    expect(rowIds(first.html)).toHaveLength(50);
    expect(first.html).toContain("1–50 of 53");
    expect(first.html).toContain('href="/app/containers?page=2"');
    expect(first.html).not.toContain("Previous page");
    const second = await page(account.user, "?page=2");
    expect(rowIds(second.html)).toHaveLength(3);
    expect(second.html).toContain("51–53 of 53");
    expect(second.html).toContain('href="/app/containers?page=1"');
    expect(second.html).not.toContain("Next page");
    expect([...rowIds(first.html), ...rowIds(second.html)]).toEqual(await apiIds(account, ""));
  });

  it("shows a readable empty state for a new account, and another for filters that match nothing", async () => {
    const { user } = await createAccountWithWebUser("viewer");
    const { res, html } = await page(user);
    expect(res.status).toBe(200);
    expect(html).toContain('No containers yet — <a href="/app/track">Track one</a>');
    expect(html).not.toContain("<table");
    const filtered = await page(user, "?status=available");
    expect(filtered.html).toContain("No containers match these filters.");
  });

  it("gives the empty view a live cursor, so the first box tracked while it is open counts as a change", async () => {
    const { user, accountId } = await createAccountWithWebUser("viewer");
    const { html } = await page(user);
    const since = /id="containers-empty" data-latest="([^"]+)"/.exec(html)?.[1];
    expect(since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const before = await web(`/app/containers.json?since=${since}`, { user });
    expect(((await before.json()) as { changed: number }).changed).toBe(0);
    const [box] = await seedContainers(accountId, [{ number: "MSKU1234565", second: 1 }]);
    await env.DB.prepare("UPDATE containers SET updated_at = ?1 WHERE id = ?2")
      .bind(new Date().toISOString().replace(/\.\d{3}Z$/, "Z"), box?.id)
      .run();
    const after = await web(`/app/containers.json?since=${since}`, { user });
    expect(((await after.json()) as { changed: number }).changed).toBe(1);
  });

  it("re-renders the form with the message next to a bad field, 400, listing nothing", async () => {
    const { user } = await seeded();
    for (const [query, field] of [
      ["?status=floating", "status"],
      ["?lfd_within=abc", "lfd_within"],
      ["?sort=colour", "sort"],
      ["?pod=TOOLONG", "pod"],
      ["?cf_key=warehouse", "cf_value"],
      ["?page=0", "page"],
    ] as const) {
      const { res, html } = await page(user, query);
      expect(res.status, query).toBe(400);
      expect(rowIds(html), query).toEqual([]);
      expect(html, query).toContain("Nothing was listed:");
      if (field !== "sort" && field !== "page") {
        expect(html, query).toMatch(new RegExp(`aria-describedby="[^"]*error-${field}"`));
        expect(html, query).toContain(`id="error-${field}"`);
      }
    }
  });

  it("answers the table body alone for the live-update island, and counts changes since a cursor", async () => {
    const account = await seeded();
    const fragment = await web("/app/containers?sort=number", {
      user: account.user,
      headers: { "X-Dashboard-Fragment": "rows" },
    });
    const body = await fragment.text();
    expect(fragment.status).toBe(200);
    expect(body.startsWith('<tbody id="container-rows" data-latest="2026-01-01T00:00:03Z">')).toBe(true);
    expect(body).not.toContain("<html");
    expect(fragment.headers.get("x-total-count")).toBe("3");
    const none = await web("/app/containers.json?since=2026-01-01T00:00:03Z", { user: account.user });
    expect(await none.json()).toEqual({ changed: 0, latest: "2026-01-01T00:00:03Z" });
    await env.DB.prepare("UPDATE containers SET updated_at = '2026-01-02T00:00:00Z' WHERE id = ?1")
      .bind(account.ids[0])
      .run();
    const one = await web("/app/containers.json?since=2026-01-01T00:00:03Z", { user: account.user });
    expect(await one.json()).toEqual({ changed: 1, latest: "2026-01-02T00:00:00Z" });
    const filteredOut = await web("/app/containers.json?since=2026-01-01T00:00:03Z&status=on_ship", {
      user: account.user,
    });
    expect(await filteredOut.json()).toEqual({ changed: 0, latest: "2026-01-01T00:00:03Z" });
    expect((await web("/app/containers.json", { user: account.user })).status).toBe(400);
    expect((await web("/app/containers.json?since=yesterday", { user: account.user })).status).toBe(400);
  });
});

describe("GET /app/containers.csv", () => {
  it("is exactly the view's rows and columns, every page of it, matching the API's attributes", async () => {
    const account = await seeded();
    const res = await web("/app/containers.csv?sort=pickup_lfd&pod=USLAX", { user: account.user });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="containers-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const text = await res.text();
    expect(text.endsWith("\r\n")).toBe(true);
    const parsed = Papa.parse<Record<string, string>>(text.trim(), { header: true });
    const { json } = await apiJson<Many>("/containers?sort=pickup_lfd&filter[pod_locode]=USLAX&include=shipment", {
      key: account.key,
    });
    expect(parsed.data.map((r) => r.id)).toEqual(json.data.map((c) => c.id));
    for (const [i, c] of json.data.entries()) {
      const row = parsed.data[i] ?? {};
      const shipment = json.included?.find((s) => s.id === toOne(c, "shipment")?.id);
      expect(row.number).toBe(c.attributes.number);
      // The container's SCAC and POD are its shipment's (`filter[scac]`, `filter[pod_locode]`).
      expect(row.scac).toBe(shipment?.attributes.shipping_line_scac);
      expect(row.pod_locode).toBe(shipment?.attributes.port_of_discharge_locode);
      expect(row.current_status).toBe(c.attributes.current_status);
      expect(row.available_for_pickup).toBe(String(c.attributes.available_for_pickup ?? ""));
      expect(row.pickup_lfd).toBe(c.attributes.pickup_lfd ?? "");
      expect(row.pod_eta_at).toBe(shipment?.attributes.pod_eta_at ?? "");
      expect(row.customer_name).toBe(shipment?.attributes.customer_name ?? "");
    }
    expect(parsed.data[0]?.pickup_lfd_local_date).toBe("2026-01-07");
  });

  it("exports every page of a view larger than a table page", async () => {
    const account = await createAccountWithWebUser("viewer");
    await seedContainers(
      account.accountId,
      Array.from({ length: 120 }, (_, i) => ({ number: `TSTU${String(i).padStart(7, "0")}`, second: i + 1 })),
    );
    const text = await (await web("/app/containers.csv?sort=number", { user: account.user })).text();
    const parsed = Papa.parse<Record<string, string>>(text.trim(), { header: true });
    expect(parsed.data).toHaveLength(120);
    expect(parsed.data[0]?.number).toBe("TSTU0000000");
    expect(parsed.data[119]?.number).toBe("TSTU0000119");
  });

  it("reads a view larger than the export's limit no further than its first chunk", async () => {
    const account = await createAccountWithWebUser("viewer");
    await seedContainers(
      account.accountId,
      Array.from({ length: 5 }, (_, i) => ({ number: `CAPU${String(i).padStart(7, "0")}`, second: i + 1 })),
    );
    const db = createDatabase(env.DB);
    const query = parseViewQuery(new URLSearchParams("sort=number"), Date.now());
    expect(await loadWholeView(db, account.accountId, query, Date.now(), 4, 2)).toEqual({ rows: null, total: 5 });
    const whole = await loadWholeView(db, account.accountId, query, Date.now(), 5, 2);
    expect(whole.rows?.map((r) => r.number)).toEqual([
      "CAPU0000000",
      "CAPU0000001",
      "CAPU0000002",
      "CAPU0000003",
      "CAPU0000004",
    ]);
  });

  it("neutralises spreadsheet formulas and quotes what needs quoting", async () => {
    const account = await createAccountWithWebUser("viewer");
    await seedContainers(account.accountId, [
      { number: "ABCU1234560", customerName: '=HYPERLINK("http://evil.test","x")', second: 1 },
      { number: "ABCU1234561", customerName: '+1, "quoted"\nline', second: 2 },
      { number: "ABCU1234562", customerName: "@SUM(A1)", second: 3 },
      { number: "ABCU1234563", customerName: "-2+3", second: 4 },
    ]);
    const text = await (await web("/app/containers.csv?sort=number", { user: account.user })).text();
    const parsed = Papa.parse<Record<string, string>>(text.trim(), { header: true });
    expect(parsed.data.map((r) => r.customer_name)).toEqual([
      `'=HYPERLINK("http://evil.test","x")`,
      '\'+1, "quoted"\nline',
      "'@SUM(A1)",
      "'-2+3",
    ]);
  });
});

describe("the Containers page's security", () => {
  it("sends a request without a session to sign-in (303), and a JSON or CSV one too", async () => {
    for (const path of ["/app/containers", "/app/containers.csv", "/app/containers.json?since=2026-01-01"]) {
      const res = await web(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get("location"), path).toMatch(/^\/sign-in/);
    }
  });

  it("never shows another account's containers, in the page, the fragment, the CSV or the change count", async () => {
    const mine = await createAccountWithWebUser("viewer");
    const other = await seeded();
    expect(rowIds((await page(mine.user)).html)).toEqual([]);
    expect(rowIds((await page(mine.user, `?q=MSCU1234565`)).html)).toEqual([]);
    const csv = await (await web("/app/containers.csv", { user: mine.user })).text();
    expect(csv.trim().split("\r\n")).toHaveLength(1);
    const changes = await web("/app/containers.json?since=2000-01-01", { user: mine.user });
    expect(await changes.json()).toMatchObject({ changed: 0 });
    // The other account's user sees them.
    const theirs = await createWebUser(other.accountId, "viewer");
    expect(rowIds((await page(theirs)).html)).toHaveLength(3);
  });

  it("renders a container's free text inert (customer name, references, search echo)", async () => {
    const account = await createAccountWithWebUser("viewer");
    await seedContainers(account.accountId, [
      { number: "XSSU0000001", customerName: XSS_SCRIPT, refNumbers: [XSS_IMG], second: 1 },
      { number: "XSSU0000002", customerName: XSS_IMG, second: 2 },
    ]);
    const { html } = await page(account.user);
    expect(html).not.toContain(XSS_SCRIPT);
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
    const echoed = await page(
      account.user,
      `?customer=${encodeURIComponent(XSS_IMG)}&q=${encodeURIComponent(XSS_SCRIPT)}`,
    );
    expect(echoed.html).not.toContain(XSS_SCRIPT);
    expect(echoed.html).not.toContain("<img src=x");
    expect(echoed.html).not.toMatch(/<script>/);
  });
});
