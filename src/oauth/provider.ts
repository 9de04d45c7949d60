/**
 * OAuth 2.1 for MCP (issue 28 §OAuth 2.1 for MCP; SPEC.md §5; docs/mcp.md §Signing in with OAuth): with
 * `MCP_OAUTH = "on"` this Worker is its own authorization server, built on Cloudflare's
 * `@cloudflare/workers-oauth-provider` (pinned 1.2.3), and `/mcp` its one protected resource.
 *
 * - `/oauth/authorize` is ours: the consent page (src/oauth/consent-routes.tsx) over the dashboard's sessions.
 * - `/oauth/token` (authorization code with PKCE S256 only, refresh with rotation, RFC 7009 revocation),
 *   `/oauth/register` (RFC 7591 dynamic client registration), `/.well-known/oauth-authorization-server` (RFC 8414)
 *   and `/.well-known/oauth-protected-resource/mcp` (RFC 9728, the document the 401 of `/mcp` points at) are the
 *   provider's. No implicit flow (the provider has none), no plain PKCE.
 * - Grants, tokens (hashed; props encrypted with a key only the token unwraps) and consent transactions live in the
 *   `OAUTH_KV` namespace, never in D1.
 *
 * The issuer and the resource are this Worker's own origin (`https://<host>`; `http://` only on loopback, as the
 * provider requires, for `wrangler dev`): the provider needs its resource at construction, so one provider is built
 * per origin the Worker is reached at and kept (bounded). A token is bound to the origin it was issued at.
 */

import {
  getOAuthApi,
  type OAuthHelpers,
  OAuthProvider,
  type OAuthProviderOptions,
} from "@cloudflare/workers-oauth-provider";

/** The consent page (ours, src/oauth/consent-routes.tsx). */
export const OAUTH_AUTHORIZE_PATH = "/oauth/authorize";
/** Token, refresh and revocation endpoint (the provider's). */
export const OAUTH_TOKEN_PATH = "/oauth/token";
/** RFC 7591 dynamic client registration (the provider's). */
export const OAUTH_REGISTER_PATH = "/oauth/register";
/** RFC 8414 authorization server metadata. */
export const AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server";
/** RFC 9728 protected resource metadata: the prefix; the document of `/mcp` is at this path + `/mcp` (§3.1). */
export const PROTECTED_RESOURCE_METADATA_PREFIX = "/.well-known/oauth-protected-resource";
/** The protected resource: the MCP endpoint (src/mcp/http.ts MCP_PATH; not imported, to keep this module leaf). */
const RESOURCE_PATH = "/mcp";

/**
 * The one scope this server grants, `mcp`: access to the account's MCP tools, prompts and resources. What a token may
 * do beyond reading is its user's role (admin and member may call write tools, a viewer only reads; checked live on
 * every request, src/oauth/mcp-bridge.ts), not a scope: docs/decisions.md §OAuth for MCP.
 */
export const MCP_SCOPE = "mcp";

/** Access tokens live 1 hour (the provider's default); refresh tokens rotate on use and the grant lasts 30 days. */
const ACCESS_TOKEN_TTL_SECONDS = 3600;
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** A dynamically registered client unused for 90 days is dropped (renewed while it keeps refreshing tokens). */
const CLIENT_REGISTRATION_TTL_SECONDS = 90 * 24 * 3600;

/** Whether OAuth for MCP is on (`MCP_OAUTH = "on"`, case-insensitive; anything else is off). */
export function oauthEnabled(env: Pick<Env, "MCP_OAUTH">): boolean {
  return (env.MCP_OAUTH ?? "").trim().toLowerCase() === "on";
}

/** The RFC 9728 metadata URL of `/mcp` at `origin` (what `WWW-Authenticate: Bearer resource_metadata=…` names). */
export function protectedResourceMetadataUrl(origin: string): string {
  return `${origin}${PROTECTED_RESOURCE_METADATA_PREFIX}${RESOURCE_PATH}`;
}

