import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { parties } from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { bumpCount } from "../lib/counts";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { ownedBy } from "../lib/tenant";
import type { PartyRow } from "./serializer";

/**
 * A company name as a party keeps it: trimmed, not blank (docs/api.md §Party resource; the reference's 422 of
 * `POST /parties` and `PATCH /parties/{id}`).
 * @throws ApiError 422 at `/data/attributes/company_name`, "Company name can't be blank" (code `blank`).
 */
function companyName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") {
    throw ApiError.invalidField("/data/attributes/company_name", "Company name can't be blank", "blank");
  }
  return trimmed;
}

/**
 * The reference's 422 for a company name another party of the account already has (docs/api.md §Party resource):
 * pointer `/data/attributes/customer` (sic, as the reference sends it), detail `'<name>' already exists in Account`.
 */
function duplicateName(name: string): ApiError {
  return ApiError.invalidField("/data/attributes/customer", `'${name}' already exists in Account`, "duplicate");
}

/** SQL: a party of `accountId` other than `exceptId` is named `name`, compared case-insensitively. */
function nameTakenByAnother(accountId: string, name: string, exceptId: string) {
  return sql`EXISTS (SELECT 1 FROM ${parties} AS other WHERE other.account_id = ${accountId}
    AND lower(other.company_name) = lower(${name}) AND other.id <> ${exceptId})`;
}

/**
 * One party of the account (`GET /parties/{id}`).
 * @throws ApiError 404 when absent or another account's.
 */
export async function getParty(db: Database, accountId: string, id: string): Promise<PartyRow> {
  const [row] = await db
    .select()
    .from(parties)
    .where(and(ownedBy(parties.accountId, accountId), eq(parties.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find Party");
  return row;
}

/**
 * Creates a party (`POST /parties`, docs/api.md §Party endpoints): the name trimmed, unique in the account regardless
 * of case; the account's party count is bumped in the same batch.
 * @throws ApiError 422 blank (`/data/attributes/company_name`) or taken (`/data/attributes/customer`).
 */
export async function createParty(
  deps: { db: Database; clock: Clock },
  accountId: string,
  input: { companyName: string },
): Promise<PartyRow> {
  const name = companyName(input.companyName);
  const { db } = deps;
  const [taken] = await db
    .select({ id: parties.id })
    .from(parties)
    .where(and(eq(parties.accountId, accountId), sql`lower(${parties.companyName}) = lower(${name})`))
    .limit(1);
  if (taken) throw duplicateName(name);
  const row = { id: newId(), accountId, companyName: name, createdAt: toIsoSeconds(deps.clock.now()) };
  await db.batch([db.insert(parties).values(row), bumpCount(db, accountId, "party", 1)]);
  return row;
}

/**
 * Renames a party (`PATCH /parties/{id}`, docs/api.md §Party endpoints) with the rules of {@link createParty}; its own
 * current name (in any case) is not a duplicate. The check and the write are one statement, so two renames cannot
 * both take a free name. Shipments show the new name as `customer_name` at once (they read it through the party).
 * @throws ApiError 404 when the party is unknown or another account's; 422 blank or taken, nothing changed.
 */
export async function renameParty(
  db: Database,
  accountId: string,
  id: string,
  input: { companyName: string },
): Promise<PartyRow> {
  const name = companyName(input.companyName);
  const [row] = await db
    .update(parties)
    .set({ companyName: name })
    .where(
      and(
        ownedBy(parties.accountId, accountId),
        eq(parties.id, id),
        sql`NOT ${nameTakenByAnother(accountId, name, id)}`,
      ),
    )
    .returning();
  if (row) return row;
  await getParty(db, accountId, id);
  throw duplicateName(name);
}
