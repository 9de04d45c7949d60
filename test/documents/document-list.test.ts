import { env } from "cloudflare:test";
import { and, desc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { documents } from "../../src/db/schema";
import { documentListConditions, parseDocumentFilters, parseDocumentSort } from "../../src/documents/list";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";

// GET /v2/documents filters and sort (docs/api.md §Documents "List", REFERENCE-SERVICE-MORE.md §7.7): filter[filename]
// (case-insensitive substring, LIKE wildcards literal), filter[document_types] (the effective type), sort over
// document_type / added_by / created_at; meta.total counts the matches; another account's documents never appear.

interface List {
  data: { id: string; attributes: Record<string, unknown> }[];
  meta: { total: number };
  links: Record<string, string>;
  errors?: { status: string; detail: string; source?: { parameter?: string } }[];
}

interface Seed {
  fileName: string;
  createdAt: string;
  source?: string;
  type?: string | null;
  manual?: string | null;
}

/** Inserts documents (and their blobs) straight into D1, with the given file names, times and types. */
async function seed(account: TestAccount, rows: Seed[]): Promise<string[]> {
  const ids: string[] = [];
  const statements: D1PreparedStatement[] = [];
  rows.forEach((r, i) => {
    const id = crypto.randomUUID();
    const blobId = crypto.randomUUID();
    ids.push(id);
    statements.push(
      env.DB.prepare(
        "INSERT INTO document_blobs (id, account_id, storage_key, filename, content_type, byte_size, checksum, created_at, uploaded_at) VALUES (?1, ?2, ?3, ?4, 'application/pdf', 10, ?5, ?6, ?6)",
      ).bind(blobId, account.accountId, `${account.accountId}/${blobId}`, r.fileName, `sum${i}`, r.createdAt),
      env.DB.prepare(
        `INSERT INTO documents (id, account_id, blob_id, name, source, document_type, document_type_manual, file_name,
          file_content_type, file_size_bytes, checksum, storage_key, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?4, 'application/pdf', 10, ?8, ?9, ?10, ?10)`,
      ).bind(
        id,
        account.accountId,
        blobId,
        r.fileName,
        r.source ?? "api",
        r.type ?? null,
        r.manual ?? null,
        `sum${i}`,
        `${account.accountId}/${blobId}`,
        r.createdAt,
      ),
    );
  });
  await env.DB.batch(statements);
  return ids;
}

const list = (account: TestAccount, query: string) => apiJson<List>(`/documents?${query}`, { key: account.key });

async function fixture() {
  const account = await createAccount();
  const other = await createAccount();
  const [bl, invoice, notice, pct, under, plain] = await seed(account, [
    { fileName: "MAEU BL 2412.pdf", createdAt: "2026-11-01T10:00:00Z", type: "bill_of_lading", source: "email" },
    { fileName: "Invoice-77.PDF", createdAt: "2026-11-02T10:00:00Z", type: "commercial_invoice" },
    // The extractor said invoice, a person said arrival notice: the manual type is the one that counts.
    {
      fileName: "notice.pdf",
      createdAt: "2026-11-03T10:00:00Z",
      type: "commercial_invoice",
      manual: "arrival_notice",
      source: "upload",
    },
    { fileName: "100% final.pdf", createdAt: "2026-11-04T10:00:00Z" },
    { fileName: "a_b.pdf", createdAt: "2026-11-05T10:00:00Z", type: "bill_of_lading" },
    { fileName: "axb.pdf", createdAt: "2026-11-06T10:00:00Z", source: "email" },
  ]);
  await seed(other, [{ fileName: "MAEU BL other.pdf", createdAt: "2026-11-07T10:00:00Z", type: "bill_of_lading" }]);
  return { account, ids: { bl, invoice, notice, pct, under, plain } as Record<string, string> };
}

describe("GET /documents filters and sort", () => {
  it("filter[filename] matches a case-insensitive substring of the account's file names, wildcards literal", async () => {
    const { account, ids } = await fixture();
    const bl = await list(account, "filter[filename]=maeu%20bl");
    expect(bl.res.status).toBe(200);
    expect(bl.json.data.map((d) => d.id)).toEqual([ids.bl]);
    expect(bl.json.meta.total).toBe(1);
    expect((await list(account, "filter[filename]=INVOICE")).json.data.map((d) => d.id)).toEqual([ids.invoice]);
    // `%` and `_` are the characters themselves, not LIKE wildcards.
    expect((await list(account, "filter[filename]=%25")).json.data.map((d) => d.id)).toEqual([ids.pct]);
    expect((await list(account, "filter[filename]=a_b")).json.data.map((d) => d.id)).toEqual([ids.under]);
    const none = await list(account, "filter[filename]=nothing-like-this");
    expect(none.json).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it("filter[document_types] matches the effective type (the manual one when set)", async () => {
    const { account, ids } = await fixture();
    const invoices = await list(account, "filter[document_types]=commercial_invoice");
    expect(invoices.json.data.map((d) => d.id)).toEqual([ids.invoice]);
    const two = await list(account, "filter[document_types]=arrival_notice,bill_of_lading");
    expect(two.json.data.map((d) => d.id)).toEqual([ids.under, ids.notice, ids.bl]);
    expect(two.json.meta.total).toBe(3);
    // Both filters: AND.
    const both = await list(account, "filter[document_types]=bill_of_lading&filter[filename]=maeu");
    expect(both.json.data.map((d) => d.id)).toEqual([ids.bl]);
  });

  it("pages of a filtered list: total counts the matches, links carry the filter", async () => {
    const { account, ids } = await fixture();
    const first = await list(account, "filter[filename]=.pdf&page[size]=2&sort=created_at");
    expect(first.res.status).toBe(200);
    expect(first.json.data.map((d) => d.id)).toEqual([ids.bl, ids.invoice]);
    expect(first.json.meta.total).toBe(6); // Invoice-77.PDF matches ".pdf" too: case-insensitive
    const second = await list(account, "filter[filename]=.pdf&page[size]=2&page[number]=2&sort=created_at");
    expect(second.json.data.map((d) => d.id)).toEqual([ids.notice, ids.pct]);
    expect(second.json.meta.total).toBe(6);
    const narrowed = await list(account, "filter[filename]=maeu&page[size]=2");
    expect(narrowed.json.meta.total).toBe(1);
    expect(decodeURIComponent(first.json.links.next ?? "")).toContain("filter[filename]=.pdf");
  });

  it("sort by created_at, document_type (effective, nulls first) and added_by (the source), - for descending", async () => {
    const { account, ids } = await fixture();
    const ids_ = async (sort: string) => (await list(account, `sort=${sort}`)).json.data.map((d) => d.id);
    expect(await ids_("created_at")).toEqual([ids.bl, ids.invoice, ids.notice, ids.pct, ids.under, ids.plain]);
    expect(await ids_("-created_at")).toEqual([ids.plain, ids.under, ids.pct, ids.notice, ids.invoice, ids.bl]);
    // Ascending: no type, then arrival_notice (manual), bill_of_lading, commercial_invoice; ties oldest first.
    expect(await ids_("document_type")).toEqual([ids.pct, ids.plain, ids.notice, ids.bl, ids.under, ids.invoice]);
    expect(await ids_("-document_type")).toEqual([ids.invoice, ids.under, ids.bl, ids.notice, ids.plain, ids.pct]);
    // api < email < upload; a second key breaks the ties.
    expect(await ids_("added_by,-created_at")).toEqual([
      ids.under,
      ids.pct,
      ids.invoice,
      ids.plain,
      ids.bl,
      ids.notice,
    ]);
    expect(await ids_("-added_by")).toEqual([ids.notice, ids.plain, ids.bl, ids.under, ids.pct, ids.invoice]);
  });

  it("bad parameters are 400s on their parameter", async () => {
    const { account } = await fixture();
    const sort = await list(account, "sort=name");
    expect(sort.res.status).toBe(400);
    expect(sort.json.errors?.[0]).toMatchObject({ status: "400", source: { parameter: "sort" } });
    expect(sort.json.errors?.[0]?.detail).toContain("document_type, added_by, created_at");
    expect((await list(account, "sort=created_at,created_at")).res.status).toBe(400);
    expect((await list(account, "sort=-")).res.status).toBe(400);
    const type = await list(account, "filter[document_types]=bill_of_lading,recipe");
    expect(type.res.status).toBe(400);
    expect(type.json.errors?.[0]).toMatchObject({ source: { parameter: "filter[document_types]" } });
    const long = await list(account, `filter[filename]=${"x".repeat(1001)}`);
    expect(long.res.status).toBe(400);
    expect((await list(account, "filter[reference_typo]=x")).res.status).toBe(400);
  });

  it("needs a valid key", async () => {
    const noKey = await apiJson<List>("/documents?sort=created_at");
    expect(noKey.res.status).toBe(401);
    const badKey = await apiJson<List>("/documents?filter[filename]=x", { key: "test_nope" });
    expect(badKey.res.status).toBe(401);
  });

  it("the filtered and sorted reads use the account's indexes (EXPLAIN QUERY PLAN of the SQL the list builds)", async () => {
    const db = createDatabase(env.DB);
    // The page query as src/lib/list-query.ts builds it, with the route's own filters and order.
    const plan = async (query: string) => {
      const params = new URLSearchParams(query);
      const filters = documentListConditions(parseDocumentFilters(Object.fromEntries(params))).flatMap((f) =>
        f ? [f] : [],
      );
      const order = parseDocumentSort(params.get("sort"));
      const built = db
        .select()
        .from(documents)
        // The value bound in place of the filter's placeholder, as the list's query shape binds it.
        .where(and(eq(documents.accountId, "acc"), ...filters.map((f) => f.where(sql`${f.value}` as never))))
        .orderBy(...(order?.by ?? [desc(documents.createdAt), desc(documents.id)]))
        .limit(25)
        .toSQL();
      const rows = await env.DB.prepare(`EXPLAIN QUERY PLAN ${built.sql}`)
        .bind(...built.params)
        .all<{ detail: string }>();
      return rows.results.map((r) => r.detail).join("\n");
    };
    // e.g. "SEARCH documents USING INDEX documents_account_effective_type_idx (account_id=? AND <expr>=?)"
    const byType = await plan("filter[document_types]=bill_of_lading,arrival_notice");
    expect(byType).toMatch(/USING INDEX documents_account_(effective_type|created)_idx/);
    for (const sort of ["document_type", "-document_type"]) {
      const sorted = await plan(`sort=${sort}`);
      expect(sorted, sort).toContain("USING INDEX documents_account_effective_type_idx");
      expect(sorted, sort).not.toContain("TEMP B-TREE");
    }
    for (const sort of ["added_by", "-added_by"]) {
      const sorted = await plan(`sort=${sort}`);
      expect(sorted, sort).toContain("USING INDEX documents_account_source_idx");
      expect(sorted, sort).not.toContain("TEMP B-TREE");
    }
    for (const sort of ["created_at", "-created_at"]) {
      expect(await plan(`sort=${sort}`), sort).toContain("USING INDEX documents_account_created_idx");
    }
    // The type filter with the type sort: one index for both.
    const both = await plan("filter[document_types]=bill_of_lading&sort=-document_type");
    expect(both).toContain("USING INDEX documents_account_effective_type_idx (account_id=? AND <expr>=?)");
    expect(both).not.toContain("TEMP B-TREE");
  });
});
