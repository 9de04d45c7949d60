import { env } from "cloudflare:test";
import {
  and,
  count,
  desc,
  eq,
  gte,
  inArray,
  isNotNull,
  isNull,
  lte,
  type SQL,
  type SQLWrapper,
  sql,
} from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/d1";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseContainerFilters } from "../../src/containers/schemas";
import { containerLinkageQueries, containerResource } from "../../src/containers/serializer";
import { getContainerView, listContainers } from "../../src/containers/service";
import { createDatabase, type Database } from "../../src/db/client";
import {
  compileShape,
  fillSlots,
  hasShape,
  MAX_SHAPED_IDS,
  MAX_SHAPES,
  placeholder,
  setShapeVerification,
  shapeCount,
  shaped,
  shapeStats,
  traceShapes,
} from "../../src/db/query-shapes";
import { readMany } from "../../src/db/read-batch";
import * as schema from "../../src/db/schema";
import { accountResourceCounts, containers, shipments, terminals, trackingRequests } from "../../src/db/schema";
import type { CountedResource } from "../../src/lib/counts";
import { newId } from "../../src/lib/ids";
import { parseInclude } from "../../src/lib/jsonapi/include";
import type { PageRequest } from "../../src/lib/jsonapi/pagination";
import type { ListableTable } from "../../src/lib/list-query";
import { ownedBy } from "../../src/lib/tenant";
import { parseShipmentFilters } from "../../src/shipments/schemas";
import { loadShipmentViews, shipmentLinkageQueries, shipmentResource } from "../../src/shipments/serializer";
import { getShipment, listShipments } from "../../src/shipments/service";
import { normalizeRequestNumber } from "../../src/tracking-requests/service";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { type Many, type One, trackSandboxShipment } from "../helpers/tracking";

/** A query string's parameters by name, as a route hands them to a filter parser. */
const queryValues = (query: string) => Object.fromEntries(new URLSearchParams(query));

type Sent = { sql: string; params: unknown[] };

/** Every shaped read bound while `fn` runs: its key and statements. */
async function traced<T>(fn: () => Promise<T>): Promise<{ result: T; reads: { key: string; statements: Sent[] }[] }> {
  const reads: { key: string; statements: Sent[] }[] = [];
  traceShapes((key, statements) => reads.push({ key, statements }));
  try {
    return { result: await fn(), reads };
  } finally {
    traceShapes(undefined);
  }
}

/** What drizzle sends for ad-hoc queries built with values (the code as it was before query shapes). */
function sent(queries: readonly BatchItem<"sqlite">[]): Sent[] {
  return queries.map((q) => {
    const { sql: text, params } = (q as unknown as { toSQL(): Sent }).toSQL();
    return { sql: text, params };
  });
}

/** The queries `listPage` built before query shapes, with values (verbatim apart from the return). */
function legacyListPage(
  db: Database,
  table: ListableTable,
  resource: CountedResource,
  accountId: string,
  filters: (SQL | undefined)[],
  page: PageRequest,
  companions?: (pageIds: SQLWrapper) => BatchItem<"sqlite">[],
): BatchItem<"sqlite">[] {
  const active = filters.filter((f): f is SQL => f !== undefined);
  const where = and(eq(table.accountId, accountId), ...active);
  const pageQuery = db
    .select()
    .from(table)
    .where(where)
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(page.size)
    .offset(page.offset);
  const totalQuery =
    active.length === 0
      ? db
          .select({ count: accountResourceCounts.count })
          .from(accountResourceCounts)
          .where(and(eq(accountResourceCounts.accountId, accountId), eq(accountResourceCounts.resource, resource)))
      : db.select({ count: count() }).from(table).where(where);
  const pageIds = db
    .select({ id: table.id })
    .from(table)
    .where(where)
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(page.size)
    .offset(page.offset);
  return [pageQuery, totalQuery, ...(companions ? companions(pageIds) : [])];
}

/** The shipment prefetch of a container read, as built before query shapes. */
function legacyShipmentPrefetch(db: Database, accountId: string, containerIds: SQLWrapper): BatchItem<"sqlite">[] {
  const shipmentIds = db
    .select({ id: containers.shipmentId })
    .from(containers)
    .where(inArray(containers.id, containerIds));
  return [
    db
      .select()
      .from(shipments)
      .where(and(ownedBy(shipments.accountId, accountId), inArray(shipments.id, shipmentIds))),
    ...shipmentLinkageQueries(db, accountId, shipmentIds),
  ];
}

