import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  BENCH_ENGINE_ENQUEUE_PATH,
  benchEngineMode,
  benchEngineRequest,
  countingD1,
  type D1Counter,
  withBenchEngine,
  writeKind,
} from "../../src/tracking/bench-trace";

// The bench/engine instrumentation (src/tracking/bench-trace.ts): inert without BENCH_ENGINE, and its D1 counter
// counts real round trips of the local D1 binding while passing results through unchanged.

describe("bench-engine instrumentation", () => {
  it("is off unless BENCH_ENGINE is trace or noop", () => {
    expect(benchEngineMode({})).toBeNull();
    expect(benchEngineMode({ BENCH_ENGINE: "" })).toBeNull();
    expect(benchEngineMode({ BENCH_ENGINE: "yes" })).toBeNull();
    expect(benchEngineMode({ BENCH_ENGINE: "trace" })).toBe("trace");
    expect(benchEngineMode({ BENCH_ENGINE: "noop" })).toBe("noop");
  });

  it("leaves the enqueue path to the API when BENCH_ENGINE is unset", () => {
    const request = new Request(`http://localhost${BENCH_ENGINE_ENQUEUE_PATH}`, { method: "POST", body: "[]" });
    expect(benchEngineRequest(request, { ...env, BENCH_ENGINE: undefined })).toBeNull();
  });

  it("answers a malformed enqueue body with 400 under BENCH_ENGINE", async () => {
    const request = new Request(`http://localhost${BENCH_ENGINE_ENQUEUE_PATH}`, { method: "POST", body: "{" });
    const res = await benchEngineRequest(request, { ...env, BENCH_ENGINE: "noop" });
    expect(res?.status).toBe(400);
  });

  it("wraps the Worker: under noop terminal-polls are acked unread, everything else reaches the Worker", async () => {
    const reached: string[] = [];
    const app: Required<Pick<ExportedHandler<Env>, "fetch" | "queue">> = {
      fetch: async () => new Response("app"),
      queue: async (batch) => {
        reached.push(batch.queue);
      },
    };
    const worker = withBenchEngine(app);
    const acked: string[] = [];
    const batchOf = (queue: string) =>
      ({ queue, messages: [{ id: "m1", ack: () => acked.push(queue) }] }) as unknown as MessageBatch;
    const noop = { ...env, BENCH_ENGINE: "noop" } as Env;
    await worker.queue(batchOf("terminal-polls"), noop, createExecutionContext());
    expect(acked).toEqual(["terminal-polls"]);
    expect(reached).toEqual([]);
    await worker.queue(batchOf("tracking-requests"), noop, createExecutionContext());
    await worker.queue(batchOf("terminal-polls"), env, createExecutionContext());
    expect(reached).toEqual(["tracking-requests", "terminal-polls"]);
    expect(acked).toEqual(["terminal-polls"]);
    const enqueue = new Request(`http://localhost${BENCH_ENGINE_ENQUEUE_PATH}`, {
      method: "POST",
      body: "[]",
    }) as Parameters<typeof worker.fetch>[0];
    expect(await (await worker.fetch(enqueue, env, createExecutionContext())).text()).toBe("app");
    expect(await (await worker.fetch(enqueue.clone(), noop, createExecutionContext())).json()).toEqual({ enqueued: 0 });
  });

  it("counts a batch as one round trip of its statements and a lone statement as one of one", async () => {
    const counter: D1Counter = { batches: 0, statements: 0 };
    const db = countingD1(env.DB, counter);
    const one = await db.prepare("SELECT ? AS n").bind(7).first<{ n: number }>();
    expect(one?.n).toBe(7);
    expect(counter).toEqual({ batches: 1, statements: 1 });
    const results = await db.batch([db.prepare("SELECT 1 AS n"), db.prepare("SELECT ? AS n").bind(2)]);
    expect(results.map((r) => (r.results[0] as { n: number }).n)).toEqual([1, 2]);
    expect(counter).toEqual({ batches: 2, statements: 3 });
    const all = await db.prepare("SELECT 3 AS n").all<{ n: number }>();
    expect(all.results).toEqual([{ n: 3 }]);
    const raw = await db.prepare("SELECT 4 AS n").raw();
    expect(raw).toEqual([[4]]);
    expect(counter).toEqual({ batches: 4, statements: 5 });
  });

  it("names a statement's kind of write, and none for a read", () => {
    expect(writeKind('insert into "transport_events" ("id") values (?), (?)')).toBe("insert transport_events");
    expect(writeKind('update "containers" set "updated_at" = ? where "containers"."id" in (?)')).toBe(
      "update containers",
    );
    expect(writeKind('delete from "alerts" where "id" = ?')).toBe("delete alerts");
    expect(writeKind('select "id" from "webhooks" where "active" = 1')).toBeNull();
  });

  it("tallies a batch's writes by kind with the rows each changed, when asked to", async () => {
    const counter: D1Counter = { batches: 0, statements: 0, writes: {} };
    const db = countingD1(env.DB, counter);
    await db.batch([
      db.prepare('CREATE TABLE IF NOT EXISTS "bench_t" (id INTEGER PRIMARY KEY)'),
      db.prepare('DELETE FROM "bench_t"'),
    ]);
    Object.assign(counter, { batches: 0, statements: 0, writes: {} });
    const [, , read] = await db.batch([
      db.prepare('INSERT INTO "bench_t" (id) VALUES (?), (?)').bind(1, 2),
      db.prepare('UPDATE "bench_t" SET id = id + 10 WHERE id = ?').bind(1),
      db.prepare('SELECT count(*) AS n FROM "bench_t"'),
    ]);
    expect(read?.results).toEqual([{ n: 2 }]);
    expect(counter).toEqual({
      batches: 1,
      statements: 3,
      writes: { "insert bench_t": { statements: 1, changes: 2 }, "update bench_t": { statements: 1, changes: 1 } },
    });
  });
});
