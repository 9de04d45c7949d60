import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { ports } from "../db/schema";
import { isUuid } from "../lib/ids";
import { findPortByLocode } from "../reference/locations";
import type { PortRow } from "./serializer";

const LOCODE = /^[A-Za-z]{2}[A-Za-z2-9]{3}$/;

/**
 * The port named by `key`: a UN/LOCODE, current or alternative, any case (`CNSGH` finds Shanghai, `CNSHA`; issue 12),
 * or a port id (UUID), as `GET /v2/ports/{id}` and the future positions' `port_id` read it (docs/api.md §Reference data
 * endpoints). Ports are shared reference data.
 * @returns the row, or undefined when no port has that code or id (or the key is neither).
 */
export async function findPort(db: Database, key: string): Promise<PortRow | undefined> {
  const where = LOCODE.test(key)
    ? eq(ports.code, findPortByLocode(key)?.code ?? key.toUpperCase())
    : isUuid(key)
      ? eq(ports.id, key.toLowerCase())
      : undefined;
  if (!where) return undefined;
  const [row] = await db.select().from(ports).where(where).limit(1);
  return row;
}
