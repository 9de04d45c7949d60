import type { z } from "zod";

/** The description {@link orNull} gives a nullable field's non-null branch; MCP tool listings drop it again. */
export const NULLABLE_MARK = "present when known";

/**
 * `inner` or null, for the output schemas of the MCP tools and of the views they share with the API
 * (src/containers/derived-views.ts). The non-null branch carries a description so that JSON Schema keeps
 * `anyOf: [{type: …}, {type: "null"}]` instead of zod's compact `type: [..., "null"]`, which some MCP clients and
 * `mcp-inspector --strict` flag as non-portable (docs/mcp.md §Where we go further gap 6).
 */
export function orNull<T extends z.ZodType>(inner: T) {
  // The MCP listing drops this description again (src/mcp/tools/calls.ts `trimSchema`); the `anyOf` stays.
  return inner.describe(NULLABLE_MARK).nullable();
}
