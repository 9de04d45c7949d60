import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type ContainerSortKey, containerListOrder } from "../../src/containers/list-order";
import { createDatabase } from "../../src/db/client";
import { containers } from "../../src/db/schema";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { seedContainerCustomField, seedContainers } from "../helpers/container-rows";
import type { Many } from "../helpers/tracking";

const HOLD = { name: "customs", status: "hold", description: null } as const;
const PENDING = { name: "freight", status: "pending", description: null } as const;

/** Five boxes whose values differ on every sort key, some missing. */
async function fiveBoxes(account: TestAccount) {
  return seedContainers(account.accountId, [
    {
      number: "AAAU0000001",
      scac: "MSCU",
      podLocode: "USLAX",
      status: "available",
      available: true,
      pickupLfd: "2026-01-10T07:59:59Z",
      podEtaAt: "2026-01-03T10:00:00Z",
      holds: [HOLD],
      second: 1,
    },
    {
      number: "CCCU0000003",
      scac: "CMDU",
      podLocode: "USNYC",
      status: "on_ship",
      podEtaAt: "2026-01-02T10:00:00Z",
      second: 2,
    },
    {
      number: "BBBU0000002",
      scac: null,
      podLocode: null,
      status: "not_available",
      available: false,
      pickupLfd: "2026-01-08T07:59:59Z",
      holds: [PENDING],
      second: 3,
    },
    { number: "EEEU0000005", scac: "MAEU", podLocode: "USLAX", status: "new", second: 4 },
    {
      number: "DDDU0000004",
      scac: "MAEU",
      podLocode: "DEHAM",
      status: "picked_up",
      pickupLfd: "2026-01-08T07:59:59Z",
      podEtaAt: "2026-01-05T10:00:00Z",
      second: 5,
    },
  ]);
}

async function numbers(account: TestAccount, query: string): Promise<string[]> {
  const { res, json } = await apiJson<Many>(`/containers?${query}`, { key: account.key });
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data.map((c) => String(c.attributes.number));
}

describe("GET /containers?sort= (extension)", () => {
  it("orders by each key, missing values last ascending, the exact reverse descending, ties by id", async () => {
    const account = await createAccount();
    await fiveBoxes(account);
    const cases: [string, string[]][] = [
      ["number", ["AAAU0000001", "BBBU0000002", "CCCU0000003", "DDDU0000004", "EEEU0000005"]],
      // MAEU twice: by id (seeding order), then no SCAC last.
      ["scac", ["CCCU0000003", "EEEU0000005", "DDDU0000004", "AAAU0000001", "BBBU0000002"]],
      ["pod_locode", ["DDDU0000004", "AAAU0000001", "EEEU0000005", "CCCU0000003", "BBBU0000002"]],
      // Journey order: new, on_ship, available, not_available, picked_up.
      ["current_status", ["EEEU0000005", "CCCU0000003", "AAAU0000001", "BBBU0000002", "DDDU0000004"]],
      ["available_for_pickup", ["AAAU0000001", "BBBU0000002", "CCCU0000003", "EEEU0000005", "DDDU0000004"]],
      ["pickup_lfd", ["BBBU0000002", "DDDU0000004", "AAAU0000001", "CCCU0000003", "EEEU0000005"]],
      ["pod_eta_at", ["CCCU0000003", "AAAU0000001", "DDDU0000004", "BBBU0000002", "EEEU0000005"]],
      ["created_at", ["AAAU0000001", "CCCU0000003", "BBBU0000002", "EEEU0000005", "DDDU0000004"]],
      ["updated_at", ["AAAU0000001", "CCCU0000003", "BBBU0000002", "EEEU0000005", "DDDU0000004"]],
    ];
    for (const [key, expected] of cases) {
      expect(await numbers(account, `sort=${key}`), key).toEqual(expected);
      expect(await numbers(account, `sort=-${key}`), `-${key}`).toEqual([...expected].reverse());
    }
    // Without sort: newest first, as before.
    expect(await numbers(account, "")).toEqual([
      "DDDU0000004",
      "EEEU0000005",
      "BBBU0000002",
      "CCCU0000003",
      "AAAU0000001",
    ]);
  });

  it("pages through a sorted list without overlap, with filters", async () => {
    const account = await createAccount();
    await fiveBoxes(account);
    const first = await numbers(account, "sort=pickup_lfd&page[size]=2");
    const second = await numbers(account, "sort=pickup_lfd&page[size]=2&page[number]=2");
    const third = await numbers(account, "sort=pickup_lfd&page[size]=2&page[number]=3");
    expect([...first, ...second, ...third]).toEqual(await numbers(account, "sort=pickup_lfd"));
    expect(await numbers(account, "sort=-pickup_lfd&filter[pod_locode]=USLAX")).toEqual(["EEEU0000005", "AAAU0000001"]);
  });

  it("refuses an unknown key, two keys and a second sort with 400 at sort", async () => {
    const account = await createAccount();
    for (const bad of ["eta", "pickup_lfd,number", "-", "holds"]) {
      const { res, json } = await apiJson<Many>(`/containers?sort=${encodeURIComponent(bad)}`, { key: account.key });
      expect(res.status, bad).toBe(400);
      expect(json.errors?.[0]?.source?.parameter).toBe("sort");
      expect(json.errors?.[0]?.detail).toContain("pickup_lfd");
    }
    const twice = await apiJson<Many>("/containers?sort=number&sort=scac", { key: account.key });
    expect(twice.res.status).toBe(400);
    expect(twice.json.errors?.[0]?.code).toBe("duplicate_parameter");
  });

  it("needs a key, and another account's boxes never sort in", async () => {
    const account = await createAccount();
    const other = await createAccount();
    await fiveBoxes(other);
    expect((await apiJson("/containers?sort=number")).res.status).toBe(401);
    expect((await apiJson("/containers?sort=number", { key: "bad-key" })).res.status).toBe(401);
    expect(await numbers(account, "sort=number")).toEqual([]);
  });
});

