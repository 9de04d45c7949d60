import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import {
  DEFAULT_PAGE_SIZE,
  listLinksAndMeta,
  MAX_PAGE_NUMBER,
  MAX_PAGE_SIZE,
  type PageRequest,
  parsePage,
} from "../../../src/lib/jsonapi/pagination";

// docs/decisions.md §Wire format: page[number] ≥ 1 (default 1), page[size] default 30, > 100 clamped to 100; links are
// absolute, sorted, brackets readable; meta = {size, total, pagination:{current, next?, last?, records}}.

const q = (s: string) => new URLSearchParams(s);

function expectBadParameter(fn: () => unknown, parameter: string): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).toBe(400);
    expect(e.errors).toHaveLength(1);
    expect(e.errors[0]?.status).toBe("400");
    expect(e.errors[0]?.source).toEqual({ parameter });
    return e;
  }
  throw new Error(`expected a 400 for ${parameter}`);
}

describe("parsePage", () => {
  it("defaults to page 1 of 30", () => {
    expect(DEFAULT_PAGE_SIZE).toBe(30);
    expect(parsePage(q(""))).toEqual({ number: 1, size: 30, sizeGiven: false, offset: 0 });
  });

  it("takes a per-endpoint default size", () => {
    expect(parsePage(q(""), 25)).toEqual({ number: 1, size: 25, sizeGiven: false, offset: 0 });
    expect(parsePage(q("page[size]=7"), 25).size).toBe(7);
  });

  it("treats empty values as absent", () => {
    expect(parsePage(q("page[number]=&page[size]="))).toEqual({ number: 1, size: 30, sizeGiven: false, offset: 0 });
  });

  it("reads number and size and computes the offset", () => {
    expect(parsePage(q("page[number]=3&page[size]=10"))).toEqual({ number: 3, size: 10, sizeGiven: true, offset: 20 });
    expect(parsePage(q("page[number]=1&page[size]=1"))).toEqual({ number: 1, size: 1, sizeGiven: true, offset: 0 });
    expect(parsePage(q("page[number]=2"))).toEqual({ number: 2, size: 30, sizeGiven: false, offset: 30 });
  });

  it("accepts the percent-encoded bracket form (URLSearchParams decodes it)", () => {
    expect(parsePage(q("page%5Bnumber%5D=4&page%5Bsize%5D=5"))).toEqual({
      number: 4,
      size: 5,
      sizeGiven: true,
      offset: 15,
    });
    expect(parsePage(q("page%5bsize%5d=5")).size).toBe(5);
  });

  it("trims surrounding spaces and accepts leading zeros", () => {
    expect(parsePage(q("page[number]=%202%20&page[size]=010"))).toEqual({
      number: 2,
      size: 10,
      sizeGiven: true,
      offset: 10,
    });
  });

  it("clamps sizes over 100 to 100, however large", () => {
    expect(MAX_PAGE_SIZE).toBe(100);
    expect(parsePage(q("page[size]=100")).size).toBe(100);
    expect(parsePage(q("page[size]=101")).size).toBe(100);
    expect(parsePage(q("page[size]=999999999")).size).toBe(100);
    expect(parsePage(q("page[size]=99999999999999999999999")).size).toBe(100);
    expect(parsePage(q(`page[size]=${"9".repeat(400)}`)).size).toBe(100);
    expect(parsePage(q("page[number]=3&page[size]=5000"))).toEqual({
      number: 3,
      size: 100,
      sizeGiven: true,
      offset: 200,
    });
  });

  it("uses the first of repeated parameters", () => {
    expect(parsePage(q("page[size]=5&page[size]=50")).size).toBe(5);
  });

  it.each(["0", "-1", "abc", "1.5", "1e3", "0x10", "+3", "3 4", " ", "٣", "１", "00"])(
    "refuses page[size]=%j",
    (value) => {
      expectBadParameter(() => parsePage(q(`page[size]=${encodeURIComponent(value)}`)), "page[size]");
    },
  );

  it.each(["0", "-2", "two", "2.0", "1e2", "Infinity", "NaN", " ", "000"])("refuses page[number]=%j", (value) => {
    const err = expectBadParameter(() => parsePage(q(`page[number]=${encodeURIComponent(value)}`)), "page[number]");
    expect(err.errors[0]?.detail).toBe("page[number] must be a positive integer.");
  });

  it("refuses absurd page numbers but allows the maximum", () => {
    expect(MAX_PAGE_NUMBER).toBe(1_000_000);
    expect(parsePage(q(`page[number]=${MAX_PAGE_NUMBER}&page[size]=100`)).offset).toBe((MAX_PAGE_NUMBER - 1) * 100);
    for (const value of [String(MAX_PAGE_NUMBER + 1), "9999999999", "9".repeat(400)]) {
      const err = expectBadParameter(() => parsePage(q(`page[number]=${value}`)), "page[number]");
      expect(err.errors[0]?.detail).toBe(`page[number] must be at most ${MAX_PAGE_NUMBER}.`);
    }
  });

  it("checks page[number] before page[size]", () => {
    expectBadParameter(() => parsePage(q("page[number]=x&page[size]=y")), "page[number]");
  });
});

