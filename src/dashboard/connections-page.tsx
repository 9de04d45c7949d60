/**
 * /app/account/connections (issue 28 §OAuth 2.1 for MCP; docs/mcp.md §Signing in with OAuth): the MCP clients the
 * signed-in user allowed on the consent page, and a Revoke button for each. A user sees and revokes only their own
 * connections, whatever their role. Mounted in src/dashboard/routes.tsx (session, CSRF and headers come from there).
 */

import { type Context, Hono } from "hono";
import type { AppEnv, SignedInUser } from "../env";
import { listConnections, type OAuthConnection, revokeConnection } from "../oauth/connections";
import { oauthEnabled, oauthHelpersFor } from "../oauth/provider";
import { CsrfField, Layout } from "./layout";

/** Path of the page. */
export const CONNECTIONS_PATH = "/app/account/connections";

/** The page's routes, mounted at /app/account/connections. */
export const connectionsRoutes = new Hono<AppEnv>();

const TITLE = "Connected apps";

/** An HTML page with a doctype. */
function page(c: Context<AppEnv>, node: unknown, status: 200 | 404 = 200): Response {
  return c.html(`<!doctype html>${String(node)}`, status);
}

/** The table of connections (or a sentence when there are none). */
function ConnectionsTable({ user, connections }: { user: SignedInUser; connections: OAuthConnection[] }) {
  if (connections.length === 0) return <p>No app is connected to your account.</p>;
  return (
    <table>
      <caption>Apps that may use the MCP tools as you</caption>
      <thead>
        <tr>
          <th scope="col">App</th>
          <th scope="col">Connected (UTC)</th>
          <th scope="col">Expires (UTC)</th>
          <th scope="col">Action</th>
        </tr>
      </thead>
      <tbody>
        {connections.map((conn) => (
          <tr>
            <th scope="row">{conn.clientName}</th>
            <td>
              <time datetime={conn.createdAt}>{conn.createdAt.replace("T", " ").replace("Z", "")}</time>
            </td>
            <td>
              {conn.expiresAt ? (
                <time datetime={conn.expiresAt}>{conn.expiresAt.replace("T", " ").replace("Z", "")}</time>
              ) : (
                "never"
              )}
            </td>
            <td>
              <form method="post" action={`${CONNECTIONS_PATH}/${encodeURIComponent(conn.grantId)}/revoke`}>
                <CsrfField user={user} />
                <button type="submit" aria-label={`Revoke ${conn.clientName}`}>
                  Revoke
                </button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

connectionsRoutes.get("/", async (c) => {
  const user = c.get("user");
  const helpers = oauthEnabled(c.env) ? oauthHelpersFor(c.req.raw, c.env) : null;
  const connections = helpers ? await listConnections(helpers, user.userId) : [];
  return page(
    c,
    <Layout title={TITLE} user={user} current={CONNECTIONS_PATH}>
      {c.req.query("revoked") === "1" ? (
        <p role="status">Access revoked: that app can no longer use your account.</p>
      ) : null}
      {helpers ? (
        <ConnectionsTable user={user} connections={connections} />
      ) : (
        <p>OAuth sign-in for MCP clients is off on this server (MCP_OAUTH), so no app can be connected.</p>
      )}
    </Layout>,
  );
});

connectionsRoutes.post("/:grantId/revoke", async (c) => {
  const user = c.get("user");
  const helpers = oauthEnabled(c.env) ? oauthHelpersFor(c.req.raw, c.env) : null;
  const revoked = helpers ? await revokeConnection(helpers, user.userId, c.req.param("grantId")) : false;
  if (!revoked) {
    return page(
      c,
      <Layout title="Connection not found" user={user} current={CONNECTIONS_PATH}>
        <p role="alert">You have no such connected app; it may already be revoked.</p>
        <p>
          <a href={CONNECTIONS_PATH}>Back to your connected apps</a>
        </p>
      </Layout>,
      404,
    );
  }
  return c.redirect(`${CONNECTIONS_PATH}?revoked=1`, 303);
});
