import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import { type Doc, type Many, type One, trackSandboxShipment } from "../helpers/tracking";

// GET /v2/containers/{id}/charges and GET /v2/charges (issue 27 §1; docs/api.md §Charges): a box's demurrage and
// detention with its ledger, computed from its stored facts and the account's tariffs, and the account's portfolio
// with totals per currency, sorting, paging and CSV. Containers get their port facts written straight to D1 (as the
// Tracker would), so the figures below are the hand-computed ones of test/charges/calculator.unit.test.ts.

interface ChargeLine {
  basis: string;
  tariff_id: string;
  last_free_day: string;
  free_time_ends_at: string;
  chargeable_days: number;
  amount_to_date: string;
  amount_if_out_tomorrow: string | null;
  amount_if_out_on: string | null;
  currency_code: string;
  ledger: { date: string; state: string; reason: string; amount: string }[];
}

async function tariff(account: TestAccount, attributes: Record<string, unknown>) {
  const { res, json } = await apiJson<One>("/tariffs", {
    key: account.key,
    body: {
      data: {
        type: "tariff",
        attributes: {
          kind: "demurrage",
          free_days: 4,
          clock_starts_at: "discharged",
          tiers: [
            { from_day: 1, to_day: 3, rate_per_day: "100.00", currency_code: "USD" },
            { from_day: 4, to_day: null, rate_per_day: "200.00", currency_code: "USD" },
          ],
          ...attributes,
        },
      },
    },
  });
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data.id;
}

/** Writes a box's POD facts as tracking would: discharged at USLAX, optionally out, with availability changes. */
async function atLosAngeles(
  account: TestAccount,
  containerId: string,
  facts: { discharged: string; fullOut?: string; notAvailable?: [string, string]; holds?: boolean },
) {
  const statements = [
    env.DB.prepare(
      `UPDATE containers SET pod_locode = 'USLAX', scac = 'MAEU', pod_timezone = 'America/Los_Angeles',
         pod_discharged_at = ?2, pod_full_out_at = ?3, pickup_lfd_terminal = NULL, availability_known = 1,
         available_for_pickup = ?4, holds_at_pod_terminal = ?5 WHERE id = ?1`,
    ).bind(
      containerId,
      facts.discharged,
      facts.fullOut ?? null,
      facts.holds ? 0 : 1,
      JSON.stringify(facts.holds ? [{ name: "customs", status: "hold", description: null }] : []),
    ),
  ];
  const shipment = await env.DB.prepare("SELECT shipment_id FROM containers WHERE id = ?1")
    .bind(containerId)
    .first<{ shipment_id: string }>();
  const event = (name: string, at: string) =>
    env.DB.prepare(
      `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, timestamp, data_source, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'terminal', ?6)`,
    ).bind(newId(), account.accountId, containerId, shipment?.shipment_id, name, at);
  statements.push(event("container.transport.available", facts.discharged));
  if (facts.notAvailable) {
    statements.push(event("container.transport.not_available", facts.notAvailable[0]));
    statements.push(event("container.transport.available", facts.notAvailable[1]));
  }
  await env.DB.batch(statements);
}

async function setUp() {
  const a = await createAccount("Alpha");
  const { containerIds } = await trackSandboxShipment(a);
  const [first, second] = containerIds;
  if (!first || !second) throw new Error("the sandbox shipment has fewer than two containers");
  return { a, first, second };
}

