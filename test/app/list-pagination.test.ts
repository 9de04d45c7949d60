import { describe, expect, it } from "vitest";
import { api, apiJson, BASE, createAccount, type TestAccount } from "../helpers/api";
import { type Doc, insertTrackingRequests, type Many } from "../helpers/tracking";

const URL_TR = `${BASE}/tracking_requests`;

async function page(account: TestAccount, query: string): Promise<{ res: Response; json: Many }> {
  return apiJson<Many>(`/tracking_requests${query}`, { key: account.key });
}

/** An account with 7 tracking requests, created one second apart; ids returned newest first. */
async function sevenRecords(): Promise<{ account: TestAccount; newestFirst: string[] }> {
  const account = await createAccount();
  const ids = await insertTrackingRequests(account, 7, { start: "2025-03-01T00:00:00Z" });
  return { account, newestFirst: [...ids].reverse() };
}

describe("page edges: 7 records, page[size]=3", () => {
  it("page 1: first three, next and last, no prev", async () => {
    const { account, newestFirst } = await sevenRecords();
    const { res, json } = await page(account, "?page[size]=3");
    expect(res.status).toBe(200);
    expect(json.data.map((r) => r.id)).toEqual(newestFirst.slice(0, 3));
    expect(json.links).toEqual({
      self: `${URL_TR}?page[size]=3`,
      current: `${URL_TR}?page[number]=1&page[size]=3`,
      first: `${URL_TR}?page[number]=1&page[size]=3`,
      next: `${URL_TR}?page[number]=2&page[size]=3`,
      last: `${URL_TR}?page[number]=3&page[size]=3`,
    });
    expect(json.meta).toEqual({ size: 3, total: 7, pagination: { current: 1, next: 2, last: 3, records: 7 } });
  });

  it("page 2: prev and next", async () => {
    const { account, newestFirst } = await sevenRecords();
    const { json } = await page(account, "?page[number]=2&page[size]=3");
    expect(json.data.map((r) => r.id)).toEqual(newestFirst.slice(3, 6));
    expect(json.links).toEqual({
      self: `${URL_TR}?page[number]=2&page[size]=3`,
      current: `${URL_TR}?page[number]=2&page[size]=3`,
      first: `${URL_TR}?page[number]=1&page[size]=3`,
      prev: `${URL_TR}?page[number]=1&page[size]=3`,
      next: `${URL_TR}?page[number]=3&page[size]=3`,
      last: `${URL_TR}?page[number]=3&page[size]=3`,
    });
    expect(json.meta).toEqual({ size: 3, total: 7, pagination: { current: 2, next: 3, last: 3, records: 7 } });
  });

  it("page 3 (last): one record, prev, no next", async () => {
    const { account, newestFirst } = await sevenRecords();
    const { json } = await page(account, "?page[number]=3&page[size]=3");
    expect(json.data.map((r) => r.id)).toEqual(newestFirst.slice(6));
    expect(json.links?.next).toBeUndefined();
    expect(json.links?.prev).toBe(`${URL_TR}?page[number]=2&page[size]=3`);
    expect(json.links?.last).toBe(`${URL_TR}?page[number]=3&page[size]=3`);
    expect(json.meta).toEqual({ size: 1, total: 7, pagination: { current: 3, last: 3, records: 7 } });
  });

  it("page 4 (beyond the end): empty, no next", async () => {
    const { account } = await sevenRecords();
    const { res, json } = await page(account, "?page[number]=4&page[size]=3");
    expect(res.status).toBe(200);
    expect(json.data).toEqual([]);
    expect(json.links?.next).toBeUndefined();
    expect(json.links?.current).toBe(`${URL_TR}?page[number]=4&page[size]=3`);
    expect(json.links?.last).toBe(`${URL_TR}?page[number]=3&page[size]=3`);
    expect(json.meta?.size).toBe(0);
    expect(json.meta?.total).toBe(7);
    expect(json.meta?.pagination).toMatchObject({ current: 4, records: 7 });
    expect(json.meta?.pagination.next).toBeUndefined();
  });

  it("walking links.next visits every record once, newest first", async () => {
    const { account, newestFirst } = await sevenRecords();
    const seen: string[] = [];
    let url: string | undefined = `${URL_TR}?page[size]=3`;
    let pages = 0;
    while (url) {
      const { json }: { json: Many } = await apiJson<Many>(url, { key: account.key });
      seen.push(...json.data.map((r) => r.id));
      url = json.links?.next;
      pages++;
      expect(pages).toBeLessThanOrEqual(3);
    }
    expect(seen).toEqual(newestFirst);
  });
});

