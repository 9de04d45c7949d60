import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { isProviderPath, oauthEnabled, oauthHelpersFor, oauthOptionsFor } from "../../src/oauth/provider";
import { ORIGIN, REDIRECT_URI, workerFetch } from "./helpers";

describe("authorization server metadata (RFC 8414)", () => {
  it("publishes the endpoints, PKCE S256 only, the code flow only and dynamic registration", async () => {
    const res = await workerFetch(`${ORIGIN}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
      scopes_supported: ["mcp"],
    });
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(meta.grant_types_supported).not.toContain("implicit");
    expect(meta.response_types_supported).not.toContain("token");
  });

  it("is served for the origin the Worker is reached at (https)", async () => {
    const res = await workerFetch("https://tracking.example.com/.well-known/oauth-authorization-server");
    expect(((await res.json()) as { issuer: string }).issuer).toBe("https://tracking.example.com");
  });
});

describe("protected resource metadata (RFC 9728)", () => {
  it("describes /mcp at the path the 401 names, pointing at this server as its authorization server", async () => {
    const res = await workerFetch(`${ORIGIN}/.well-known/oauth-protected-resource/mcp`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      resource: `${ORIGIN}/mcp`,
      authorization_servers: [ORIGIN],
      bearer_methods_supported: ["header"],
      scopes_supported: ["mcp"],
    });
  });

  it("answers 404 for any other resource's document (RFC 9728 §3.3: no aliases)", async () => {
    const res = await workerFetch(`${ORIGIN}/.well-known/oauth-protected-resource/v2`);
    expect(res.status).toBe(404);
    await res.text();
  });
});

describe("dynamic client registration (RFC 7591)", () => {
  it("registers a public client and returns its id and metadata", async () => {
    const res = await workerFetch(`${ORIGIN}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        client_name: "MCP Inspector",
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
      }),
    });
    expect(res.status).toBe(201);
    const client = (await res.json()) as Record<string, unknown>;
    expect(client.client_id).toEqual(expect.any(String));
    expect(client.client_secret).toBeUndefined();
    expect(client).toMatchObject({ client_name: "MCP Inspector", redirect_uris: [REDIRECT_URI] });
  });

  it("refuses a dangerous or non-TLS remote redirect URI, and a body that is not JSON (400)", async () => {
    for (const body of [
      JSON.stringify({ client_name: "x", redirect_uris: ["javascript:alert(1)"] }),
      JSON.stringify({ client_name: "x", redirect_uris: ["http://evil.example/cb"] }),
      "not json",
    ]) {
      const res = await workerFetch(`${ORIGIN}/oauth/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: expect.stringMatching(/^invalid_/) });
    }
  });
});

describe("the token endpoint", () => {
  it("refuses an unknown code or client (400/401 JSON, never 500)", async () => {
    const res = await workerFetch(`${ORIGIN}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: "a:b:c",
        client_id: "nobody",
        code_verifier: "x".repeat(43),
      }).toString(),
    });
    expect([400, 401]).toContain(res.status);
    expect(await res.json()).toMatchObject({ error: expect.stringMatching(/^invalid_/) });
  });
});

describe("the switch and the origin", () => {
  it("reads MCP_OAUTH: only on (any case) is on", () => {
    expect(oauthEnabled({ MCP_OAUTH: "on" })).toBe(true);
    expect(oauthEnabled({ MCP_OAUTH: " ON " })).toBe(true);
    expect(oauthEnabled({ MCP_OAUTH: "off" })).toBe(false);
    expect(oauthEnabled({ MCP_OAUTH: "" })).toBe(false);
  });

  it("names the provider's own paths, not the consent page nor the API", () => {
    expect(isProviderPath("/oauth/token")).toBe(true);
    expect(isProviderPath("/.well-known/oauth-protected-resource/mcp")).toBe(true);
    expect(isProviderPath("/oauth/authorize")).toBe(false);
    expect(isProviderPath("/v2/containers")).toBe(false);
  });

  it("cannot be an issuer on plain http off loopback: no helpers, and no metadata there", async () => {
    expect(oauthHelpersFor(new Request("http://tracking.example.com/oauth/authorize"), env)).toBeNull();
    expect(oauthHelpersFor(new Request("https://tracking.example.com/oauth/authorize"), env)).not.toBeNull();
    const res = await workerFetch("http://tracking.example.com/.well-known/oauth-authorization-server");
    expect(res.status).toBe(404);
    await res.text();
    expect(oauthOptionsFor(ORIGIN, { fetch: async () => new Response() }).resourceMetadata.resource).toBe(
      `${ORIGIN}/mcp`,
    );
  });
});
