import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { apiJson, createAccount } from "../helpers/api";

/** The statements of migration 0011 that index rows written before it (its last INSERT … SELECT statements). */
function backfillStatements(): string[] {
  const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0011_"));
  if (!migration) throw new Error("migration 0011 not found");
  const statements = migration.queries.filter((q) => /^\s*(--[^\n]*\n\s*)*INSERT INTO search_(accounts|docs)/i.test(q));
  expect(statements).toHaveLength(4);
  return statements;
}

describe("migration 0011 backfill", () => {
  it("indexes the rows that existed before it, in creation order per account and kind", async () => {
    const account = await createAccount("Before");
    const shipmentId = newId();
    const older = newId();
    const newer = newId();
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac,
           port_of_discharge_locode, created_at, updated_at)
         VALUES (?1, ?2, 'OLDBL1', 'OLDBL1', 'MAEU', 'DEHAM', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`,
      ).bind(shipmentId, account.accountId),
      // Inserted newest first: the backfill orders by created_at, not by insertion.
      env.DB.prepare(
        `INSERT INTO containers (id, account_id, shipment_id, number, created_at, updated_at)
         VALUES (?1, ?2, ?3, 'OLDU0000002', '2025-01-03T00:00:00Z', '2025-01-03T00:00:00Z')`,
      ).bind(newer, account.accountId, shipmentId),
      env.DB.prepare(
        `INSERT INTO containers (id, account_id, shipment_id, number, created_at, updated_at)
         VALUES (?1, ?2, ?3, 'OLDU0000001', '2025-01-02T00:00:00Z', '2025-01-02T00:00:00Z')`,
      ).bind(older, account.accountId, shipmentId),
    ]);
    // As before the migration: no index at all.
    await env.DB.batch([env.DB.prepare("DELETE FROM search_docs"), env.DB.prepare("DELETE FROM search_accounts")]);
    const { json: before } = await apiJson<{ data: unknown[] }>("/search?query=DEHAM", { key: account.key });
    expect(before.data).toEqual([]);

    await env.DB.batch(backfillStatements().map((q) => env.DB.prepare(q)));
    const { json } = await apiJson<{ data: { id: string }[] }>("/search?query=DEHAM", { key: account.key });
    expect(json.data.map((d) => d.id)).toEqual([shipmentId, newer, older]);
    // New rows after the backfill go on the end of their account's range.
    const later = newId();
    await env.DB.prepare(
      `INSERT INTO containers (id, account_id, shipment_id, number, created_at, updated_at)
       VALUES (?1, ?2, ?3, 'OLDU0000003', '2025-01-04T00:00:00Z', '2025-01-04T00:00:00Z')`,
    )
      .bind(later, account.accountId, shipmentId)
      .run();
    const { json: after } = await apiJson<{ data: { id: string }[] }>("/search?query=OLDU", { key: account.key });
    expect(after.data.map((d) => d.id)).toEqual([later, newer, older]);
  });
});
