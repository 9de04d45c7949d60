import { and, count, desc, eq } from "drizzle-orm";
import { isCurrencyCode, toMinorUnits } from "../charges/money";
import type { Database } from "../db/client";
import { type StoredRateTier, tariffs, terminals } from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { ApiError, type ErrorObject } from "../lib/errors";
import { newId } from "../lib/ids";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { ownedBy } from "../lib/tenant";
import type { TariffRow } from "./serializer";

/** What the tariff services need. */
export interface TariffDeps {
  db: Database;
  clock: Clock;
}

/** A tariff's attributes in wire names, as the route's schema parsed them (scope fields may be absent). */
export interface TariffInput {
  kind?: TariffRow["kind"];
  name?: string | null;
  scac?: string | null;
  port_code?: string | null;
  terminal_id?: string | null;
  equipment_length?: number | null;
  equipment_type?: string | null;
  free_days?: number;
  free_days_basis?: "calendar" | "business";
  clock_starts_at?: TariffRow["clockStartsAt"];
  tiers?: StoredRateTier[];
}

type Complete = Required<TariffInput>;
type ErrorItem = Omit<ErrorObject, "status" | "title">;
const at = (field: string) => ({ pointer: `/data/attributes/${field}` });

/**
 * The checks the body schema cannot make (issue 27 §1: "validation errors point at the field"), every failing one at
 * once: tiers start at day 1 and follow each other with no gap or overlap, only the last is open-ended; one known
 * ISO 4217 currency with no more decimals than its minor unit; a detention tariff's clock starts at full out and no
 * other's does; the terminal exists.
 * @throws ApiError 422 with a `source.pointer` per error.
 */
async function checkTariff(db: Database, t: Complete): Promise<void> {
  const errors: ErrorItem[] = [];
  const first = t.tiers[0]?.currency_code;
  t.tiers.forEach((tier, i) => {
    const p = (f: string) => at(`tiers/${i}/${f}`);
    const previous = t.tiers[i - 1];
    const expected = previous ? (previous.to_day ?? Number.NaN) + 1 : 1;
    if (previous && previous.to_day === null) {
      errors.push({
        detail: "only the last tier may be open-ended (to_day null)",
        source: at(`tiers/${i - 1}/to_day`),
        code: "invalid",
      });
    } else if (tier.from_day !== expected) {
      const what = tier.from_day < expected ? "overlaps the tier before it" : "leaves a gap after the tier before it";
      errors.push({
        detail: `from_day ${tier.from_day} ${what}: it must be ${expected}`,
        source: p("from_day"),
        code: "invalid",
      });
    }
    if (tier.to_day !== null && tier.to_day < tier.from_day) {
      errors.push({ detail: "to_day must not be before from_day", source: p("to_day"), code: "invalid" });
    }
    if (!isCurrencyCode(tier.currency_code)) {
      errors.push({
        detail: `${tier.currency_code} is not an ISO 4217 currency code`,
        source: p("currency_code"),
        code: "invalid",
      });
    } else if (tier.currency_code !== first) {
      errors.push({
        detail: `every tier must be in one currency (${first})`,
        source: p("currency_code"),
        code: "invalid",
      });
    } else if (toMinorUnits(tier.rate_per_day, tier.currency_code) === null) {
      errors.push({
        detail: `${tier.rate_per_day} has more decimals than ${tier.currency_code} has`,
        source: p("rate_per_day"),
        code: "invalid",
      });
    }
  });
  if (t.kind === "detention" && t.clock_starts_at !== "full_out") {
    errors.push({
      detail: "a detention tariff's clock starts at full_out",
      source: at("clock_starts_at"),
      code: "invalid",
    });
  } else if (t.kind !== "detention" && t.clock_starts_at === "full_out") {
    errors.push({
      detail: `a ${t.kind} tariff's clock starts at discharged or available`,
      source: at("clock_starts_at"),
      code: "invalid",
    });
  }
  if (t.terminal_id) {
    const [row] = await db.select({ id: terminals.id }).from(terminals).where(eq(terminals.id, t.terminal_id)).limit(1);
    if (!row)
      errors.push({ detail: `no terminal has id ${t.terminal_id}`, source: at("terminal_id"), code: "not_found" });
  }
  if (errors.length > 0) throw new ApiError(422, errors);
}