describe("GET /containers/{id}/charges: happy path", () => {
  it("prices demurrage with its basis, projections and a ledger (USLAX, calendar days, tiers crossing)", async () => {
    const { a, first } = await setUp();
    const tariffId = await tariff(a, { port_code: "USLAX", name: "LA demurrage" });
    await atLosAngeles(a, first, { discharged: "2026-11-19T18:00:00Z" });
    const { res, json } = await apiJson<One>(`/containers/${first}/charges?as_of=2026-11-29&out_on=2026-12-02`, {
      key: a.key,
    });
    expect(res.status, JSON.stringify(json)).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/vnd.api+json");
    expect(json.data).toMatchObject({ id: first, type: "container_charges" });
    const attrs = json.data.attributes as { as_of: string; demurrage: ChargeLine; detention: null };
    expect(attrs.as_of).toBe("2026-11-29");
    expect(attrs.detention).toBeNull();
    expect(attrs.demurrage).toMatchObject({
      basis: "tariff",
      tariff_id: tariffId,
      last_free_day: "2026-11-23",
      free_time_ends_at: "2026-11-24T08:00:00Z",
      chargeable_days: 6,
      amount_to_date: "900.00",
      amount_if_out_tomorrow: "1100.00",
      amount_if_out_on: "1500.00",
      currency_code: "USD",
    });
    expect(attrs.demurrage.ledger.map((d) => d.state)).toEqual([
      "free",
      ...Array(4).fill("free"),
      ...Array(6).fill("chargeable"),
    ]);
  });

  it("marks the days the terminal reported the box not available as not chargeable", async () => {
    const { a, first } = await setUp();
    await tariff(a, {});
    // Not available from 6 Nov 09:00 to 8 Nov 12:00 PST: free time stops on 6, 7, 8 Nov (LFD 12 Nov).
    await atLosAngeles(a, first, {
      discharged: "2026-11-05T18:00:00Z",
      notAvailable: ["2026-11-06T17:00:00Z", "2026-11-08T20:00:00Z"],
    });
    const { json } = await apiJson<One>(`/containers/${first}/charges?as_of=2026-11-14`, { key: a.key });
    const line = (json.data.attributes as { demurrage: ChargeLine }).demurrage;
    expect(line).toMatchObject({ last_free_day: "2026-11-12", chargeable_days: 2, amount_to_date: "200.00" });
    expect(line.ledger.filter((d) => d.state === "not_chargeable").map((d) => [d.date, d.reason])).toEqual([
      ["2026-11-06", "not available for pickup (terminal); free time stopped"],
      ["2026-11-07", "not available for pickup (terminal); free time stopped"],
      ["2026-11-08", "not available for pickup (terminal); free time stopped"],
    ]);
  });

  it("takes the terminal's LFD as served, a datetime (local midnight at the POD), as its local date there", async () => {
    const { a, first } = await setUp();
    await tariff(a, { port_code: "USLAX" });
    await atLosAngeles(a, first, { discharged: "2026-11-19T18:00:00Z" });
    // 2026-11-25 00:00 in Los Angeles (PST): the LFD the terminal reports, overriding the tariff's 11-23.
    await env.DB.prepare("UPDATE containers SET pickup_lfd_terminal = '2026-11-25T08:00:00Z' WHERE id = ?1")
      .bind(first)
      .run();
    const { res, json } = await apiJson<One>(`/containers/${first}/charges?as_of=2026-11-27`, { key: a.key });
    expect(res.status, JSON.stringify(json)).toBe(200);
    const attrs = json.data.attributes as { demurrage: ChargeLine };
    expect(attrs.demurrage).toMatchObject({
      basis: "terminal_lfd",
      last_free_day: "2026-11-25",
      free_time_ends_at: "2026-11-26T08:00:00Z",
      chargeable_days: 2,
      amount_to_date: "200.00",
    });
  });

  it("answers null charges when no tariff applies", async () => {
    const { a, first } = await setUp();
    await tariff(a, { port_code: "NLRTM" });
    await atLosAngeles(a, first, { discharged: "2026-11-19T18:00:00Z" });
    const { json } = await apiJson<One>(`/containers/${first}/charges`, { key: a.key });
    expect(json.data.attributes).toMatchObject({ demurrage: null, detention: null, terminal_storage: null });
  });
});

describe("GET /containers/{id}/charges: errors and security", () => {
  it("refuses bad dates, and out_on before as_of", async () => {
    const { a, first } = await setUp();
    for (const [query, parameter] of [
      ["as_of=2026-13-01", "as_of"],
      ["as_of=yesterday", "as_of"],
      ["out_on=2026-02-30", "out_on"],
      ["as_of=2026-11-29&out_on=2026-11-20", "out_on"],
      // A ledger walks every day in between: dates are bounded.
      ["as_of=9999-12-31", "as_of"],
      ["as_of=1900-01-01", "as_of"],
      ["as_of=2026-11-29&out_on=2028-01-01", "out_on"],
    ]) {
      const { res, json } = await apiJson<Doc>(`/containers/${first}/charges?${query}`, { key: a.key });
      expect(res.status, query).toBe(400);
      expect(json.errors?.[0]).toMatchObject({ source: { parameter } });
    }
  });

  it("needs a key, and answers 404 for another account's or an unknown container", async () => {
    const { a, first } = await setUp();
    await tariff(a, {});
    await atLosAngeles(a, first, { discharged: "2026-11-19T18:00:00Z" });
    const b = await createAccount("Beta");
    await tariff(b, {});
    expect((await api(`/containers/${first}/charges`)).status).toBe(401);
    expect((await api(`/containers/${first}/charges`, { key: "bogus" })).status).toBe(401);
    const other = await apiJson<Doc>(`/containers/${first}/charges`, { key: b.key });
    expect(other.res.status).toBe(404);
    expect(JSON.stringify(other.json)).not.toContain("demurrage");
    expect((await api("/containers/unknown-id/charges", { key: a.key })).status).toBe(404);
  });
});