/** An account with the sandbox shipment (two containers with events) and a second, stopped shipment with one box. */
async function seeded(): Promise<{ account: TestAccount; shipmentId: string; containerIds: string[] }> {
  const account = await createAccount();
  const { shipment, containerIds } = await trackSandboxShipment(account);
  const otherShipment = newId();
  const otherContainer = newId();
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac,
         port_of_discharge_locode, line_tracking_stopped_at, line_tracking_stopped_reason, created_at, updated_at)
       VALUES (?2, ?1, 'OTHER-BL', 'OTHER-BL', 'MSCU', 'USNYC', '2025-01-02T00:00:00Z', 'cancelled_by_user',
         '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`,
    ).bind(account.accountId, otherShipment),
    env.DB.prepare(
      `INSERT INTO containers (id, account_id, shipment_id, number, current_status, pod_locode, scac, pickup_lfd,
         created_at, updated_at)
       VALUES (?3, ?1, ?2, 'MSCU1234565', 'available', 'USNYC', 'MSCU', '2025-01-05T00:00:00Z',
         '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`,
    ).bind(account.accountId, otherShipment, otherContainer),
    // The counts the service keeps beside its inserts (the unfiltered totals read them).
    env.DB.prepare(
      `INSERT INTO account_resource_counts (account_id, resource, count) VALUES (?1, 'shipment', 1), (?1, 'container', 1)
       ON CONFLICT (account_id, resource) DO UPDATE SET count = count + 1`,
    ).bind(account.accountId),
  ]);
  return { account, shipmentId: shipment.id, containerIds: [...containerIds, otherContainer] };
}

