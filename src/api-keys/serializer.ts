import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import type { ApiKeyRow, CreatedApiKey } from "./service";

/**
 * Serialises an API key (docs/api.md §Team and API keys): name, prefix and dates, never the key or its hash. A key
 * just created (`CreatedApiKey`) also carries `key`, the one time it is served.
 */
export function serializeApiKey(row: ApiKeyRow | CreatedApiKey): ResourceObject {
  return {
    id: row.id,
    type: "api_key",
    attributes: {
      name: row.name,
      prefix: row.prefix,
      created_at: row.createdAt,
      last_used_at: row.lastUsedAt,
      revoked_at: row.revokedAt,
      ...("key" in row ? { key: row.key } : {}),
    },
    links: { self: `/v2/api_keys/${row.id}` },
  };
}

/** JSON:API type `api_key`; nothing to include. */
export const apiKeyResource = registerResourceType<ApiKeyRow>({
  type: "api_key",
  serializerName: "V2::ApiKeySerializer",
  serialize: serializeApiKey,
  relationships: {},
});