function columnsOf(t: Complete) {
  return {
    name: t.name,
    kind: t.kind,
    scac: t.scac,
    portCode: t.port_code,
    terminalId: t.terminal_id,
    equipmentLength: t.equipment_length,
    equipmentType: t.equipment_type,
    freeDays: t.free_days,
    freeDaysBasis: t.free_days_basis,
    clockStartsAt: t.clock_starts_at,
    tiers: t.tiers,
  };
}

function inputOf(row: TariffRow): Complete {
  return {
    kind: row.kind,
    name: row.name,
    scac: row.scac,
    port_code: row.portCode,
    terminal_id: row.terminalId,
    equipment_length: row.equipmentLength,
    equipment_type: row.equipmentType,
    free_days: row.freeDays,
    free_days_basis: row.freeDaysBasis as Complete["free_days_basis"],
    clock_starts_at: row.clockStartsAt,
    tiers: row.tiers,
  };
}

const DEFAULTS = {
  name: null,
  scac: null,
  port_code: null,
  terminal_id: null,
  equipment_length: null,
  equipment_type: null,
  free_days_basis: "calendar" as const,
};

/**
 * Creates a tariff of the account (`POST /tariffs`, docs/api.md §Tariffs).
 * @throws ApiError 422 for each field {@link checkTariff} refuses.
 */
export async function createTariff(
  deps: TariffDeps,
  accountId: string,
  input: TariffInput & Pick<Complete, "kind" | "free_days" | "clock_starts_at" | "tiers">,
): Promise<TariffRow> {
  const complete: Complete = { ...DEFAULTS, ...input };
  await checkTariff(deps.db, complete);
  const now = toIsoSeconds(deps.clock.now());
  const [row] = await deps.db
    .insert(tariffs)
    .values({ id: newId(), accountId, ...columnsOf(complete), createdAt: now, updatedAt: now })
    .returning();
  if (!row) throw new Error("tariff insert returned no row");
  return row;
}

/** One tariff of the account. @throws ApiError 404 when absent or another account's. */
export async function getTariff(db: Database, accountId: string, id: string): Promise<TariffRow> {
  const [row] = await db
    .select()
    .from(tariffs)
    .where(and(ownedBy(tariffs.accountId, accountId), eq(tariffs.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find Tariff");
  return row;
}

/** A page of the account's tariffs, newest first, and their total (one D1 round trip). */
export async function listTariffs(
  db: Database,
  accountId: string,
  page: PageRequest,
): Promise<{ rows: TariffRow[]; total: number }> {
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(tariffs)
      .where(eq(tariffs.accountId, accountId))
      .orderBy(desc(tariffs.createdAt), desc(tariffs.id))
      .limit(page.size)
      .offset(page.offset),
    db.select({ n: count() }).from(tariffs).where(eq(tariffs.accountId, accountId)),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** Every tariff of the account (what the calculator matches against; an account keeps tens, not thousands). */
export async function allTariffs(db: Database, accountId: string): Promise<TariffRow[]> {
  return db.select().from(tariffs).where(eq(tariffs.accountId, accountId));
}

/**
 * Changes a tariff (`PATCH /tariffs/{id}`): the attributes sent replace the stored ones, and the result is checked
 * whole, as a create is.
 * @throws ApiError 404 when absent or another account's; 422 as {@link createTariff}.
 */
export async function updateTariff(
  deps: TariffDeps,
  accountId: string,
  id: string,
  input: TariffInput,
): Promise<TariffRow> {
  const current = await getTariff(deps.db, accountId, id);
  const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const complete: Complete = { ...inputOf(current), ...defined };
  await checkTariff(deps.db, complete);
  const [row] = await deps.db
    .update(tariffs)
    .set({ ...columnsOf(complete), updatedAt: toIsoSeconds(deps.clock.now()) })
    .where(and(ownedBy(tariffs.accountId, accountId), eq(tariffs.id, id)))
    .returning();
  if (!row) throw ApiError.notFound("Couldn't find Tariff");
  return row;
}

/** Deletes a tariff. @throws ApiError 404 when absent or another account's. */
export async function deleteTariff(db: Database, accountId: string, id: string): Promise<void> {
  const rows = await db
    .delete(tariffs)
    .where(and(ownedBy(tariffs.accountId, accountId), eq(tariffs.id, id)))
    .returning({ id: tariffs.id });
  if (rows.length === 0) throw ApiError.notFound("Couldn't find Tariff");
}
