import { and, count, eq, notLike } from "drizzle-orm";
import type { Database } from "../db/client";
import { containers, transportEvents } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { ownedBy } from "../lib/tenant";
import type { TransportEventRow } from "./serializer";

/**
 * One page of a container's transport events, oldest first (`timestamp ASC, id ASC`, read through the
 * `(container_id, timestamp, id)` index), with the number of matching events. Estimates
 * (`container.transport.estimated.*`) are left out: the reference endpoint serves past, vetted milestones
 * only (docs/api.md §Transport event names note, §Container endpoints). The container lookup, the page and the total
 * are one D1 round trip; every query is scoped by account. `options.estimates` true keeps the estimates in (the
 * dashboard's timeline shows planned milestones beside actual ones, src/dashboard/container-page.tsx); REST never
 * sets it.
 * @throws ApiError 404 when the container is unknown or another account's.
 */
export async function listContainerTransportEvents(
  db: Database,
  accountId: string,
  containerId: string,
  page: PageRequest,
  options: { estimates?: boolean } = {},
): Promise<{ rows: TransportEventRow[]; total: number }> {
  const where = and(
    ownedBy(transportEvents.accountId, accountId),
    eq(transportEvents.containerId, containerId),
    options.estimates ? undefined : notLike(transportEvents.event, "%.estimated.%"),
  );
  const [found, rows, totals] = await db.batch([
    db
      .select({ id: containers.id })
      .from(containers)
      .where(and(ownedBy(containers.accountId, accountId), eq(containers.id, containerId)))
      .limit(1),
    db
      .select()
      .from(transportEvents)
      .where(where)
      .orderBy(transportEvents.timestamp, transportEvents.id)
      .limit(page.size)
      .offset(page.offset),
    db.select({ count: count() }).from(transportEvents).where(where),
  ]);
  if (found.length === 0) throw ApiError.notFound("Couldn't find Container");
  return { rows, total: Number(totals[0]?.count ?? 0) };
}
