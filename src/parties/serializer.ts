import type { parties } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";

/** A `parties` row as drizzle returns it. */
export type PartyRow = typeof parties.$inferSelect;

/** Serialises a party (a customer of the account, docs/api.md §Party resource): `{company_name}` and `links.self`. */
export function serializeParty(row: PartyRow): ResourceObject {
  return {
    id: row.id,
    type: "party",
    attributes: { company_name: row.companyName, created_at: row.createdAt },
    links: { self: `/v2/parties/${row.id}` },
  };
}

/** JSON:API type `party`. */
export const partyResource = registerResourceType<PartyRow>({
  type: "party",
  serializerName: "V2::PartySerializer",
  serialize: serializeParty,
  relationships: {},
});
