import { and, eq } from "drizzle-orm";
import { archivedRawEventObjectsQuery, withArchivedRawEvents } from "../archive/reads";
import type { Database } from "../db/client";
import { containers, rawEvents, shipments } from "../db/schema";
import { ApiError } from "../lib/errors";
import { ownedBy } from "../lib/tenant";
import type { RawEventView } from "./serializer";

/**
 * Every raw (carrier feed) event of a container in carrier order (`index ASC`, then id), estimated rows
 * included, as the deprecated reference endpoint serves them (docs/api.md §Container endpoints: not paginated), each
 * with the SCAC of the container's shipment (the line whose feed the rows are: `data_provider_code`). The container
 * lookup and the rows are one D1 round trip, both scoped by account. With `archive` (ARCHIVE_BUCKET), rows the retention
 * job moved to R2 are read back from there and merged in (docs/SCALING.md §Retention and archive): the manifest query
 * shares the round trip, and R2 is read only when it names objects.
 * @throws ApiError 404 when the container is unknown or another account's.
 */
export async function listContainerRawEvents(
  db: Database,
  accountId: string,
  containerId: string,
  archive?: R2Bucket,
): Promise<RawEventView[]> {
  const [found, live, archived] = await db.batch([
    db
      .select({ id: containers.id, scac: shipments.shippingLineScac })
      .from(containers)
      .leftJoin(shipments, and(eq(shipments.id, containers.shipmentId), ownedBy(shipments.accountId, accountId)))
      .where(and(ownedBy(containers.accountId, accountId), eq(containers.id, containerId)))
      .limit(1),
    db
      .select()
      .from(rawEvents)
      .where(and(ownedBy(rawEvents.accountId, accountId), eq(rawEvents.containerId, containerId)))
      .orderBy(rawEvents.index, rawEvents.id),
    archivedRawEventObjectsQuery(db, accountId, containerId),
  ]);
  const container = found[0];
  if (!container) throw ApiError.notFound("Couldn't find Container");
  const rows = archive ? await withArchivedRawEvents(archive, archived, containerId, live) : live;
  return rows.map((row) => ({ ...row, providerScac: container.scac }));
}
