import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { trackSandboxShipment } from "../helpers/tracking";

interface Hit {
  id: string;
  type: string;
  attributes: Record<string, unknown> & { entity_type: string; number: string };
}
interface SearchDoc {
  data: Hit[];
  links: Record<string, string>;
  meta?: unknown;
  errors?: { status: string; detail: string; source?: { parameter?: string }; code?: string }[];
}

const T0 = Date.parse("2026-03-01T00:00:00Z");
const at = (s: number) => new Date(T0 + s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Inserts a shipment (and its containers) straight into D1: the triggers of migration 0011 index them. */
async function insertShipment(
  account: TestAccount,
  o: {
    bl: string;
    second: number;
    vessel?: string;
    pod?: [string, string];
    pol?: [string, string];
    refs?: string[];
    containers?: { number: string; refs?: string[] }[];
  },
): Promise<{ shipmentId: string; containerIds: string[] }> {
  const shipmentId = newId();
  const stmts = [
    env.DB.prepare(
      `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, ref_numbers, shipping_line_scac,
         pod_vessel_name, port_of_lading_locode, port_of_lading_name, port_of_discharge_locode, port_of_discharge_name,
         created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 'MAEU', ?6, ?7, ?8, ?9, ?10, ?11, ?11)`,
    ).bind(
      shipmentId,
      account.accountId,
      o.bl,
      o.bl.trim().toUpperCase(),
      JSON.stringify(o.refs ?? []),
      o.vessel ?? null,
      o.pol?.[0] ?? null,
      o.pol?.[1] ?? null,
      o.pod?.[0] ?? null,
      o.pod?.[1] ?? null,
      at(o.second),
    ),
  ];
  const containerIds: string[] = [];
  for (const [i, c] of (o.containers ?? []).entries()) {
    const id = newId();
    containerIds.push(id);
    stmts.push(
      env.DB.prepare(
        `INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, scac, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'MAEU', ?6, ?6)`,
      ).bind(id, account.accountId, shipmentId, c.number, JSON.stringify(c.refs ?? []), at(o.second + i + 1)),
    );
  }
  await env.DB.batch(stmts);
  return { shipmentId, containerIds };
}

async function insertRequest(
  account: TestAccount,
  o: { number: string; second: number; refs?: string[]; status?: string },
): Promise<string> {
  const id = newId();
  await env.DB.prepare(
    `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac, ref_numbers,
       status, created_at, updated_at) VALUES (?1, ?2, 'bill_of_lading', ?3, ?4, 'MAEU', ?5, ?6, ?7, ?7)`,
  )
    .bind(
      id,
      account.accountId,
      o.number,
      o.number.trim().toUpperCase(),
      JSON.stringify(o.refs ?? []),
      o.status ?? "pending",
      at(o.second),
    )
    .run();
  return id;
}

async function search(
  account: TestAccount,
  query: string | null,
  extra = "",
): Promise<{ status: number; doc: SearchDoc }> {
  const q = query === null ? "" : `query=${encodeURIComponent(query)}`;
  const { res, json } = await apiJson<SearchDoc>(`/search?${q}${extra}`, { key: account.key });
  return { status: res.status, doc: json };
}

const ids = (doc: SearchDoc) => doc.data.map((h) => h.id);

describe("GET /v2/search", () => {
  let acme: TestAccount;
  let other: TestAccount;
  let s1: { shipmentId: string; containerIds: string[] };
  let s2: { shipmentId: string; containerIds: string[] };
  let tracked: string;
  let untracked: string;

  beforeAll(async () => {
    acme = await createAccount("Acme");
    other = await createAccount("Other");
    s1 = await insertShipment(acme, {
      bl: "MAEU240001234",
      second: 10,
      vessel: "MSC Gülsün",
      pol: ["CNSHA", "Shanghai"],
      pod: ["USLAX", "Los Angeles"],
      refs: ["PO-4711"],
      containers: [{ number: "MSCU1234566", refs: ["BOX-REF-9"] }, { number: "MSCU7654320" }],
    });
    s2 = await insertShipment(acme, {
      bl: "MAEU240001299",
      second: 100,
      vessel: "Ever Given",
      pol: ["NLRTM", "Rotterdam"],
      pod: ["USLGB", "Long Beach"],
      containers: [{ number: "TGHU1234560" }],
    });
    tracked = await insertRequest(acme, { number: "MAEU240001234", second: 5, status: "created" });
    untracked = await insertRequest(acme, { number: "MAEU240009999", second: 200, refs: ["PO-4711-B"] });
    // Another account holds the same numbers: never found by Acme, and the reverse.
    await insertShipment(other, {
      bl: "MAEU240001234",
      second: 300,
      vessel: "MSC Gülsün",
      pod: ["USLAX", "Los Angeles"],
      containers: [{ number: "MSCU1234566" }],
    });
    await insertRequest(other, { number: "OTHER-ONLY-1", second: 300 });
  });

  it("answers the reference's search_result shape, with the kind's nulls (docs/api.md §Search)", async () => {
    const { status, doc } = await search(acme, "MAEU240001234");
    expect(status).toBe(200);
    expect(doc.meta).toBeUndefined();
    const [shipment] = doc.data;
    expect(shipment).toEqual({
      id: s1.shipmentId,
      type: "search_result",
      attributes: {
        entity_type: "shipment",
        number: "MAEU240001234",
        shipment_id: null,
        scac: "MAEU",
        port_of_lading_name: "Shanghai",
        port_of_discharge_name: "Los Angeles",
        containers_count: 2,
        tracking_stopped: false,
        tracking_stopped_reason: null,
        status: null,
        failed_reason: null,
        ref_numbers: ["PO-4711"],
        created_at: at(10),
        updated_at: at(10),
      },
    });
    expect(doc.links.self).toBe("https://api.test/v2/search?query=MAEU240001234");
    expect(doc.links.current).toBe("https://api.test/v2/search?page[number]=1&query=MAEU240001234");
    expect(doc.links.next).toBeUndefined();
  });

  it("drops a tracking request whose number is a shipment's BL (docs/api.md §Search), keeps the others", async () => {
    const { doc } = await search(acme, "MAEU2400");
    expect(ids(doc)).not.toContain(tracked);
    const request = doc.data.find((h) => h.id === untracked);
    expect(request?.attributes).toMatchObject({
      entity_type: "tracking_request",
      number: "MAEU240009999",
      status: "pending",
      failed_reason: null,
      shipment_id: null,
      port_of_lading_name: null,
      containers_count: null,
      tracking_stopped: null,
      ref_numbers: ["PO-4711-B"],
    });
  });

  it("finds a container by number, any case, spaces and dashes ignored, with its shipment and SCAC", async () => {
    const { doc } = await search(acme, "mscu-123 4566");
    expect(doc.data[0]).toMatchObject({
      id: s1.containerIds[0],
      attributes: {
        entity_type: "cargo",
        number: "MSCU1234566",
        shipment_id: s1.shipmentId,
        scac: "MAEU",
        port_of_lading_name: null,
        containers_count: null,
        tracking_stopped: null,
        status: null,
        ref_numbers: ["BOX-REF-9"],
      },
    });
    expect(doc.data).toHaveLength(1);
  });

  it("ranks exact → prefix → contains, then shipments, containers, requests, then newest first", async () => {
    // "PO4711": exact on the shipment's PO-4711, prefix of the request's PO-4711-B.
    expect(ids((await search(acme, "po4711")).doc)).toEqual([s1.shipmentId, untracked]);
    // "1234": contains only; kind order then recency (s1 is older than s2 but shipments come first).
    const contains = (await search(acme, "1234")).doc;
    expect(contains.data.map((h) => h.attributes.entity_type)).toEqual(["shipment", "cargo", "cargo"]);
    expect(ids(contains)).toEqual([s1.shipmentId, s2.containerIds[0], s1.containerIds[0]]);
    // Exact container number beats the containers it is only a substring of... and a prefix beats a substring.
    const tghu = (await search(acme, "TGHU")).doc;
    expect(ids(tghu)).toEqual([s2.containerIds[0]]);
  });

  it("finds shipments and the containers on them by vessel name, port name and UN/LOCODE", async () => {
    const byVessel = (await search(acme, "msc gulsun")).doc;
    expect(ids(byVessel)).toEqual([s1.shipmentId, s1.containerIds[1], s1.containerIds[0]]);
    const byPodCode = (await search(acme, "USLGB")).doc;
    expect(ids(byPodCode)).toEqual([s2.shipmentId, s2.containerIds[0]]);
    const byPolName = (await search(acme, "rotterdam")).doc;
    expect(ids(byPolName)).toEqual([s2.shipmentId, s2.containerIds[0]]);
    const byPartOfName = (await search(acme, "angeles")).doc;
    expect(ids(byPartOfName)).toEqual([s1.shipmentId, s1.containerIds[1], s1.containerIds[0]]);
  });

  it("never shows another account's rows, nor this account's to the other", async () => {
    const mine = (await search(acme, "MSCU1234566")).doc;
    expect(ids(mine)).toEqual([s1.containerIds[0]]);
    const theirs = (await search(other, "MSCU1234566")).doc;
    expect(theirs.data).toHaveLength(1);
    expect(ids(theirs)).not.toContain(s1.containerIds[0]);
    expect((await search(acme, "OTHER-ONLY-1")).doc.data).toEqual([]);
    expect((await search(other, "PO4711")).doc.data).toEqual([]);
    expect((await search(other, "rotterdam")).doc.data).toEqual([]);
  });

  it("an account with nothing indexed gets an empty list", async () => {
    const empty = await createAccount("Empty");
    const { status, doc } = await search(empty, "MSCU");
    expect(status).toBe(200);
    expect(doc.data).toEqual([]);
  });

  it.each([
    ["missing", null],
    ["blank", "   "],
    ["only dashes", "- -"],
  ])("a %s query is a 400 naming the parameter", async (_, query) => {
    const { status, doc } = await search(acme, query);
    expect(status).toBe(400);
    expect(doc.errors).toEqual([
      { status: "400", title: "Bad Request", detail: "Query parameter is required", source: { parameter: "query" } },
    ]);
  });

  it("refuses a too long query, control characters and bytes that are not UTF-8, with 400", async () => {
    const long = await search(acme, "A".repeat(101));
    expect(long.status).toBe(400);
    expect(long.doc.errors?.[0]?.source).toEqual({ parameter: "query" });
    expect((await search(acme, "A".repeat(100))).status).toBe(200);
    const control = await search(acme, "MSCU\u0000");
    expect(control.status).toBe(400);
    expect(control.doc.errors?.[0]?.code).toBe("control_character");
    // %ED%A0%80 is U+D800 (a lone surrogate) in UTF-8 form: no character, decoded as U+FFFD.
    const { res, json } = await apiJson<SearchDoc>("/search?query=AB%ED%A0%80", { key: acme.key });
    expect(res.status).toBe(400);
    expect(json.errors?.[0]).toMatchObject({ code: "unpaired_surrogate", source: { parameter: "query" } });
  });

  it("takes FTS5 syntax as text: quotes, stars, operators match nothing and never fail", async () => {
    for (const q of ['"', 'MSCU" OR "A', "MSCU*", "NOT", "a:b", "(", "^MSCU", "NEAR(a b)"]) {
      const { status, doc } = await search(acme, q);
      expect(status, q).toBe(200);
      expect(doc.data, q).toEqual([]);
    }
  });

  it("refuses unknown parameters like every operation (docs/api.md §Strict queries)", async () => {
    const { status, doc } = await search(acme, "MSCU", "&filter[number]=1");
    expect(status).toBe(400);
    expect(doc.errors?.[0]?.source).toEqual({ parameter: "filter[number]" });
  });
});

describe("GET /v2/search paging", () => {
  let acme: TestAccount;
  const containerIds: string[] = [];

  beforeAll(async () => {
    acme = await createAccount("Pager");
    for (let i = 0; i < 4; i++) {
      const s = await insertShipment(acme, {
        bl: `PAGE${i}`,
        second: i * 10,
        containers: [{ number: `PGCU000000${i}` }, { number: `PGCU100000${i}` }],
      });
      containerIds.push(...s.containerIds);
    }
  });

  it("pages of 25 by default; page[size] and page[number] walk the ranked list; next only when there is more", async () => {
    const all = (await search(acme, "PGCU")).doc;
    expect(all.data).toHaveLength(8);
    expect(all.links.next).toBeUndefined();
    const newestFirst = [...containerIds].reverse();
    expect(ids(all)).toEqual(newestFirst);

    const first = (await search(acme, "PGCU", "&page[size]=3")).doc;
    expect(ids(first)).toEqual(newestFirst.slice(0, 3));
    expect(first.links.next).toBe("https://api.test/v2/search?page[number]=2&page[size]=3&query=PGCU");
    expect(first.links.prev).toBeUndefined();
    const third = (await search(acme, "PGCU", "&page[size]=3&page[number]=3")).doc;
    expect(ids(third)).toEqual(newestFirst.slice(6, 8));
    expect(third.links.next).toBeUndefined();
    expect(third.links.prev).toBe("https://api.test/v2/search?page[number]=2&page[size]=3&query=PGCU");
    expect((await search(acme, "PGCU", "&page[size]=3&page[number]=4")).doc.data).toEqual([]);
  });

  it("pages across the match classes: exact, then prefix, then contains", async () => {
    // "PGCU0000001": exact for one container; "0000001" is inside PGCU0000001 only.
    const exactThenNone = (await search(acme, "PGCU0000001", "&page[size]=1")).doc;
    expect(ids(exactThenNone)).toEqual([containerIds[2]]);
    // "0000" is inside every PGCU0…/PGCU1… number: contains class, newest first, continued on page 2.
    const p1 = (await search(acme, "0000", "&page[size]=5")).doc;
    const p2 = (await search(acme, "0000", "&page[size]=5&page[number]=2")).doc;
    expect([...ids(p1), ...ids(p2)]).toEqual([...containerIds].reverse());
  });

  it("serves the first 1 000 results: a page past them is a 400 on page[number]", async () => {
    const { status, doc } = await search(acme, "PGCU", "&page[size]=100&page[number]=11");
    expect(status).toBe(400);
    expect(doc.errors?.[0]?.source).toEqual({ parameter: "page[number]" });
    expect((await search(acme, "PGCU", "&page[size]=100&page[number]=10")).status).toBe(200);
  });
});

describe("search index upkeep (migration 0011 triggers)", () => {
  it("follows ref number edits through the API: found by the new, no longer by the old", async () => {
    const account = await createAccount("Editor");
    const { shipment, containerIds } = await trackSandboxShipment(account);
    const patchShipment = await apiJson(`/shipments/${shipment.id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { attributes: { ref_numbers: ["SHIP-OLD-6"] } } },
    });
    expect(patchShipment.res.status).toBe(200);
    expect(ids((await search(account, "SHIP-OLD-6")).doc)).toEqual([shipment.id]);
    await apiJson(`/shipments/${shipment.id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { attributes: { ref_numbers: ["SHIP-NEW-7"] } } },
    });
    expect(ids((await search(account, "SHIP-NEW-7")).doc)).toEqual([shipment.id]);
    expect((await search(account, "SHIP-OLD-6")).doc.data).toEqual([]);

    const requestId = await insertRequest(account, { number: "LONE-REQ-1", second: 1, refs: ["REQ-OLD-8"] });
    expect(ids((await search(account, "REQ-OLD-8")).doc)).toEqual([requestId]);
    const patchRequest = await apiJson(`/tracking_requests/${requestId}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { attributes: { ref_numbers: ["REQ-NEW-9"] } } },
    });
    expect(patchRequest.res.status).toBe(200);
    expect(ids((await search(account, "REQ-NEW-9")).doc)).toEqual([requestId]);
    expect((await search(account, "REQ-OLD-8")).doc.data).toEqual([]);

    // The sandbox shipment's containers are found by their numbers, as the tracking pipeline wrote them.
    const { json } = await apiJson<{ data: { attributes: { number: string } } }>(`/containers/${containerIds[0]}`, {
      key: account.key,
    });
    expect(ids((await search(account, json.data.attributes.number)).doc)).toEqual([containerIds[0]]);
  });

  it("follows a shipment's vessel change into its containers, and deletes", async () => {
    const account = await createAccount("Mover");
    const s = await insertShipment(account, {
      bl: "MOVE1",
      second: 1,
      vessel: "First Vessel",
      containers: [{ number: "MOVU0000001" }],
    });
    await env.DB.prepare("UPDATE shipments SET pod_vessel_name = 'Second Vessel' WHERE id = ?1")
      .bind(s.shipmentId)
      .run();
    expect(ids((await search(account, "second vessel")).doc)).toEqual([s.shipmentId, s.containerIds[0]]);
    expect((await search(account, "first vessel")).doc.data).toEqual([]);

    await env.DB.prepare("UPDATE containers SET ref_numbers = '[\"BOXNEW\"]' WHERE id = ?1")
      .bind(s.containerIds[0])
      .run();
    expect(ids((await search(account, "BOXNEW")).doc)).toEqual([s.containerIds[0]]);

    await env.DB.batch([
      env.DB.prepare("DELETE FROM containers WHERE id = ?1").bind(s.containerIds[0]),
      env.DB.prepare("DELETE FROM shipments WHERE id = ?1").bind(s.shipmentId),
    ]);
    expect((await search(account, "MOVU0000001")).doc.data).toEqual([]);
    expect((await search(account, "second vessel")).doc.data).toEqual([]);
    const left = await env.DB.prepare("SELECT count(*) AS n FROM search_docs WHERE account_id = ?1")
      .bind(account.accountId)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  it("leaves the index alone on updates that change no searched column", async () => {
    const account = await createAccount("Quiet");
    const s = await insertShipment(account, { bl: "QUIET1", second: 1, containers: [{ number: "QUIU0000001" }] });
    const before = await env.DB.prepare("SELECT id, body FROM search_docs WHERE entity_id = ?1")
      .bind(s.containerIds[0])
      .first();
    await env.DB.prepare("UPDATE containers SET current_status = 'available', number = number WHERE id = ?1")
      .bind(s.containerIds[0])
      .run();
    const after = await env.DB.prepare("SELECT id, body FROM search_docs WHERE entity_id = ?1")
      .bind(s.containerIds[0])
      .first();
    expect(after).toEqual(before);
  });
});