describe("query shapes on the hot reads: the same SQL and values as drizzle's fresh build", () => {
  beforeEach(() => setShapeVerification(true));
  afterEach(() => setShapeVerification(false));

  it("getContainerView, with and without include=shipment, sends today's SQL with this request's values", async () => {
    const { account, shipmentId, containerIds } = await seeded();
    const db = createDatabase(env.DB);
    const id = containerIds[0] as string;
    for (const include of ["", "shipment", "pod_terminal,shipment"]) {
      const tree = parseInclude(include, containerResource);
      // Twice: the first call builds the shape, the second reads it from the cache (and verifies it).
      for (let round = 0; round < 2; round++) {
        const { result, reads } = await traced(() => getContainerView(db, account.accountId, id, tree));
        expect(result.view.id).toBe(id);
        expect(Array.isArray(result.view.transportEventIds) && Array.isArray(result.view.rawEventIds)).toBe(true);
        expect(reads).toHaveLength(1);
        const owned = and(ownedBy(containers.accountId, account.accountId), eq(containers.id, id));
        const parentIds = db.select({ id: containers.id }).from(containers).where(owned);
        // Prefetches in include order: pod_terminal (the terminals the containers name), then shipment.
        const prefetches: BatchItem<"sqlite">[] = [];
        for (const name of tree.keys()) {
          if (name === "shipment") prefetches.push(...legacyShipmentPrefetch(db, account.accountId, parentIds));
          if (name === "pod_terminal") {
            const named = db.select({ id: containers.podTerminalId }).from(containers);
            prefetches.push(
              db
                .select()
                .from(terminals)
                .where(inArray(terminals.id, named.where(inArray(containers.id, parentIds)))),
            );
          }
        }
        const legacy = [
          db.select().from(containers).where(owned).limit(1),
          ...containerLinkageQueries(db, [id]),
          ...prefetches,
        ];
        expect(reads[0]?.statements).toEqual(sent(legacy));
        expect(reads[0]?.key).toBe(`container.view:${[...tree.keys()].join(",")}`);
        const shipment = result.prefetched.get("shipment") as { id: string; containerIds: string[] }[] | undefined;
        if (tree.has("shipment")) expect(shipment?.map((s) => s.id)).toEqual([shipmentId]);
        else expect(shipment).toBeUndefined();
      }
    }
    // The tenant condition keeps its unary plus (no index on account_id for a lookup by id).
    const { reads } = await traced(() => getContainerView(db, account.accountId, id));
    expect(reads[0]?.statements[0]?.sql).toContain('+"containers"."account_id" = ?');
  });

  it("another account's container is not found through the cached shape", async () => {
    const { containerIds } = await seeded();
    const stranger = await createAccount();
    const db = createDatabase(env.DB);
    await expect(getContainerView(db, stranger.accountId, containerIds[0] as string)).rejects.toMatchObject({
      status: 404,
    });
  });

  it("listContainers: each filter combination has its own key, today's SQL, and the right rows", async () => {
    const { account, containerIds } = await seeded();
    const db = createDatabase(env.DB);
    const t = containers;
    const other = containerIds[2] as string;
    const cases: { query: string; legacy: (SQL | undefined)[]; expected: string[] }[] = [
      { query: "", legacy: [], expected: containerIds },
      { query: "filter[number]=mscu-1234565", legacy: [eq(t.number, "MSCU1234565")], expected: [other] },
      {
        query: "filter[status]=available&filter[pod_locode]=usnyc",
        legacy: [eq(t.currentStatus, "available"), eq(t.podLocode, "USNYC")],
        expected: [other],
      },
      { query: "filter[scac]=mscu", legacy: [eq(t.scac, "MSCU")], expected: [other] },
      {
        query: "filter[updated_at][start]=2025-01-01T00:00:00Z&filter[updated_at][end]=2025-01-01T00:00:00Z",
        legacy: [gte(t.updatedAt, "2025-01-01T00:00:00Z"), lte(t.updatedAt, "2025-01-01T00:00:00Z")],
        expected: [other],
      },
      {
        query: "filter[pickup_lfd][start]=2025-01-05T00:00:00Z&filter[pickup_lfd][end]=2025-01-06T00:00:00Z",
        legacy: [gte(t.pickupLfd, "2025-01-05T00:00:00Z"), lte(t.pickupLfd, "2025-01-06T00:00:00Z")],
        expected: [other],
      },
    ];
    const keys = new Set<string>();
    for (const c of cases) {
      for (const include of ["", "shipment"]) {
        const tree = parseInclude(include, containerResource);
        const page = { number: 1, size: 30, sizeGiven: true, offset: 0 };
        const { result, reads } = await traced(() =>
          listContainers(db, account.accountId, parseContainerFilters(queryValues(c.query)), page, tree),
        );
        expect(result.rows.map((r) => r.id).sort()).toEqual([...c.expected].sort());
        expect(result.total).toBe(c.expected.length);
        expect(reads).toHaveLength(1);
        const legacy = legacyListPage(db, t, "container", account.accountId, c.legacy, page, (pageIds) => [
          ...containerLinkageQueries(db, pageIds),
          ...(tree.has("shipment") ? legacyShipmentPrefetch(db, account.accountId, pageIds) : []),
        ]);
        expect(reads[0]?.statements).toEqual(sent(legacy));
        keys.add(reads[0]?.key as string);
        if (tree.has("shipment")) {
          const included = result.prefetched.get("shipment") as { id: string }[];
          expect(included.length).toBeGreaterThan(0);
        }
      }
    }
    expect(keys.size).toBe(cases.length * 2);
  });

  it("an OFFSET appears only from the second page on, as before (page 1 keeps its exact SQL)", async () => {
    const { account, containerIds } = await seeded();
    const db = createDatabase(env.DB);
    const tree = parseInclude("shipment", containerResource);
    const seen: string[] = [];
    for (const page of [
      { number: 1, size: 2, sizeGiven: true, offset: 0 },
      { number: 2, size: 2, sizeGiven: true, offset: 2 },
    ]) {
      const { result, reads } = await traced(() => listContainers(db, account.accountId, {}, page, tree));
      expect(result.total).toBe(containerIds.length);
      expect(result.rows).toHaveLength(page.number === 1 ? 2 : 1);
      const legacy = legacyListPage(db, containers, "container", account.accountId, [], page, (pageIds) => [
        ...containerLinkageQueries(db, pageIds),
        ...legacyShipmentPrefetch(db, account.accountId, pageIds),
      ]);
      expect(reads[0]?.statements).toEqual(sent(legacy));
      expect(reads[0]?.statements[0]?.sql.includes(" offset ?")).toBe(page.offset > 0);
      seen.push(...result.rows.map((r) => r.id));
      // The list keeps `account_id = ?` first and without the unary plus (it reads the account's index range).
      expect(reads[0]?.statements[0]?.sql).toContain('where "containers"."account_id" = ?');
    }
    expect(seen.sort()).toEqual([...containerIds].sort());
  });

  it("listShipments and getShipment: today's SQL, the right rows, tracking_stopped true/false are two shapes", async () => {
    const { account, shipmentId } = await seeded();
    const db = createDatabase(env.DB);
    const t = shipments;
    const page = { number: 1, size: 30, sizeGiven: true, offset: 0 };
    const cases: { query: string; legacy: (SQL | undefined)[]; expected: number }[] = [
      { query: "", legacy: [], expected: 2 },
      { query: "filter[tracking_stopped]=true", legacy: [isNotNull(t.lineTrackingStoppedAt)], expected: 1 },
      { query: "filter[tracking_stopped]=false", legacy: [isNull(t.lineTrackingStoppedAt)], expected: 1 },
      {
        query: "number=other-bl&filter[scac]=mscu&filter[pod_locode]=usnyc",
        legacy: [
          eq(t.normalizedNumber, normalizeRequestNumber("other-bl")),
          eq(t.shippingLineScac, "MSCU"),
          eq(t.portOfDischargeLocode, "USNYC"),
        ],
        expected: 1,
      },
    ];
    const keys = new Set<string>();
    for (const c of cases) {
      const { result, reads } = await traced(() =>
        listShipments(db, account.accountId, parseShipmentFilters(queryValues(c.query)), page),
      );
      expect(result.total).toBe(c.expected);
      expect(result.rows).toHaveLength(c.expected);
      const legacy = legacyListPage(db, t, "shipment", account.accountId, c.legacy, page, (pageIds) => [
        ...shipmentLinkageQueries(db, account.accountId, pageIds),
      ]);
      expect(reads[0]?.statements).toEqual(sent(legacy));
      keys.add(reads[0]?.key as string);
    }
    expect(keys.size).toBe(cases.length);
    const { result, reads } = await traced(() => getShipment(db, account.accountId, shipmentId));
    expect(result.id).toBe(shipmentId);
    expect(reads[0]?.statements).toEqual(
      sent([
        db
          .select()
          .from(shipments)
          .where(and(ownedBy(shipments.accountId, account.accountId), eq(shipments.id, shipmentId)))
          .limit(1),
      ]),
    );
    const stranger = await createAccount();
    await expect(getShipment(db, stranger.accountId, shipmentId)).rejects.toMatchObject({ status: 404 });
  });

  it("the API's GET /containers and GET /containers/{id} go through the shapes (verified on every cache hit)", async () => {
    const { account, containerIds } = await seeded();
    const id = containerIds[0] as string;
    let missesBeforeSecondRound = 0;
    const { reads } = await traced(async () => {
      for (let round = 0; round < 2; round++) {
        if (round === 1) missesBeforeSecondRound = shapeStats().misses;
        const list = await apiJson<Many>("/containers?page[size]=30&include=shipment", { key: account.key });
        expect(list.res.status).toBe(200);
        expect(list.json.data).toHaveLength(3);
        const one = await apiJson<One>(`/containers/${id}?include=shipment`, { key: account.key });
        expect(one.res.status).toBe(200);
        expect(one.json.included?.map((r) => r.type)).toEqual(["shipment"]);
      }
    });
    // The Worker's requests share the isolate's Database handle: the second round only hits the cache.
    expect(shapeStats().misses).toBe(missesBeforeSecondRound);
    const keys = reads.map((r) => r.key);
    expect(keys.filter((k) => k === "container.view:shipment")).toHaveLength(2);
    expect(keys.filter((k) => k === "list:containers:container:::linkage+shipment")).toHaveLength(2);
  });

  it("hydrate and include loaders by id: one shape per id count up to MAX_SHAPED_IDS, today's SQL", async () => {
    const { account, shipmentId, containerIds } = await seeded();
    const db = createDatabase(env.DB);
    const ctx = { db, accountId: account.accountId };
    const shipment = await getShipment(db, account.accountId, shipmentId);
    for (let round = 0; round < 2; round++) {
      const { result, reads } = await traced(() => shipmentResource.hydrate?.(ctx, [shipment]) ?? Promise.resolve([]));
      expect(result[0]?.containerIds?.sort()).toEqual(containerIds.slice(0, 2).sort());
      expect(reads.map((r) => r.key)).toEqual(["shipment.linkage:id[1]"]);
      expect(reads[0]?.statements).toEqual(sent(shipmentLinkageQueries(db, account.accountId, [shipmentId])));
    }
    const rows = (
      await listContainers(
        db,
        account.accountId,
        {},
        {
          number: 1,
          size: 30,
          sizeGiven: true,
          offset: 0,
        },
      )
    ).rows.map(({ transportEventIds: _t, rawEventIds: _r, ...row }) => row);
    const { result, reads } = await traced(() => containerResource.hydrate?.(ctx, rows) ?? Promise.resolve([]));
    expect(result.map((r) => r.rawEventIds !== undefined)).toEqual([true, true, true]);
    expect(reads.map((r) => r.key)).toEqual(["container.linkage:id[3]"]);
    expect(reads[0]?.statements).toEqual(
      sent(
        containerLinkageQueries(
          db,
          rows.map((r) => r.id),
        ),
      ),
    );
    const views = await traced(() => loadShipmentViews(db, account.accountId, [shipmentId, shipmentId]));
    expect(views.result.map((v) => v.id)).toEqual([shipmentId]);
    expect(views.reads.map((r) => r.key)).toEqual(["shipment.views:id[1]"]);
    // Beyond MAX_SHAPED_IDS ids the queries are built ad hoc (no shape per length of a long list).
    const many = Array.from({ length: MAX_SHAPED_IDS + 1 }, (_, i) => (i === 0 ? shipmentId : newId()));
    const long = await traced(() => loadShipmentViews(db, account.accountId, many));
    expect(long.result.map((v) => v.id)).toEqual([shipmentId]);
    expect(long.reads).toEqual([]);
  });

  it("two accounts read through one cached list shape each get their own rows", async () => {
    const a = await seeded();
    const b = await seeded();
    const db = createDatabase(env.DB);
    const page = { number: 1, size: 30, sizeGiven: true, offset: 0 };
    const tree = parseInclude("shipment", containerResource);
    const { reads, result: rowsA } = await traced(() => listContainers(db, a.account.accountId, {}, page, tree));
    const rowsB = await listContainers(db, b.account.accountId, {}, page, tree);
    expect(rowsA.rows.map((r) => r.id).sort()).toEqual([...a.containerIds].sort());
    expect(rowsB.rows.map((r) => r.id).sort()).toEqual([...b.containerIds].sort());
    expect(hasShape(db, reads[0]?.key as string)).toBe(true);
  });
});

