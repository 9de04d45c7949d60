import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PORTS } from "../../src/reference/generated/ports";
import { TERMINALS } from "../../src/reference/generated/terminals";
import { referenceSeedStatements } from "../../src/reference/seed";

// The reference seed (src/reference/seed.ts) as `npm start`, `npm run seed` and test/setup.ts apply it: idempotent,
// in place, ids fixed (issue 12). test/setup.ts has already seeded this file's database once.

/** Runs the seed in one D1 batch and returns the number of rows it wrote. */
async function seed(): Promise<number> {
  const results = await env.DB.batch(referenceSeedStatements().map((sql) => env.DB.prepare(sql)));
  return results.reduce((sum, r) => sum + (r.meta.changes ?? 0), 0);
}

async function count(table: "ports" | "terminals"): Promise<number> {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>();
  return row?.n ?? -1;
}

describe("reference seed", () => {
  it("holds every compiled port and terminal, in few statements (D1: 100 KB of SQL each)", async () => {
    expect(await count("ports")).toBe(PORTS.length);
    expect(await count("terminals")).toBe(TERMINALS.length);
    const statements = referenceSeedStatements();
    expect(statements.length).toBeLessThan(40);
    for (const sql of statements) expect(new TextEncoder().encode(sql).length).toBeLessThan(100_000);
  });

  it("a second seed writes nothing", async () => {
    expect(await seed()).toBe(0);
    expect(await count("ports")).toBe(PORTS.length);
  });

  it("a changed row is put back in place, under the same id, and only that row is written", async () => {
    const shanghai = PORTS.find((p) => p.code === "CNSHA");
    await env.DB.prepare("UPDATE ports SET name = 'Old name', time_zone = NULL WHERE code = 'CNSHA'").run();
    await env.DB.prepare("UPDATE terminals SET smdg_code = NULL WHERE firms_code = 'W185'").run();
    expect(await seed()).toBe(2);
    const row = await env.DB.prepare("SELECT id, name, time_zone FROM ports WHERE code = 'CNSHA'").first();
    expect(row).toEqual({ id: shanghai?.id, name: "Shanghai", time_zone: "Asia/Shanghai" });
    const apm = await env.DB.prepare("SELECT smdg_code FROM terminals WHERE firms_code = 'W185'").first();
    expect(apm).toEqual({ smdg_code: "APMT" });
    expect(await seed()).toBe(0);
  });

  it("the whole seed into an empty database and again stays quick", async () => {
    await env.DB.prepare("DELETE FROM terminals").run();
    await env.DB.prepare("DELETE FROM ports").run();
    const started = Date.now();
    expect(await seed()).toBe(PORTS.length + TERMINALS.length);
    const fresh = Date.now() - started;
    const again = Date.now();
    expect(await seed()).toBe(0);
    const repeat = Date.now() - again;
    // Generous bounds for a shared 2-core machine; the figures measured are in
    // docs/terminals.md §Ports and terminals data.
    expect(fresh).toBeLessThan(10_000);
    expect(repeat).toBeLessThan(10_000);
  });
});
