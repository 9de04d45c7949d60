import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/api";
import { csrfOf, fieldErrorOf, getPage, postForm } from "../helpers/page-forms";
import { createAccountWithWebUser, createWebUser, web } from "../helpers/web-session";

// /app/settings/tariffs (issue 28 §Settings; docs/dashboard.md §Tariffs): tariffs through POST/PATCH/DELETE /tariffs'
// schema and service, a tiers editor without JavaScript (fixed rows, "Add a tier row" by a round trip), each refusal
// next to its field or tier row with nothing stored, admins write, others read, another account's tariff a 404 page.

const PATH = "/app/settings/tariffs";

const FORM: Record<string, string> = {
  name: "Maersk LA demurrage",
  kind: "demurrage",
  scac: "maeu",
  port_code: "uslax",
  terminal_id: "",
  equipment_length: "40",
  equipment_type: "",
  free_days: "4",
  free_days_basis: "calendar",
  clock_starts_at: "discharged",
  currency: "usd",
  tier_rows: "3",
  tier_from_0: "",
  tier_to_0: "4",
  tier_rate_0: "150.00",
  tier_from_1: "",
  tier_to_1: "",
  tier_rate_1: "300.00",
  tier_from_2: "",
  tier_to_2: "",
  tier_rate_2: "",
};

interface TariffDbRow {
  id: string;
  name: string | null;
  kind: string;
  scac: string | null;
  port_code: string | null;
  equipment_length: number | null;
  free_days: number;
  tiers: string;
}

async function tariffsOf(accountId: string): Promise<TariffDbRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM tariffs WHERE account_id = ?1")
    .bind(accountId)
    .all<TariffDbRow>();
  return results;
}

async function createThroughForm(user: Parameters<typeof postForm>[1], fields: Record<string, string> = {}) {
  const { res, html } = await postForm(PATH, user, { ...FORM, ...fields });
  expect(res.status, html.slice(0, 300)).toBe(201);
  return html;
}

describe("the tariffs page", () => {
  it("creates a tariff from the form: codes upper-cased, empty rows skipped, from-days following the tier before", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    const page = await getPage(PATH, user);
    expect(page).toContain("<h1>Tariffs</h1>");
    expect(page).toContain('aria-label="Tier 3 rate per day"');
    const html = await createThroughForm(user);
    expect(html).toContain("Tariff created.");
    const [row] = await tariffsOf(accountId);
    expect(row).toMatchObject({ name: "Maersk LA demurrage", scac: "MAEU", port_code: "USLAX", equipment_length: 40 });
    expect(JSON.parse(row?.tiers ?? "[]")).toEqual([
      { from_day: 1, to_day: 4, rate_per_day: "150.00", currency_code: "USD" },
      { from_day: 5, to_day: null, rate_per_day: "300.00", currency_code: "USD" },
    ]);
    const list = await getPage(PATH, user);
    expect(list).toContain("days 1–4: 150.00 USD/day; from day 5: 300.00 USD/day");
    expect(list).toContain(`href="${PATH}/${row?.id}"`);
  });

  it("adds a tier row by a round trip, keeping what was typed and saving nothing", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    const { res, html } = await postForm(PATH, user, { ...FORM, add_tier: "1" });
    expect(res.status).toBe(200);
    expect(html).toContain('aria-label="Tier 4 rate per day"');
    expect(html).toContain('name="tier_rows" value="4"');
    expect(html).toContain('value="300.00"');
    expect(await tariffsOf(accountId)).toEqual([]);
  });

  it("puts a tier's refusal next to its row and the currency's on the currency field, storing nothing", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    const gap = await postForm(PATH, user, { ...FORM, tier_from_1: "7" });
    expect(gap.res.status).toBe(422);
    expect(fieldErrorOf(gap.html, "f-tier_from_1")).toContain("gap");
    expect(gap.html).toContain('value="7"');

    // The empty middle row is skipped: the error of the second tier sent is shown on the third row.
    const skipped = await postForm(PATH, user, {
      ...FORM,
      tier_to_1: "",
      tier_rate_1: "",
      tier_from_2: "9",
      tier_rate_2: "300.00",
    });
    expect(fieldErrorOf(skipped.html, "f-tier_from_2")).toContain("must be 5");

    const currency = await postForm(PATH, user, { ...FORM, currency: "XXQ" });
    expect(currency.res.status).toBe(422);
    expect(fieldErrorOf(currency.html, "f-currency")).toContain("ISO 4217");

    const fields = await postForm(PATH, user, { ...FORM, scac: "M4EU", free_days: "many", tier_rate_0: "1,50" });
    expect(fields.res.status).toBe(422);
    expect(fieldErrorOf(fields.html, "f-scac")).toContain("SCAC");
    expect(fieldErrorOf(fields.html, "f-free_days")).not.toBeNull();
    expect(fieldErrorOf(fields.html, "f-tier_rate_0")).toContain("decimal");

    const none = await postForm(PATH, user, { ...FORM, tier_to_0: "", tier_rate_0: "", tier_rate_1: "" });
    expect(fieldErrorOf(none.html, "f-tiers")).not.toBeNull();
    expect(await tariffsOf(accountId)).toEqual([]);
  });

  it("renders a tariff name with markup inert", async () => {
    const { user } = await createAccountWithWebUser("admin");
    await createThroughForm(user, { name: `<script>alert(1)</script>"><img src=x onerror=alert(1)>` });
    const html = await getPage(PATH, user);
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });
});