describe("GET /containers filter[has_holds], filter[custom_field], filter[search] (extensions)", () => {
  it("has_holds counts holds in force only", async () => {
    const account = await createAccount();
    await fiveBoxes(account);
    expect(await numbers(account, "filter[has_holds]=true")).toEqual(["AAAU0000001"]);
    expect((await numbers(account, "filter[has_holds]=false")).sort()).toEqual([
      "BBBU0000002",
      "CCCU0000003",
      "DDDU0000004",
      "EEEU0000005",
    ]);
    const bad = await apiJson<Many>("/containers?filter[has_holds]=yes", { key: account.key });
    expect(bad.res.status).toBe(400);
    expect(bad.json.errors?.[0]?.source?.parameter).toBe("filter[has_holds]");
  });

  it("custom_field matches a value as text, case-insensitively, and within the account", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const [a, b, c] = await fiveBoxes(account);
    const [o] = await fiveBoxes(other);
    if (!a || !b || !c || !o) throw new Error("seed");
    await seedContainerCustomField(account.accountId, a.id, "warehouse", "North Dock");
    await seedContainerCustomField(account.accountId, b.id, "warehouse", "South");
    await seedContainerCustomField(account.accountId, c.id, "urgent", true, "boolean");
    await seedContainerCustomField(account.accountId, b.id, "tags", ["hot", "fragile"], "enum_multi");
    await seedContainerCustomField(other.accountId, o.id, "warehouse", "North Dock");
    expect(
      await numbers(account, "filter[custom_field][slug]=warehouse&filter[custom_field][value]=north%20dock"),
    ).toEqual(["AAAU0000001"]);
    expect(await numbers(account, "filter[custom_field][slug]=urgent&filter[custom_field][value]=true")).toEqual([
      "BBBU0000002",
    ]);
    expect(await numbers(account, "filter[custom_field][slug]=tags&filter[custom_field][value]=FRAGILE")).toEqual([
      "CCCU0000003",
    ]);
    expect(await numbers(account, "filter[custom_field][slug]=warehouse&filter[custom_field][value]=East")).toEqual([]);
    const alone = await apiJson<Many>("/containers?filter[custom_field][slug]=warehouse", { key: account.key });
    expect(alone.res.status).toBe(400);
    expect(alone.json.errors?.[0]?.source?.parameter).toBe("filter[custom_field][value]");
  });

  it("search keeps the containers the account search finds, by container or shipment", async () => {
    const account = await createAccount();
    await seedContainers(account.accountId, [
      { number: "MSCU1234565", refNumbers: ["PO-77812"], second: 1 },
      { number: "TGHU7654321", second: 2 },
    ]);
    expect(await numbers(account, "filter[search]=MSCU123")).toEqual(["MSCU1234565"]);
    expect(await numbers(account, "filter[search]=PO-77812")).toEqual(["MSCU1234565"]);
    expect(await numbers(account, "filter[search]=nothing-like-it")).toEqual([]);
    const bad = await apiJson<Many>(`/containers?filter[search]=${"x".repeat(101)}`, { key: account.key });
    expect(bad.res.status).toBe(400);
    expect(bad.json.errors?.[0]?.source?.parameter).toBe("filter[search]");
  });
});

describe("the sorted page's query plan", () => {
  it("walks an index of migration 0021 for each column order, both ways, without sorting the account's rows", async () => {
    const db = createDatabase(env.DB);
    const indexed: [ContainerSortKey, string][] = [
      ["scac", "containers_account_scac_order_idx"],
      ["pod_locode", "containers_account_pod_order_idx"],
      ["pickup_lfd", "containers_account_lfd_order_idx"],
      ["current_status", "containers_account_status_order_idx"],
      ["updated_at", "containers_account_updated_idx"],
      ["created_at", "containers_account_created_idx"],
    ];
    for (const [key, index] of indexed) {
      for (const descending of [false, true]) {
        const query = db
          .select({ id: containers.id })
          .from(containers)
          .where(eq(containers.accountId, "acct"))
          .orderBy(...containerListOrder({ key, descending }).by)
          .limit(50)
          .toSQL();
        const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
          .bind(...query.params)
          .all<{ detail: string }>();
        const details = plan.results.map((r) => r.detail).join(" | ");
        expect(details, `${descending ? "-" : ""}${key}`).toContain(index);
        expect(details, `${descending ? "-" : ""}${key}`).not.toContain("TEMP B-TREE");
      }
    }
  });
});
