import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { containers, rawEvents } from "../db/schema";
import { ApiError } from "../lib/errors";
import { ownedBy } from "../lib/tenant";
import type { RawEventRow } from "./serializer";

/**
 * Every raw (carrier feed) event of a container in carrier order (`index ASC`, then id), estimated rows
 * included, as the deprecated reference endpoint serves them (R §3.5: not paginated). The container lookup
 * and the rows are one D1 round trip, both scoped by account.
 * @throws ApiError 404 when the container is unknown or another account's.
 */
export async function listContainerRawEvents(
  db: Database,
  accountId: string,
  containerId: string,
): Promise<RawEventRow[]> {
  const [found, rows] = await db.batch([
    db
      .select({ id: containers.id })
      .from(containers)
      .where(and(ownedBy(containers.accountId, accountId), eq(containers.id, containerId)))
      .limit(1),
    db
      .select()
      .from(rawEvents)
      .where(and(ownedBy(rawEvents.accountId, accountId), eq(rawEvents.containerId, containerId)))
      .orderBy(rawEvents.index, rawEvents.id),
  ]);
  if (found.length === 0) throw ApiError.notFound("Couldn't find Container");
  return rows;
}