describe("a tariff's page", () => {
  it("edits (a refused edit changes nothing) and deletes when confirmed", async () => {
    const { accountId, user } = await createAccountWithWebUser("admin");
    await createThroughForm(user);
    const [created] = await tariffsOf(accountId);
    const path = `${PATH}/${created?.id}`;
    const page = await getPage(path, user);
    expect(page).toContain('name="tier_rows" value="3"');
    const saved = await postForm(path, user, { ...FORM, free_days: "5", tier_to_0: "3", tier_rate_1: "250.00" });
    expect(saved.res.status).toBe(200);
    expect(saved.html).toContain("Saved.");
    let [row] = await tariffsOf(accountId);
    expect(row?.free_days).toBe(5);
    expect(JSON.parse(row?.tiers ?? "[]")[1]).toEqual({
      from_day: 4,
      to_day: null,
      rate_per_day: "250.00",
      currency_code: "USD",
    });

    const refused = await postForm(path, user, { ...FORM, kind: "detention", clock_starts_at: "discharged" });
    expect(refused.res.status).toBe(422);
    expect(fieldErrorOf(refused.html, "f-clock_starts_at")).toContain("full_out");
    [row] = await tariffsOf(accountId);
    expect(row?.kind).toBe("demurrage");

    const more = await postForm(path, user, { ...FORM, add_tier: "1" });
    expect(more.html).toContain('aria-label="Tier 4 from day"');

    expect((await postForm(`${path}/delete`, user, {}, { from: path })).res.status).toBe(422);
    const deleted = await postForm(`${path}/delete`, user, { confirm: "on" }, { from: path });
    expect(deleted.res.status).toBe(303);
    expect(deleted.res.headers.get("location")).toBe(PATH);
    expect(await tariffsOf(accountId)).toEqual([]);
  });

  it("lets members and viewers read without forms; refuses their writes (403), no CSRF (403), others' tariffs (404)", async () => {
    const { accountId, user: admin } = await createAccountWithWebUser("admin");
    await createThroughForm(admin);
    const [mine] = await tariffsOf(accountId);
    const member = await createWebUser(accountId, "member");
    const viewer = await createWebUser(accountId, "viewer");
    for (const user of [member, viewer]) {
      const list = await getPage(PATH, user);
      expect(list).toContain("Maersk LA demurrage");
      expect(list).not.toContain("Create tariff");
      expect(await getPage(`${PATH}/${mine?.id}`, user)).not.toContain("Save changes");
      const csrf = csrfOf(list);
      for (const path of [PATH, `${PATH}/${mine?.id}`, `${PATH}/${mine?.id}/delete`]) {
        const res = await web(path, { user, form: { ...FORM, _csrf: csrf, confirm: "on" } });
        expect(res.status, path).toBe(403);
      }
    }
    expect((await postForm(PATH, admin, FORM, { csrf: null })).res.status).toBe(403);

    const other = await createAccount("Other");
    const otherAdmin = await createWebUser(other.accountId, "admin");
    const otherCsrf = csrfOf(await getPage(PATH, otherAdmin));
    const res = await web(`${PATH}/${mine?.id}`, { user: otherAdmin });
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("<h1>Not found</h1>");
    for (const path of [`${PATH}/${mine?.id}`, `${PATH}/${mine?.id}/delete`]) {
      const posted = await web(path, { user: otherAdmin, form: { ...FORM, _csrf: otherCsrf, confirm: "on" } });
      expect(posted.status, path).toBe(404);
    }
    expect(await tariffsOf(accountId)).toHaveLength(1);
    expect(await tariffsOf(other.accountId)).toHaveLength(0);
  });
});
