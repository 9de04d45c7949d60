import { createExecutionContext, env, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import {
  BENCH_CAPACITY_PATH,
  benchCapacityRequest,
  capacityCounts,
  capacityEnv,
  meterObjectStorage,
  resetCapacityCounts,
} from "../../src/tracking/bench-capacity";
import { countingD1, type D1Counter, productionIntervalMs, withBenchEngine } from "../../src/tracking/bench-trace";
import type { ContainerState, ShipmentState } from "../../src/tracking/derive";

// The bench/capacity meters (src/tracking/bench-capacity.ts): inert without BENCH_CAPACITY=1; with it, every D1,
// queue and Durable Object call of the Worker is counted (D1 rows as D1's own meta reports them) and the tally is
// served at GET /__bench/capacity.

const on = () => ({ ...env, BENCH_CAPACITY: "1" }) as Env;

describe("bench-capacity meters", () => {
  beforeEach(() => resetCapacityCounts());

  it("are off unless BENCH_CAPACITY is 1: the env is returned as it is and the tally path is not answered", () => {
    expect(capacityEnv(env)).toBe(env);
    const off = { ...env, BENCH_CAPACITY: "yes" } as Env;
    expect(capacityEnv(off)).toBe(off);
    expect(benchCapacityRequest(new Request(`http://localhost${BENCH_CAPACITY_PATH}`), env)).toBeNull();
    expect(capacityCounts()).toEqual({});
  });

  it("count D1 rows read and written from each answer's meta, and raw() statements as unmetered", async () => {
    const metered = capacityEnv(on());
    expect(capacityEnv(on())).not.toBe(metered); // another env object, another wrapper…
    const e = on();
    expect(capacityEnv(e)).toBe(capacityEnv(e)); // …but the same one for the same env
    const db = metered.DB;
    await db.prepare("CREATE TABLE IF NOT EXISTS bench_capacity_t (n INTEGER)").run();
    await db.batch([
      db.prepare("INSERT INTO bench_capacity_t (n) VALUES (?)").bind(1),
      db.prepare("INSERT INTO bench_capacity_t (n) VALUES (?)").bind(2),
    ]);
    const first = await db.prepare("SELECT sum(n) AS s FROM bench_capacity_t").first<number>("s");
    expect(first).toBe(3);
    expect(await db.prepare("SELECT n FROM bench_capacity_t WHERE n > 5").first()).toBeNull();
    expect(await db.prepare("SELECT n FROM bench_capacity_t ORDER BY n").raw()).toEqual([[1], [2]]);
    const c = capacityCounts();
    expect(c["d1.DB.batches"]).toBe(5);
    expect(c["d1.DB.statements"]).toBe(6);
    expect(c["d1.DB.rowsWritten"]).toBeGreaterThanOrEqual(2);
    expect(c["d1.DB.rowsRead"]).toBeGreaterThanOrEqual(4); // two full scans of two rows
    expect(c["d1.DB.unmetered"]).toBe(1);
    expect(Object.keys(c).some((k) => k.startsWith("d1heavy."))).toBe(false);
  });

  it("tally the statements that read 100 rows or more by their SQL", async () => {
    const db = capacityEnv(on()).DB;
    await db.prepare("CREATE TABLE IF NOT EXISTS bench_capacity_h (n INTEGER)").run();
    await db
      .prepare("INSERT INTO bench_capacity_h (n) SELECT value FROM json_each(?)")
      .bind(JSON.stringify([...Array(150).keys()]))
      .run();
    resetCapacityCounts();
    const [scan] = await db.batch([db.prepare("SELECT   count(*) AS n\n FROM bench_capacity_h WHERE n % 2 = 0")]);
    expect(scan?.results).toEqual([{ n: 75 }]);
    const c = capacityCounts();
    const key = "d1heavy.SELECT count(*) AS n FROM bench_capacity_h WHERE n % 2 = 0";
    expect(c[`${key}.statements`]).toBe(1);
    expect(c[`${key}.rowsRead`]).toBeGreaterThanOrEqual(150);
  });

  it("count queue sends, Durable Object calls and their wall time, passing results through", async () => {
    const sent: unknown[] = [];
    const queue = { send: async (b: unknown) => sent.push(b), sendBatch: async (m: unknown[]) => sent.push(...m) };
    const stub = { id: "the-id", ping: async (x: number) => x + 1 };
    const ns = { idFromName: (n: string) => n, get: () => stub, getByName: () => stub, jurisdiction: () => ns };
    const metered = capacityEnv({ ...on(), TERMINAL_POLLS_QUEUE: queue, TRACKER: ns } as unknown as Env);
    await metered.TERMINAL_POLLS_QUEUE.send({ scac: "MAEU", number: "MSKU1000007" });
    const box = { scac: "MAEU", number: "MSKU1000018" };
    await metered.TERMINAL_POLLS_QUEUE.sendBatch([{ body: box }, { body: box }]);
    const s = metered.TRACKER.get(metered.TRACKER.idFromName("x")) as unknown as typeof stub;
    expect(s.id).toBe("the-id");
    expect(await s.ping(1)).toBe(2);
    await Promise.resolve();
    const c = capacityCounts();
    expect(sent).toHaveLength(3);
    expect(c["queue.TERMINAL_POLLS_QUEUE.sent"]).toBe(3);
    expect(c["do.TRACKER.requests"]).toBe(1);
    expect(c["do.TRACKER.ping"]).toBe(1);
    expect(c["do.TRACKER.wallMs"]).toBeGreaterThanOrEqual(0);
  });

  it("count a Durable Object's storage calls as the rows a SQLite-backed object is billed, leaving their answers alone", async () => {
    const stub = env.TRACKER.get(env.TRACKER.idFromName("bench-capacity-storage"));
    await runInDurableObject(stub, async (_instance, state) => {
      meterObjectStorage(state.storage, "TRACKER");
      await state.storage.put("a", { n: 1 });
      await state.storage.put({ b: 2, c: 3 });
      expect(await state.storage.get("a")).toEqual({ n: 1 });
      expect([...(await state.storage.get(["b", "c", "missing"])).entries()]).toEqual([
        ["b", 2],
        ["c", 3],
      ]);
      await state.storage.delete(["b", "c"]);
      expect(await state.storage.get("b")).toBeUndefined();
      await state.storage.setAlarm(Date.now() + 3_600_000);
      expect(await state.storage.getAlarm()).not.toBeNull();
      await state.storage.deleteAlarm();
      expect(await state.storage.getAlarm()).toBeNull();
    });
    const c = capacityCounts();
    expect(c["dostorage.TRACKER.put"]).toBe(2);
    expect(c["dostorage.TRACKER.get"]).toBe(3);
    expect(c["dostorage.TRACKER.delete"]).toBe(1);
    expect(c["dostorage.TRACKER.setAlarm"]).toBe(1);
    expect(c["dostorage.TRACKER.deleteAlarm"]).toBe(1);
    expect(c["dostorage.TRACKER.getAlarm"]).toBe(2);
    // put: 1 + 2 keys, delete: 2 keys, setAlarm + deleteAlarm: 1 each; get: 1 + 3 + 1 keys.
    expect(c["dostorage.TRACKER.rowsWritten"]).toBe(7);
    expect(c["dostorage.TRACKER.rowsRead"]).toBe(5);
  });

  it("count the Worker's requests and queue batches and answer the tally, not counting the tally request", async () => {
    const seen: string[] = [];
    const app: Required<Pick<ExportedHandler<Env>, "fetch" | "queue">> = {
      fetch: async () => new Response("app"),
      queue: async (batch) => {
        seen.push(batch.queue);
      },
    };
    const worker = withBenchEngine(app);
    const ctx = createExecutionContext();
    const req = (path: string) => new Request(`http://localhost${path}`) as Parameters<typeof worker.fetch>[0];
    expect(await (await worker.fetch(req("/health"), on(), ctx)).text()).toBe("app");
    const batch = {
      queue: "webhook-deliveries",
      messages: [{ attempts: 1 }, { attempts: 3 }],
    } as unknown as MessageBatch;
    await worker.queue(batch, on(), ctx);
    expect(seen).toEqual(["webhook-deliveries"]);
    const tally = await (await worker.fetch(req(BENCH_CAPACITY_PATH), on(), ctx)).json();
    expect(tally).toMatchObject({
      "worker.fetch": 1,
      "worker.queue.webhook-deliveries.invocations": 1,
      "worker.queue.webhook-deliveries.messages": 2,
      "worker.queue.webhook-deliveries.redelivered": 1,
    });
    // Without the switch the path is the app's.
    expect(await (await worker.fetch(req(BENCH_CAPACITY_PATH), env, ctx)).text()).toBe("app");
  });

  it("keeps countingD1's answers unchanged for first(column) on a missing row", async () => {
    const counter: D1Counter = { batches: 0, statements: 0 };
    const db = countingD1(env.DB, counter);
    expect(await db.prepare("SELECT 1 AS n WHERE 0").first("n")).toBeNull();
    expect(counter.rowsWritten).toBe(0);
  });

  it("converts a fast box's state back to production's poll interval", () => {
    const nowMs = Date.parse("2026-12-01T00:00:00Z");
    const speedUp = 1440 * 20;
    // At the POD ETA 2 simulated days away (6 real seconds at this speed-up): production polls every 2 h.
    const eta = new Date(nowMs + (2 * 86_400_000) / speedUp).toISOString();
    const state = { currentStatus: "on_ship", pickupLfd: null, indEtaAt: null } as unknown as ContainerState;
    const shipment = { podEtaAt: eta } as unknown as ShipmentState;
    expect(productionIntervalMs(state, shipment, nowMs, speedUp)).toBe(2 * 3_600_000);
    const far = { podEtaAt: new Date(nowMs + (10 * 86_400_000) / speedUp).toISOString() } as ShipmentState;
    expect(productionIntervalMs(state, far, nowMs, speedUp)).toBe(12 * 3_600_000);
    expect(productionIntervalMs(null, shipment, nowMs, speedUp)).toBeNull();
    const done = { ...state, currentStatus: "empty_returned" } as ContainerState;
    expect(productionIntervalMs(done, shipment, nowMs, speedUp)).toBeNull();
  });
});