describe("query shapes: compile, fill, verify, bound", () => {
  it("fills placeholders in parameter order, keeps constants, and encodes through a wrapping Param", async () => {
    const db = createDatabase(env.DB);
    const shape = compileShape("test.fill", [
      db
        .select({ id: trackingRequests.id })
        .from(trackingRequests)
        .where(
          and(
            eq(trackingRequests.accountId, placeholder("b")),
            eq(trackingRequests.status, "failed"),
            eq(trackingRequests.isRetrying, sql.param(placeholder("flag"), trackingRequests.isRetrying)),
            eq(trackingRequests.requestNumber, placeholder("a")),
            eq(trackingRequests.normalizedNumber, placeholder("b")),
          ),
        )
        .limit(7),
    ]);
    const q = shape.queries[0];
    expect(q?.sql).toContain("limit ?");
    // Order of the SQL's parameters, not of the values object; booleans go to D1 as 0/1 like drizzle binds them.
    expect(fillSlots(shape.key, q?.slots ?? [], { a: "A", b: "B", flag: true })).toEqual([
      "B",
      "failed",
      1,
      "A",
      "B",
      7,
    ]);
    expect(fillSlots(shape.key, q?.slots ?? [], { a: "x", b: "y", flag: false })).toEqual([
      "y",
      "failed",
      0,
      "x",
      "y",
      7,
    ]);
    // Null is bound as null (no encoder call), like drizzle.
    expect(fillSlots(shape.key, q?.slots ?? [], { a: null, b: "y", flag: null })).toEqual([
      "y",
      "failed",
      null,
      null,
      "y",
      7,
    ]);
  });

  it("a missing or undefined value throws a clear error and sends nothing", async () => {
    const db = createDatabase(env.DB);
    const build = () => [
      db
        .select()
        .from(shipments)
        .where(eq(shipments.id, placeholder("id"))),
    ];
    await expect(readMany(db, [shaped(db, "test.missing", build, {})])).rejects.toThrow(
      'Query shape "test.missing": no value for placeholder "id"',
    );
    await expect(readMany(db, [shaped(db, "test.missing", build, { id: undefined })])).rejects.toThrow(
      /no value for placeholder "id"/,
    );
  });

  it("verification catches a key that does not determine the SQL, and a value closed over instead of a placeholder", () => {
    const db = createDatabase(env.DB);
    setShapeVerification(true);
    try {
      const withFilter = (on: boolean) => () => [
        db
          .select()
          .from(shipments)
          .where(and(eq(shipments.accountId, placeholder("accountId")), on ? isNull(shipments.tags) : undefined)),
      ];
      shaped(db, "test.bad-key", withFilter(false), { accountId: "a" });
      expect(() => shaped(db, "test.bad-key", withFilter(true), { accountId: "a" })).toThrow(
        /Query shape "test.bad-key" does not determine its SQL/,
      );
      const closedOver = (accountId: string) => () => [
        db.select().from(shipments).where(eq(shipments.accountId, accountId)),
      ];
      shaped(db, "test.closed-over", closedOver("account-1"), {});
      expect(() => shaped(db, "test.closed-over", closedOver("account-2"), {})).toThrow(/does not determine its SQL/);
      // The same build under its key passes.
      expect(() => shaped(db, "test.closed-over", closedOver("account-1"), {})).not.toThrow();
    } finally {
      setShapeVerification(false);
    }
  });

  it("the cache per Database handle is bounded: the oldest shapes are dropped", () => {
    const db = drizzle(env.DB, { schema });
    const build = () => [
      db
        .select()
        .from(shipments)
        .where(eq(shipments.id, placeholder("id"))),
    ];
    for (let i = 0; i < MAX_SHAPES + 10; i++) shaped(db, `test.bound.${i}`, build, { id: "x" });
    expect(shapeCount(db)).toBe(MAX_SHAPES);
    expect(hasShape(db, "test.bound.0")).toBe(false);
    expect(hasShape(db, "test.bound.9")).toBe(false);
    expect(hasShape(db, "test.bound.10")).toBe(true);
    expect(hasShape(db, `test.bound.${MAX_SHAPES + 9}`)).toBe(true);
    // Another handle has its own cache.
    expect(shapeCount(drizzle(env.DB, { schema }))).toBe(0);
  });

  it("shaped and ad-hoc queries mix in one batch, each mapped like drizzle (JSON, booleans, counts)", async () => {
    const { account, containerIds } = await seeded();
    const db = createDatabase(env.DB);
    const adHoc = db.select({ n: count() }).from(containers).where(eq(containers.accountId, account.accountId));
    const [rows, requests, counted] = await readMany(db, [
      shaped(
        db,
        "test.mix",
        () => [
          db
            .select()
            .from(containers)
            .where(and(ownedBy(containers.accountId, placeholder("accountId")), eq(containers.id, placeholder("id")))),
          db
            .select()
            .from(trackingRequests)
            .where(eq(trackingRequests.accountId, placeholder("accountId"))),
        ],
        { accountId: account.accountId, id: containerIds[0] },
      ),
      adHoc,
    ]);
    const expected = await db.batch([
      db
        .select()
        .from(containers)
        .where(and(ownedBy(containers.accountId, account.accountId), eq(containers.id, containerIds[0] as string))),
      db.select().from(trackingRequests).where(eq(trackingRequests.accountId, account.accountId)),
      adHoc,
    ]);
    expect([rows, requests, counted]).toEqual(expected);
    expect(rows).toHaveLength(1);
    expect(Array.isArray((rows?.[0] as { refNumbers: unknown } | undefined)?.refNumbers)).toBe(true);
    expect(typeof (requests?.[0] as { isRetrying: unknown } | undefined)?.isRetrying).toBe("boolean");
    expect(counted).toEqual([{ n: 3 }]);
  });
});