describe("GET /charges: the portfolio", () => {
  it("lists accruing and at-risk boxes with totals per currency, sorted and paged, and as CSV", async () => {
    const { a, first, second } = await setUp();
    await tariff(a, {});
    // first: 6 chargeable days on 29 Nov (900.00); second: discharged 25 Nov, LFD 29 Nov: at risk.
    await atLosAngeles(a, first, { discharged: "2026-11-19T18:00:00Z" });
    await atLosAngeles(a, second, { discharged: "2026-11-25T18:00:00Z" });
    const { res, json } = await apiJson<Many & { meta: Record<string, unknown> }>("/charges?as_of=2026-11-29", {
      key: a.key,
    });
    expect(res.status, JSON.stringify(json)).toBe(200);
    expect(json.data.map((r) => [r.id, r.attributes?.status])).toEqual([
      [first, "accruing"],
      [second, "at_risk"],
    ]);
    expect(json.meta).toMatchObject({
      total: 2,
      accruing: 1,
      at_risk: 1,
      // Tomorrow: the first box's 7th chargeable day (200) and the second's 1st (100) on top of 900.
      totals: [{ currency_code: "USD", amount_to_date: "900.00", amount_if_out_tomorrow: "1200.00", boxes: 2 }],
    });
    expect(JSON.stringify(json.data)).not.toContain("ledger");

    const byEnd = await apiJson<Many>("/charges?as_of=2026-11-29&sort=-free_time_ends_at&page[size]=1", {
      key: a.key,
    });
    expect(byEnd.json.data.map((r) => r.id)).toEqual([second]);
    expect(byEnd.json.meta?.total).toBe(2);

    const accruing = await apiJson<Many>("/charges?as_of=2026-11-29&filter[status]=accruing", { key: a.key });
    expect(accruing.json.data.map((r) => r.id)).toEqual([first]);

    const csv = await api("/charges?as_of=2026-11-29&format=csv", { key: a.key });
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toMatch(/^container_id,container_number,status,as_of,kind,basis,/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`${first},`);
    expect(lines[1]).toContain(",accruing,2026-11-29,demurrage,tariff,");
    expect(lines[1]).toContain(",900.00,1100.00,USD");
  });

  it("leaves out boxes whose empty is back, except for filter[status]=any", async () => {
    const { a, first, second } = await setUp();
    await tariff(a, {});
    await atLosAngeles(a, first, { discharged: "2026-11-19T18:00:00Z", fullOut: "2026-11-25T19:00:00Z" });
    await atLosAngeles(a, second, { discharged: "2026-11-19T18:00:00Z" });
    await env.DB.prepare("UPDATE containers SET empty_terminated_at = '2026-11-27T18:00:00Z' WHERE id = ?1")
      .bind(first)
      .run();
    const attention = await apiJson<Many>("/charges", { key: a.key });
    expect(attention.json.data.map((r) => r.id)).toEqual([second]);
    const any = await apiJson<Many>("/charges?filter[status]=any", { key: a.key });
    expect(any.json.data.map((r) => [r.id, r.attributes?.status])).toContainEqual([first, "stopped"]);
  });

  it("a box whose clock has not started (still on the water) is not_started, not stopped", async () => {
    const { a, first, second } = await setUp();
    await tariff(a, {});
    await atLosAngeles(a, first, { discharged: "2026-11-19T18:00:00Z", fullOut: "2026-11-25T19:00:00Z" });
    const any = await apiJson<Many>("/charges?as_of=2026-11-29&filter[status]=any", { key: a.key });
    const statuses = Object.fromEntries(any.json.data.map((r) => [r.id, r.attributes?.status]));
    expect(statuses[second]).toBe("not_started");
    expect(statuses[first]).toBe("stopped");
    const csv = await (await api("/charges?as_of=2026-11-29&format=csv&filter[status]=any", { key: a.key })).text();
    expect(csv).toContain(`${second},`);
    expect(csv.split("\r\n").find((l) => l.startsWith(`${second},`))).toContain(",not_started,");
  });

  it("refuses bad filters, needs a key and never shows another account's boxes", async () => {
    const { a, first } = await setUp();
    await tariff(a, {});
    await atLosAngeles(a, first, { discharged: "2026-11-19T18:00:00Z" });
    const b = await createAccount("Beta");
    await tariff(b, {});
    for (const query of ["filter[within_days]=-1", "filter[within_days]=99", "as_of=2026-1-1", "as_of=9999-01-01"]) {
      expect((await api(`/charges?${query}`, { key: a.key })).status, query).toBe(400);
    }
    expect((await api("/charges?sort=colour", { key: a.key })).status).toBe(400);
    expect((await api("/charges")).status).toBe(401);
    const theirs = await apiJson<Many>("/charges?as_of=2026-11-29&filter[status]=any", { key: b.key });
    expect(theirs.json.data).toEqual([]);
    expect(theirs.json.meta).toMatchObject({ total: 0, totals: [] });
    const csv = await (await api("/charges?as_of=2026-11-29&format=csv", { key: b.key })).text();
    expect(csv.trim().split("\r\n")).toHaveLength(1);
  });
});
