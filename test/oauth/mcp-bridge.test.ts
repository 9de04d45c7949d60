import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { grantIdOfToken } from "../../src/oauth/mcp-bridge";
import { createAccount } from "../helpers/api";
import { trackSandboxShipment } from "../helpers/tracking";
import { createWebUser } from "../helpers/web-session";
import { initializeBody } from "../mcp/helpers";
import { connectWithOAuth, MCP_ENDPOINT, ORIGIN, workerFetch } from "./helpers";

/** A raw JSON-RPC POST to /mcp with OAuth on. */
function mcpPost(body: unknown, headers: Record<string, string> = {}, bindings?: Env) {
  return workerFetch(
    MCP_ENDPOINT,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    },
    bindings,
  );
}

/** The JSON-RPC messages of an SSE answer. */
async function sseMessages(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  return text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));
}

const RESOURCE_METADATA = `resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`;

describe("/mcp with MCP_OAUTH on", () => {
  it("signs a user in with the MCP SDK's OAuth client (discovery, registration, PKCE, consent) and serves the tools", async () => {
    const account = await createAccount("Harbour Imports");
    const user = await createWebUser(account.accountId, "member");
    const { client, oauth } = await connectWithOAuth(user);

    expect(oauth.consentPage).toContain("Harbour Imports");
    expect(oauth.consentPage).toContain(user.email);
    expect(oauth.callback?.get("iss")).toBe(ORIGIN);
    expect(oauth.savedTokens?.token_type.toLowerCase()).toBe("bearer");
    expect(oauth.savedTokens?.scope).toBe("mcp");
    expect(oauth.savedTokens?.refresh_token).toBeTruthy();

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("track_container");
    const lines = await client.callTool({ name: "get_supported_shipping_lines", arguments: { search: "MAEU" } });
    expect(lines.isError).toBeFalsy();
    await client.close();
  });

  it("answers an unauthenticated request 401 with the challenge MCP clients discover the server from", async () => {
    const res = await mcpPost(initializeBody());
    expect(res.status).toBe(401);
    await res.text();
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(RESOURCE_METADATA);
    expect(challenge).toContain('scope="mcp"');
  });

  it("keeps the DNS-rebinding guard in front of OAuth: a foreign Origin is 403 before any token check", async () => {
    const res = await mcpPost(initializeBody(), { Origin: "https://evil.example", Authorization: "Bearer a:b:c" });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("origin not allowed");
    const preflight = await workerFetch(MCP_ENDPOINT, {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:6274" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization");
  });

  it("refuses an API key sent as Bearer (401 with the resource metadata), and keeps taking it as Token", async () => {
    const account = await createAccount();
    const bearer = await mcpPost(initializeBody(), { Authorization: `Bearer ${account.key}` });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toMatchObject({ error: "invalid_token" });
    expect(bearer.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(bearer.headers.get("www-authenticate")).toContain(RESOURCE_METADATA);

    const unknown = await mcpPost(initializeBody(), {
      Authorization: "Token svc_test_0000000000000000000000000000000000000000000",
    });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("www-authenticate")).toContain(RESOURCE_METADATA);
    expect(await unknown.text()).toContain("revoked API key");

    const token = await mcpPost(initializeBody(), { Authorization: `Token ${account.key}` });
    expect(token.status).toBe(200);
    expect(token.headers.get("mcp-session-id")).toBeTruthy();
    const [init] = await sseMessages(token);
    expect(init?.result).toBeTruthy();
  });

  it("keeps taking a Bearer API key with OAuth off (SPEC.md §5), and serves no OAuth endpoint", async () => {
    const account = await createAccount();
    const off: Env = { ...env, MCP_OAUTH: "off" };
    const bearer = await mcpPost(initializeBody(), { Authorization: `Bearer ${account.key}` }, off);
    expect(bearer.status).toBe(200);
    await bearer.text();
    for (const path of ["/.well-known/oauth-authorization-server", "/oauth/register", "/oauth/authorize"]) {
      const res = await workerFetch(`${ORIGIN}${path}`, {}, off);
      expect(res.status).toBe(404);
      await res.text();
    }
  });

  it("runs a token's tools for its own account only: another account's container is not found", async () => {
    const other = await createAccount("Other");
    const { containers } = await trackSandboxShipment(other).then(async () => ({
      containers: (
        await env.DB.prepare("SELECT id FROM containers WHERE account_id = ?1")
          .bind(other.accountId)
          .all<{ id: string }>()
      ).results,
    }));
    expect(containers.length).toBeGreaterThan(0);
    const mine = await createAccount("Mine");
    const { client } = await connectWithOAuth(await createWebUser(mine.accountId, "admin"));
    const res = await client.callTool({ name: "get_container", arguments: { id: containers[0]?.id } });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toMatch(/Not found/);
    await client.close();
  });

  it("lets a viewer's token read but not create (track_container → forbidden, nothing created)", async () => {
    const account = await createAccount();
    const { client } = await connectWithOAuth(await createWebUser(account.accountId, "viewer"));
    const res = await client.callTool({ name: "track_container", arguments: { number: "MSCU1234566", scac: "MSCU" } });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toContain("Forbidden: your role (viewer) may only read");
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_requests WHERE account_id = ?1")
      .bind(account.accountId)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
    const read = await client.callTool({ name: "list_tracking_requests", arguments: {} });
    expect(read.isError).toBeFalsy();
    await client.close();
  });

  it("refuses a token at once when its user is disabled (401) and revokes its grant, so a refresh fails too", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "member");
    const { client, oauth } = await connectWithOAuth(user);
    await client.close();
    const token = oauth.savedTokens?.access_token ?? "";
    const refreshToken = oauth.savedTokens?.refresh_token ?? "";
    await env.DB.prepare("UPDATE users SET disabled_at = ?1 WHERE id = ?2")
      .bind("2026-01-01T00:00:00Z", user.userId)
      .run();
    const res = await mcpPost(initializeBody(), { Authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await res.text()).toContain("disabled");
    const refresh = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: String(oauth.clientInfo?.client_id),
      }).toString(),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("keeps an MCP session across a token refresh: the new access token is of the same grant", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "member");
    const { client, oauth } = await connectWithOAuth(user);
    await client.close();
    const first = oauth.savedTokens?.access_token ?? "";
    const opened = await mcpPost(initializeBody(), { Authorization: `Bearer ${first}` });
    const sessionId = opened.headers.get("mcp-session-id") ?? "";
    await opened.text();
    const refresh = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: oauth.savedTokens?.refresh_token ?? "",
        client_id: String(oauth.clientInfo?.client_id),
      }).toString(),
    });
    expect(refresh.status).toBe(200);
    const renewed = (await refresh.json()) as { access_token: string; refresh_token: string };
    expect(renewed.access_token).not.toBe(first);
    expect(grantIdOfToken(renewed.access_token)).toBe(grantIdOfToken(first));
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const res = await mcpPost(list, { Authorization: `Bearer ${renewed.access_token}`, "mcp-session-id": sessionId });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await sseMessages(res))).toContain("get_container");
  });

  it("binds an MCP session to its grant: the same user's other grant cannot use it (404)", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "member");
    const a = await connectWithOAuth(user, "Client A");
    const b = await connectWithOAuth(user, "Client B");
    const tokenA = a.oauth.savedTokens?.access_token ?? "";
    const tokenB = b.oauth.savedTokens?.access_token ?? "";
    expect(grantIdOfToken(tokenA)).not.toBe(grantIdOfToken(tokenB));
    const opened = await mcpPost(initializeBody(), { Authorization: `Bearer ${tokenA}` });
    const sessionId = opened.headers.get("mcp-session-id") ?? "";
    expect(sessionId).not.toBe("");
    await opened.text();
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const own = await mcpPost(list, { Authorization: `Bearer ${tokenA}`, "mcp-session-id": sessionId });
    expect(own.status).toBe(200);
    expect(JSON.stringify(await sseMessages(own))).toContain("track_container");
    const foreign = await mcpPost(list, { Authorization: `Bearer ${tokenB}`, "mcp-session-id": sessionId });
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toContain("Session not found");
    await a.client.close();
    await b.client.close();
  });
});
