import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { containers, rawEvents, shipments } from "../db/schema";
import { ApiError } from "../lib/errors";
import { ownedBy } from "../lib/tenant";
import type { RawEventView } from "./serializer";

/**
 * Every raw (carrier feed) event of a container in carrier order (`index ASC`, then id), estimated rows
 * included, as the deprecated reference endpoint serves them (docs/api.md §Container endpoints: not paginated), each
 * with the SCAC of the container's shipment (the line whose feed the rows are: `data_provider_code`). The container
 * lookup and the rows are one D1 round trip, both scoped by account.
 * @throws ApiError 404 when the container is unknown or another account's.
 */
export async function listContainerRawEvents(
  db: Database,
  accountId: string,
  containerId: string,
): Promise<RawEventView[]> {
  const [found, rows] = await db.batch([
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
  ]);
  const container = found[0];
  if (!container) throw ApiError.notFound("Couldn't find Container");
  return rows.map((row) => ({ ...row, providerScac: container.scac }));
}
