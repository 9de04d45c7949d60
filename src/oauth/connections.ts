/**
 * A user's OAuth connections: the MCP clients they allowed on the consent page (src/oauth/consent-routes.tsx), each
 * one grant of the OAuth provider in `OAUTH_KV` (docs/mcp.md §Signing in with OAuth). Read and revoked by the page
 * /app/account/connections (src/dashboard/connections-page.tsx).
 */

import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";

/** One connected app of a user. */
export interface OAuthConnection {
  /** The provider's grant id (the `<grantId>` of the grant's tokens). */
  grantId: string;
  clientId: string;
  /** The client's registered name (self-asserted by dynamic registration), or its id when it gave none. */
  clientName: string;
  /** When the user allowed it (ISO 8601, seconds). */
  createdAt: string;
  /** When the grant ends unless revoked (ISO 8601, seconds); null when it does not expire. */
  expiresAt: string | null;
}

/** Most grants read for one user (the provider lists at most 1000 a page); a user has a handful. */
const MAX_CONNECTIONS = 200;

/** Unix seconds → ISO 8601 without milliseconds. */
function isoOfSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The user's connected apps, newest first (at most {@link MAX_CONNECTIONS}). The client name comes from the grant's
 * metadata (stored at consent), else from the client's registration.
 */
export async function listConnections(helpers: OAuthHelpers, userId: string): Promise<OAuthConnection[]> {
  const connections: OAuthConnection[] = [];
  let cursor: string | undefined;
  do {
    const page = await helpers.listUserGrants(userId, { limit: 100, ...(cursor ? { cursor } : {}) });
    for (const grant of page.items) {
      const stored = typeof grant.metadata?.clientName === "string" ? (grant.metadata.clientName as string) : null;
      const clientName = stored ?? (await helpers.lookupClient(grant.clientId).catch(() => null))?.clientName;
      connections.push({
        grantId: grant.id,
        clientId: grant.clientId,
        clientName: clientName || grant.clientId,
        createdAt: isoOfSeconds(grant.createdAt),
        expiresAt: grant.expiresAt ? isoOfSeconds(grant.expiresAt) : null,
      });
    }
    cursor = page.cursor;
  } while (cursor && connections.length < MAX_CONNECTIONS);
  return connections.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, MAX_CONNECTIONS);
}

/**
 * Revokes the user's grant `grantId` and every token of it (the client's next request gets 401, its refresh
 * `invalid_grant`). Returns false when the user has no such grant (another user's grant id included: grants are
 * keyed by their user, so nothing is touched).
 */
export async function revokeConnection(helpers: OAuthHelpers, userId: string, grantId: string): Promise<boolean> {
  const owned = (await listConnections(helpers, userId)).some((c) => c.grantId === grantId);
  if (!owned) return false;
  await helpers.revokeGrant(grantId, userId);
  return true;
}
