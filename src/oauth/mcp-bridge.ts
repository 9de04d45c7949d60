/**
 * `/mcp` with OAuth on (src/oauth/provider.ts; docs/mcp.md §Signing in with OAuth): the Worker's fetch routing for
 * `MCP_OAUTH = "on"`, and the provider's `apiHandler`, which turns a validated access token into the MCP caller.
 */

import type { OAuthResourceContext } from "@cloudflare/workers-oauth-provider";
import type { UserRole } from "../db/schema/users";
import { handleMcpRequest, hostGuard, MCP_PATH, oauthChallenge } from "../mcp/http";
import { roleAllows } from "../sessions/session";
import { isProviderPath, oauthHelpersFor, oauthProviderFor, type ProviderHandler } from "./provider";

/**
 * What the consent page stores with a grant (`completeAuthorization` props; encrypted in KV with a key only the
 * grant's tokens unwrap): the account the token acts for, the user who consented, and their role at the time.
 */
export interface OAuthGrantProps {
  accountId: string;
  userId: string;
  /** The role at consent; informative only, the live role is read per request ({@link oauthMcpHandler}). */
  role: UserRole;
}

/**
 * The grant id of one of the provider's access tokens (`<userId>:<grantId>:<secret>`, workers-oauth-provider's
 * token format since 0.x, pinned 1.2.3), or null for any other shape. The provider has validated the token.
 */
export function grantIdOfToken(token: string): string | null {
  const parts = token.split(":");
  return parts.length === 3 && parts[1] ? parts[1] : null;
}

/** A 401 for a token the provider accepted but whose user may no longer act (disabled, moved, deleted). */
function revokedUser(request: Request): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      error: { code: -32001, message: "Unauthorized: this token's user is disabled or no longer in the account." },
      id: null,
    }),
    {
      status: 401,
      headers: {
        "Content-Type": "application/json",
        "WWW-Authenticate": oauthChallenge(new URL(request.url).origin, "invalid_token"),
      },
    },
  );
}

/**
 * The provider's `apiHandler` for `/mcp`: called only with a valid, unexpired access token bound to this origin's
 * `/mcp` (`ctx.props`: {@link OAuthGrantProps}; `ctx.auth.token`). Reads the user live (one D1 query): a disabled
 * user, or one no longer in the grant's account, is refused (401) at once rather than when the token expires, and
 * the grant revoked (its refresh token with it); the
 * live role decides whether write tools run (admin and member: yes; viewer: read only). The MCP session is bound to
 * the grant (`keyFingerprint` `oauth:<grant id>`), so it survives a token refresh but not another grant.
 */
export const oauthMcpHandler: ProviderHandler = {
  async fetch(request, env, ctx) {
    const { props, auth } = ctx as unknown as OAuthResourceContext<OAuthGrantProps>;
    const grantId = grantIdOfToken(auth.token);
    if (!props?.accountId || !props.userId || !grantId) return revokedUser(request);
    const user = await env.DB.prepare("SELECT account_id, role, disabled_at FROM users WHERE id = ?1")
      .bind(props.userId)
      .first<{ account_id: string; role: UserRole; disabled_at: string | null }>();
    if (!user || user.disabled_at !== null || user.account_id !== props.accountId) {
      // Revoke the grant too, so the client's refresh fails (invalid_grant) instead of bringing back a token this
      // handler refuses again: MCP clients refresh on 401 and would loop.
      await oauthHelpersFor(request, env)?.revokeGrant(grantId, props.userId);
      return revokedUser(request);
    }
    return handleMcpRequest(request, env, ctx, {
      accountId: props.accountId,
      keyFingerprint: `oauth:${grantId}`,
      readOnly: !roleAllows(user.role, "member"),
    });
  },
};

/**
 * The Worker's HTTP routing with OAuth on: the provider's endpoints go to the provider; `/mcp` passes the DNS-rebinding
 * guard and CORS preflight as always, then `Authorization: Token <API key>` goes around the provider to the API-key
 * path (SPEC.md §5: `Token` keeps taking API keys) and everything else (a Bearer token, or nothing) to the provider,
 * which validates the access token and calls {@link oauthMcpHandler}, or answers 401 with the challenge naming the
 * protected resource metadata. Every other path (REST, the dashboard, `/oauth/authorize`) goes to `app`. Returns null
 * for a path this routing leaves to `app`.
 */
export async function routeWithOAuth(request: Request, env: Env, ctx: ExecutionContext): Promise<Response | null> {
  const { pathname } = new URL(request.url);
  if (pathname === MCP_PATH) {
    if (hostGuard(request, env) || request.method === "OPTIONS") return handleMcpRequest(request, env, ctx);
    if (/^\s*token\s/i.test(request.headers.get("authorization") ?? "")) return handleMcpRequest(request, env, ctx);
    const provider = oauthProviderFor(request, oauthMcpHandler);
    // An origin that cannot be an issuer (plain http off loopback): the API-key path, which refuses Bearer.
    return provider ? provider.fetch(request, env, ctx) : handleMcpRequest(request, env, ctx);
  }
  if (!isProviderPath(pathname)) return null;
  const provider = oauthProviderFor(request, oauthMcpHandler);
  return provider ? provider.fetch(request, env, ctx) : null;
}