describe("links", () => {
  it("keep other parameters, sorted by name, brackets literal; self echoes the request as sent", async () => {
    const { account, newestFirst } = await sevenRecords();
    const query = "?page[size]=3&page[number]=2&filter[scac]=TEST&include=tracked_object";
    const { json } = await page(account, query);
    expect(json.data.map((r) => r.id)).toEqual(newestFirst.slice(3, 6));
    expect(json.links?.self).toBe(`${URL_TR}${query}`);
    expect(json.links?.current).toBe(`${URL_TR}?filter[scac]=TEST&include=tracked_object&page[number]=2&page[size]=3`);
    expect(json.links?.next).toBe(`${URL_TR}?filter[scac]=TEST&include=tracked_object&page[number]=3&page[size]=3`);
    expect(json.links?.prev).toBe(`${URL_TR}?filter[scac]=TEST&include=tracked_object&page[number]=1&page[size]=3`);
  });

  it("without page[size] the links carry only page[number]", async () => {
    const { account } = await sevenRecords();
    const { json } = await page(account, "");
    expect(json.links).toEqual({
      self: URL_TR,
      current: `${URL_TR}?page[number]=1`,
      first: `${URL_TR}?page[number]=1`,
      last: `${URL_TR}?page[number]=1`,
    });
    expect(json.meta).toEqual({ size: 7, total: 7, pagination: { current: 1, last: 1, records: 7 } });
  });

  it("an empty list has current and last page 1, and no next/last in meta.pagination", async () => {
    const account = await createAccount();
    const { json } = await page(account, "?page[size]=3");
    expect(json.data).toEqual([]);
    expect(json.links?.next).toBeUndefined();
    expect(json.links?.prev).toBeUndefined();
    expect(json.links?.current).toBe(`${URL_TR}?page[number]=1&page[size]=3`);
    expect(json.meta).toEqual({ size: 0, total: 0, pagination: { current: 1, records: 0 } });
  });

  it("percent-encoded brackets behave like literal ones", async () => {
    const { account, newestFirst } = await sevenRecords();
    const query = "?page%5Bsize%5D=3&page%5Bnumber%5D=2";
    const { res, json } = await page(account, query);
    expect(res.status).toBe(200);
    expect(json.data.map((r) => r.id)).toEqual(newestFirst.slice(3, 6));
    expect(json.links?.self).toBe(`${URL_TR}${query}`);
    expect(json.links?.current).toBe(`${URL_TR}?page[number]=2&page[size]=3`);
    expect(json.links?.next).toBe(`${URL_TR}?page[number]=3&page[size]=3`);
    expect(json.meta).toEqual({ size: 3, total: 7, pagination: { current: 2, next: 3, last: 3, records: 7 } });
  });

  it("encoded filter values stay encoded, brackets and commas readable", async () => {
    const { account } = await sevenRecords();
    const { json } = await page(account, "?filter[request_number]=BULK-1&include=tracked_object,customer&page[size]=3");
    expect(json.data).toHaveLength(1);
    expect(json.links?.current).toBe(
      `${URL_TR}?filter[request_number]=BULK-1&include=tracked_object,customer&page[number]=1&page[size]=3`,
    );
    const spaced = await page(account, "?filter[request_number]=a%20b%26c");
    expect(spaced.json.links?.current).toBe(`${URL_TR}?filter[request_number]=a%20b%26c&page[number]=1`);
  });
});

describe("page[size] and page[number] values", () => {
  it("page[size] over 100 is clamped to 100", async () => {
    const account = await createAccount();
    await insertTrackingRequests(account, 105);
    const { res, json } = await page(account, "?page[size]=1000");
    expect(res.status).toBe(200);
    expect(json.data).toHaveLength(100);
    expect(json.links?.current).toBe(`${URL_TR}?page[number]=1&page[size]=100`);
    expect(json.links?.next).toBe(`${URL_TR}?page[number]=2&page[size]=100`);
    expect(json.meta).toEqual({ size: 100, total: 105, pagination: { current: 1, next: 2, last: 2, records: 105 } });
    const second = await page(account, "?page[size]=1000&page[number]=2");
    expect(second.json.data).toHaveLength(5);
  });

  it("the default page size is 30", async () => {
    const account = await createAccount();
    await insertTrackingRequests(account, 31);
    const { json } = await page(account, "");
    expect(json.data).toHaveLength(30);
    expect(json.links?.next).toBe(`${URL_TR}?page[number]=2`);
    expect(json.meta?.pagination).toEqual({ current: 1, next: 2, last: 2, records: 31 });
  });

  const bad: [string, string][] = [
    ["page[size]=0", "page[size]"],
    ["page[size]=-1", "page[size]"],
    ["page[size]=abc", "page[size]"],
    ["page[size]=2.5", "page[size]"],
    ["page[number]=0", "page[number]"],
    ["page[number]=-3", "page[number]"],
    ["page[number]=two", "page[number]"],
    ["page%5Bsize%5D=0", "page[size]"],
  ];
  for (const [query, parameter] of bad) {
    it(`${query} → 400 naming ${parameter}`, async () => {
      const account = await createAccount();
      const { res, json } = await apiJson<Doc>(`/tracking_requests?${query}`, { key: account.key });
      expect(res.status).toBe(400);
      expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
      expect(json.errors?.[0]).toMatchObject({ status: "400", title: "Bad Request", source: { parameter } });
    });
  }

  it("the same validation applies to the other lists", async () => {
    const account = await createAccount();
    for (const path of ["/shipments", "/containers", "/parties", "/shipping_lines"]) {
      const res = await api(`${path}?page[size]=0`, { key: account.key });
      expect(res.status, path).toBe(400);
      const json = (await res.json()) as Doc;
      expect(json.errors?.[0]?.source?.parameter).toBe("page[size]");
    }
  });
});

describe("ordering", () => {
  it("newest first by created_at, ties broken by id descending", async () => {
    const account = await createAccount();
    const older = await insertTrackingRequests(account, 3, { start: "2024-01-01T00:00:00Z", prefix: "OLD" });
    const tied = await insertTrackingRequests(account, 3, {
      start: "2024-06-01T00:00:00Z",
      prefix: "TIE",
      sameTime: true,
    });
    const { json } = await page(account, "");
    const expected = [...[...tied].sort().reverse(), ...[...older].reverse()];
    expect(json.data.map((r) => r.id)).toEqual(expected);
    const createdAt = json.data.map((r) => String(r.attributes.created_at));
    expect([...createdAt].sort().reverse()).toEqual(createdAt);
  });
});