const page = (number: number, size: number, sizeGiven = true): PageRequest => ({
  number,
  size,
  sizeGiven,
  offset: (number - 1) * size,
});
const BASE = "https://api.test/v2/containers";

describe("listLinksAndMeta", () => {
  it("builds absolute, sorted links with prev/next on a middle page", () => {
    const url = `${BASE}?page[size]=10&page[number]=2&include=shipment&filter[status]=new`;
    const { links, meta } = listLinksAndMeta(url, page(2, 10), 10, 35);
    const at = (n: number) => `${BASE}?filter[status]=new&include=shipment&page[number]=${n}&page[size]=10`;
    expect(links).toStrictEqual({ self: url, current: at(2), first: at(1), prev: at(1), next: at(3), last: at(4) });
    expect(meta).toStrictEqual({ size: 10, total: 35, pagination: { current: 2, next: 3, last: 4, records: 35 } });
  });

  it("puts keys in order: links list keys in a stable, predictable order", () => {
    const { links } = listLinksAndMeta(`${BASE}?z=1&a=2&page[number]=1`, page(1, 30, false), 0, 0);
    expect(links.current).toBe(`${BASE}?a=2&page[number]=1&z=1`);
  });

  it("leaves page[size] out of links when the client did not give one", () => {
    const { links } = listLinksAndMeta(BASE, page(1, 30, false), 30, 61);
    expect(links).toStrictEqual({
      self: BASE,
      current: `${BASE}?page[number]=1`,
      first: `${BASE}?page[number]=1`,
      next: `${BASE}?page[number]=2`,
      last: `${BASE}?page[number]=3`,
    });
  });

  it("writes the clamped size, not the one asked for", () => {
    const url = `${BASE}?page[size]=5000`;
    const { links } = listLinksAndMeta(url, parsePage(new URL(url).searchParams), 100, 250);
    expect(links.self).toBe(url);
    expect(links.last).toBe(`${BASE}?page[number]=3&page[size]=100`);
  });

  it("has neither prev nor next on a single page, and meta omits next", () => {
    const { links, meta } = listLinksAndMeta(BASE, page(1, 30, false), 3, 3);
    expect(Object.keys(links).sort()).toEqual(["current", "first", "last", "self"]);
    expect(links.last).toBe(`${BASE}?page[number]=1`);
    expect(meta).toStrictEqual({ size: 3, total: 3, pagination: { current: 1, last: 1, records: 3 } });
    expect("next" in meta.pagination).toBe(false);
  });

  it("omits meta.pagination.last and next when there are no records (links still point at page 1)", () => {
    const { links, meta } = listLinksAndMeta(BASE, page(1, 30, false), 0, 0);
    expect(meta).toStrictEqual({ size: 0, total: 0, pagination: { current: 1, records: 0 } });
    expect(Object.keys(meta.pagination).sort()).toEqual(["current", "records"]);
    expect(links.last).toBe(`${BASE}?page[number]=1`);
    expect(links.next).toBeUndefined();
    expect(links.prev).toBeUndefined();
  });

  it("computes the last page exactly at and around multiples of the size", () => {
    const lastOf = (total: number, size: number) =>
      listLinksAndMeta(BASE, page(1, size), 0, total).meta.pagination.last;
    expect(lastOf(1, 10)).toBe(1);
    expect(lastOf(10, 10)).toBe(1);
    expect(lastOf(11, 10)).toBe(2);
    expect(lastOf(20, 10)).toBe(2);
    expect(lastOf(21, 10)).toBe(3);
    expect(lastOf(100, 100)).toBe(1);
    expect(lastOf(101, 100)).toBe(2);
    expect(lastOf(1, 1)).toBe(1);
    expect(lastOf(7, 1)).toBe(7);
  });

  it("on the last page has prev but no next", () => {
    const { links, meta } = listLinksAndMeta(BASE, page(4, 10), 5, 35);
    expect(links.prev).toBe(`${BASE}?page[number]=3&page[size]=10`);
    expect(links.next).toBeUndefined();
    expect(meta.pagination).toStrictEqual({ current: 4, last: 4, records: 35 });
  });

  it("past the last page: prev points at the last page, no next", () => {
    const { links, meta } = listLinksAndMeta(`${BASE}?page[number]=9&page[size]=10`, page(9, 10), 0, 35);
    expect(links.current).toBe(`${BASE}?page[number]=9&page[size]=10`);
    expect(links.prev).toBe(`${BASE}?page[number]=4&page[size]=10`);
    expect(links.next).toBeUndefined();
    expect(meta).toStrictEqual({ size: 0, total: 35, pagination: { current: 9, last: 4, records: 35 } });
  });

  it("keeps brackets and commas readable and encodes everything else", () => {
    const url = `${BASE}?page%5Bnumber%5D=1&filter%5Bnumber%5D=a%20b%26c%3D%2F&include=shipment%2Cpod_terminal`;
    const { links } = listLinksAndMeta(url, page(1, 30, false), 0, 0);
    expect(links.self).toBe(url);
    expect(links.first).toBe(`${BASE}?filter[number]=a%20b%26c%3D%2F&include=shipment,pod_terminal&page[number]=1`);
  });

  it("encodes unicode and injection strings so links stay valid URLs that round-trip", () => {
    const value = "' OR 1=1 -- 🚢 مرحبا";
    const url = `${BASE}?filter[number]=${encodeURIComponent(value)}`;
    const { links } = listLinksAndMeta(url, page(1, 30, false), 0, 0);
    const first = new URL(links.first ?? "");
    expect(first.searchParams.get("filter[number]")).toBe(value);
    // encodeURIComponent leaves ' as is (a legal URL character); spaces and non-ASCII are percent-encoded.
    expect(links.first).toBe(
      `${BASE}?filter[number]='%20OR%201%3D1%20--%20%F0%9F%9A%A2%20%D9%85%D8%B1%D8%AD%D8%A8%D8%A7&page[number]=1`,
    );
  });

  it("drops the request's own page parameters (also in encoded form) and keeps repeated others", () => {
    const url = `${BASE}?page%5Bnumber%5D=2&page%5Bsize%5D=3&tag=b&tag=a`;
    const { links } = listLinksAndMeta(url, page(2, 3), 3, 9);
    expect(links.current).toBe(`${BASE}?page[number]=2&page[size]=3&tag=b&tag=a`);
  });

  it("uses the request's origin and path, dropping any fragment", () => {
    const { links } = listLinksAndMeta("http://localhost:8787/v2/shipments?x=1#frag", page(1, 30, false), 0, 0);
    expect(links.first).toBe("http://localhost:8787/v2/shipments?page[number]=1&x=1");
  });
});