/** Whether `pathname` is served by the provider itself (token, registration, metadata documents). */
export function isProviderPath(pathname: string): boolean {
  return (
    pathname === OAUTH_TOKEN_PATH ||
    pathname === OAUTH_REGISTER_PATH ||
    pathname === AUTHORIZATION_SERVER_METADATA_PATH ||
    pathname === PROTECTED_RESOURCE_METADATA_PREFIX ||
    pathname.startsWith(`${PROTECTED_RESOURCE_METADATA_PREFIX}/`)
  );
}

/** A handler the provider calls (`{fetch}`), typed loosely: the provider hands `ctx.props`/`ctx.auth` on `ctx`. */
export type ProviderHandler = { fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> };

/** Answers anything routed to the provider that is none of its endpoints (index.ts routes only those to it). */
const notFoundHandler: ExportedHandler<Env> = {
  fetch: () =>
    new Response(
      JSON.stringify({ errors: [{ status: "404", title: "Not Found", detail: "No route matches this path." }] }),
      {
        status: 404,
        headers: { "Content-Type": "application/vnd.api+json" },
      },
    ),
};

/**
 * The provider's options at `origin` (e.g. `https://tracking.example.com`), `/mcp` served by `apiHandler` for
 * requests with a valid access token.
 * @throws TypeError (from the provider, when used) if `origin` is not `https://…` or loopback `http://…`.
 */
export function oauthOptionsFor(origin: string, apiHandler: ProviderHandler): OAuthProviderOptions<Env> {
  return {
    apiRoute: RESOURCE_PATH,
    apiHandler: apiHandler as unknown as OAuthProviderOptions<Env>["apiHandler"],
    defaultHandler: notFoundHandler,
    authorizeEndpoint: OAUTH_AUTHORIZE_PATH,
    tokenEndpoint: OAUTH_TOKEN_PATH,
    clientRegistrationEndpoint: OAUTH_REGISTER_PATH,
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    clientRegistrationTTL: CLIENT_REGISTRATION_TTL_SECONDS,
    scopesSupported: [MCP_SCOPE],
    requiredScopes: [MCP_SCOPE],
    resourceMetadata: {
      resource: `${origin}${RESOURCE_PATH}`,
      authorization_servers: [origin],
      bearer_methods_supported: ["header"],
      resource_name: "Container tracking MCP server",
    },
    onError: ({ status, code, internal }) => {
      // The wire answer stays generic (RFC 6749 §5.2); the reason is for the operator's log, never a token.
      console.warn(JSON.stringify({ level: "warn", component: "oauth", status, code, reason: internal?.reason }));
    },
  };
}

/** Providers by origin; a Worker is reached at a handful of origins, so a small bound is plenty. */
const providers = new Map<string, OAuthProvider<Env> | null>();
const MAX_PROVIDERS = 16;

/**
 * The provider for the origin of `request` (built once per origin per isolate), or null when the origin cannot be an
 * OAuth issuer (plain `http://` on a non-loopback host: OAuth 2.1 needs TLS, and the provider refuses it).
 */
export function oauthProviderFor(request: Request, apiHandler: ProviderHandler): OAuthProvider<Env> | null {
  const origin = new URL(request.url).origin;
  if (providers.has(origin)) return providers.get(origin) ?? null;
  let provider: OAuthProvider<Env> | null;
  try {
    provider = new OAuthProvider<Env>(oauthOptionsFor(origin, apiHandler));
  } catch {
    provider = null;
  }
  if (providers.size >= MAX_PROVIDERS) providers.clear();
  providers.set(origin, provider);
  return provider;
}

/**
 * The provider's helpers (`parseAuthRequest`, `describeConsent`, `beginConsent`, `approveConsent`, `denyConsent`,
 * `completeAuthorization`, `listUserGrants`, `revokeGrant`, …) for the origin of `request`, or null when that origin
 * cannot be an issuer (see {@link oauthProviderFor}). Built per call: the provider's own `env.OAUTH_PROVIDER` is set
 * once on a shared `env` and would carry the first origin's resource to every other.
 */
export function oauthHelpersFor(request: Request, env: Env): OAuthHelpers | null {
  try {
    return getOAuthApi(oauthOptionsFor(new URL(request.url).origin, notFoundHandler as ProviderHandler), env);
  } catch {
    return null;
  }
}