describe("listLinksAndMeta: page links built from one sorted, encoded query", () => {
  /**
   * The straightforward build the links must equal (the implementation before session 6, which sorted and encoded
   * the whole query again for every link): the request's parameters but the page ones, plus `page[number]` and, when
   * given, `page[size]`, stably sorted by name, brackets and commas left readable.
   */
  function expectedPageUrl(requestUrl: string, page: PageRequest, n: number): string {
    const url = new URL(requestUrl);
    const params: [string, string][] = [];
    for (const [k, v] of url.searchParams) if (k !== "page[number]" && k !== "page[size]") params.push([k, v]);
    params.push(["page[number]", String(n)]);
    if (page.sizeGiven) params.push(["page[size]", String(page.size)]);
    params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const enc = (s: string) => encodeURIComponent(s).replace(/%5B/gi, "[").replace(/%5D/gi, "]").replace(/%2C/gi, ",");
    return `${url.origin}${url.pathname}?${params.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&")}`;
  }

  const keyArb = fc.oneof(
    fc.constantFrom("include", "filter[status]", "filter[number]", "page[number]", "page[size]", "a", "z", "page"),
    fc.string({ maxLength: 12 }),
  );
  const queryArb = fc.array(fc.tuple(keyArb, fc.string({ maxLength: 12 })), { maxLength: 6 });

  it("every link equals the straightforward build, for any query (duplicates, empty names, unicode)", () => {
    fc.assert(
      fc.property(
        queryArb,
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 100 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 5_000 }),
        (pairs, number, size, sizeGiven, total) => {
          const requestUrl = `https://api.example.test/v2/containers?${new URLSearchParams(pairs).toString()}`;
          const page: PageRequest = { number, size, sizeGiven, offset: (number - 1) * size };
          const { links } = listLinksAndMeta(requestUrl, page, 0, total);
          const last = Math.max(1, Math.ceil(total / size));
          expect(links.self).toBe(requestUrl);
          expect(links.current).toBe(expectedPageUrl(requestUrl, page, number));
          expect(links.first).toBe(expectedPageUrl(requestUrl, page, 1));
          expect(links.last).toBe(expectedPageUrl(requestUrl, page, last));
          expect(links.prev).toBe(
            number > 1 ? expectedPageUrl(requestUrl, page, Math.min(number - 1, last)) : undefined,
          );
          expect(links.next).toBe(number < last ? expectedPageUrl(requestUrl, page, number + 1) : undefined);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("places page[number] among the other parameters by name, page[size] after it", () => {
    const page: PageRequest = { number: 2, size: 10, sizeGiven: true, offset: 10 };
    const { links } = listLinksAndMeta("https://h.test/v2/x?z=1&include=shipment&page[size]=10&a=b", page, 10, 100);
    expect(links.current).toBe("https://h.test/v2/x?a=b&include=shipment&page[number]=2&page[size]=10&z=1");
    const bare = listLinksAndMeta("https://h.test/v2/x", { number: 1, size: 30, sizeGiven: false, offset: 0 }, 0, 0);
    expect(bare.links.first).toBe("https://h.test/v2/x?page[number]=1");
  });
});
