import { createExecutionContext, env, runInDurableObject } from "cloudflare:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey, sha256Hex } from "../../src/lib/crypto";
import { newId } from "../../src/lib/ids";
import type { TrackingMcpAgent } from "../../src/mcp/agent";
import { handleMcpRequest, isAllowedHost } from "../../src/mcp/http";
import { TOOL_NAMES } from "../../src/mcp/register";
import { keyFingerprint } from "../../src/mcp/session";
import { api, createAccount, type TestAccount } from "../helpers/api";
import { type TrackedAccount, trackedAccounts } from "./fixtures";
import { connectMcp, initializeBody, MCP_URL, rawMcp, workerFetch } from "./helpers";

// /mcp security: the Authorization matrix, session binding (a session id replayed with another key), the
// DNS-rebinding guard, tenant isolation through every tool, and the rate bucket shared with REST.

/** A second API key for an existing account, inserted as `npm run keys -- create` would. */
async function addKey(accountId: string): Promise<string> {
  const key = generateApiKey("test");
  await env.DB.prepare(
    "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?1, ?2, 'second', ?3, ?4, '2025-01-01T00:00:00Z')",
  )
    .bind(newId(), accountId, await sha256Hex(key), key.slice(0, 13))
    .run();
  return key;
}

async function revoke(account: TestAccount): Promise<void> {
  await env.DB.prepare("UPDATE api_keys SET revoked_at = '2025-01-01T00:00:00Z' WHERE id = ?1")
    .bind(account.apiKeyId)
    .run();
}

/** A tools/list request on an existing session. */
function listToolsOn(sessionId: string, authorization: string): Promise<Response> {
  return rawMcp(
    { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} },
    { Authorization: authorization, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
  );
}

async function expectJsonRpcError(res: Response, status: number, code: number): Promise<string> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  expect(body.jsonrpc).toBe("2.0");
  expect(body.id).toBeNull();
  expect(body.error.code).toBe(code);
  return body.error.message;
}

describe("Authorization on every request", () => {
  it("no header → 401 with a Bearer challenge and a JSON-RPC error body, for POST, GET and DELETE", async () => {
    const res = await rawMcp(initializeBody());
    expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="mcp"');
    expect(await expectJsonRpcError(res, 401, -32001)).toMatch(/missing API key/);
    for (const method of ["GET", "DELETE"]) {
      const other = await workerFetch(MCP_URL, {
        method,
        headers: { Accept: "text/event-stream", "mcp-session-id": "abc" },
      });
      expect(other.status, method).toBe(401);
    }
  });

  it("a malformed header, an unknown key and a revoked key → 401 invalid_token, never echoing the key", async () => {
    const account = await createAccount();
    const unknown = generateApiKey("test");
    for (const header of ["Basic abc", "Token", "Token not-a-key", `Token ${unknown}`]) {
      const res = await rawMcp(initializeBody(), { Authorization: header });
      expect(res.headers.get("WWW-Authenticate"), header).toBe('Bearer realm="mcp", error="invalid_token"');
      const message = await expectJsonRpcError(res, 401, -32001);
      expect(message).not.toContain(unknown);
    }
    await revoke(account);
    const revoked = await rawMcp(initializeBody(), { Authorization: `Token ${account.key}` });
    expect(await expectJsonRpcError(revoked, 401, -32001)).toMatch(/invalid, unknown or revoked/);
  });

  it("accepts Token and Bearer, scheme words case-insensitive", async () => {
    const account = await createAccount();
    for (const scheme of ["Token", "Bearer", "token", "BEARER"]) {
      const { client } = await connectMcp(account.key, { scheme });
      const result = await client.callTool({ name: "list_tracking_requests", arguments: {} });
      expect(result.isError ?? false, scheme).toBe(false);
      await client.close();
    }
  });

  it("a key revoked mid-session is refused on its next request", async () => {
    const account = await createAccount();
    const { client } = await connectMcp(account.key);
    expect((await client.listTools()).tools.length).toBe(TOOL_NAMES.length);
    await revoke(account);
    await expect(client.listTools()).rejects.toThrow(/Unauthorized: invalid, unknown or revoked API key/);
  });
});

describe("sessions belong to the key that opened them", () => {
  let owner: TestAccount;
  let client: Client;
  let sessionId: string;

  beforeAll(async () => {
    owner = await createAccount("Owner");
    const connected = await connectMcp(owner.key);
    client = connected.client;
    sessionId = connected.transport.sessionId ?? "";
  });
  afterAll(async () => {
    await client?.close();
  });

  it("another account's key with this session id → 404 Session not found (as for an unknown session)", async () => {
    const intruder = await createAccount("Intruder");
    const replayed = await listToolsOn(sessionId, `Token ${intruder.key}`);
    expect(await expectJsonRpcError(replayed, 404, -32001)).toBe("Session not found");
    const unknown = await listToolsOn("f".repeat(64), `Token ${intruder.key}`);
    expect(await expectJsonRpcError(unknown, 404, -32001)).toBe("Session not found");
    // The owner's session is unharmed.
    expect((await client.listTools()).tools.length).toBe(TOOL_NAMES.length);
  });

  it("another key of the same account → 404 too: the session is bound to the key, not only the account", async () => {
    const second = await addKey(owner.accountId);
    const res = await listToolsOn(sessionId, `Bearer ${second}`);
    expect(await expectJsonRpcError(res, 404, -32001)).toBe("Session not found");
    // The same session with its own key, sent by hand, works.
    const own = await listToolsOn(sessionId, `Token ${owner.key}`);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain("get_container");
  });

  it("the session's props hold only the account id and a key fingerprint, never the key", async () => {
    const stub = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(`rpc:${sessionId}`));
    const stored = await runInDurableObject(stub, async (_instance, state) =>
      state.storage.get<Record<string, unknown>>("props"),
    );
    expect(stored).toEqual({ accountId: owner.accountId, keyFingerprint: await keyFingerprint(owner.key) });
    expect(JSON.stringify(stored)).not.toContain(owner.key.slice(9));
    const schedules = await runInDurableObject(stub, async (instance: TrackingMcpAgent) => instance.listSchedules());
    expect(schedules.map((x) => x.callback)).toEqual(["expireSession"]);
  });

  it("DELETE ends the session; later requests on it get 404", async () => {
    const account = await createAccount();
    const { transport } = await connectMcp(account.key);
    const id = transport.sessionId ?? "";
    const del = await workerFetch(MCP_URL, {
      method: "DELETE",
      headers: { Authorization: `Token ${account.key}`, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
    });
    expect([200, 204]).toContain(del.status);
    expect((await listToolsOn(id, `Token ${account.key}`)).status).toBe(404);
    // Ending it again, or ending it with another key, is a 404 too.
    const again = await workerFetch(MCP_URL, {
      method: "DELETE",
      headers: { Authorization: `Token ${account.key}`, "mcp-session-id": id },
    });
    expect(again.status).toBe(404);
  });

  it("a session that expired is refused: the agent answers 404 for every later request", async () => {
    const account = await createAccount();
    const { client, transport } = await connectMcp(account.key);
    const id = transport.sessionId ?? "";
    expect((await client.listTools()).tools.length).toBe(TOOL_NAMES.length);
    // Expiry tears the agent down the same way as DELETE (`_cf_terminateSession`).
    const stub = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(`rpc:${id}`));
    await runInDurableObject(stub, (instance: TrackingMcpAgent) => instance.expireSession());

    const headers = {
      Authorization: `Token ${account.key}`,
      "mcp-session-id": id,
      "mcp-protocol-version": "2025-06-18",
    };
    const listed = await listToolsOn(id, `Token ${account.key}`);
    expect(await expectJsonRpcError(listed, 404, -32001)).toBe("Session not found");
    const called = await rawMcp(
      { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "list_containers", arguments: {} } },
      headers,
    );
    expect(await expectJsonRpcError(called, 404, -32001)).toBe("Session not found");
    const ended = await workerFetch(MCP_URL, { method: "DELETE", headers });
    expect(ended.status).toBe(404);
    // The client's own next request fails too.
    await expect(client.listTools()).rejects.toThrow();
    await client.close().catch(() => undefined);
  });
});

describe("bad input never produces a 500", () => {
  it("wrong method, media type, Accept, JSON and session header answer 4xx", async () => {
    const account = await createAccount();
    const auth = { Authorization: `Token ${account.key}` };
    const put = await workerFetch(MCP_URL, { method: "PUT", headers: auth, body: "{}" });
    const badJson = await workerFetch(MCP_URL, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: "{not json",
    });
    const noAccept = await rawMcp(initializeBody(), { ...auth, Accept: "text/html" });
    const text = await workerFetch(MCP_URL, {
      method: "POST",
      headers: { ...auth, "Content-Type": "text/plain", Accept: "application/json, text/event-stream" },
      body: "hello",
    });
    const noSession = await rawMcp({ jsonrpc: "2.0", id: 2, method: "tools/list" }, auth);
    const hugeSession = await listToolsOn("x".repeat(500), `Token ${account.key}`);
    const badSession = await listToolsOn("../../etc", `Token ${account.key}`);
    const statuses = [put, badJson, noAccept, text, noSession, hugeSession, badSession].map((r) => r.status);
    for (const status of statuses) {
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(500);
    }
    expect(badJson.status).toBe(400);
    expect(noAccept.status).toBe(406);
    expect(text.status).toBe(415);
    expect(noSession.status).toBe(400);
    expect(hugeSession.status).toBe(404);
  });
});

describe("DNS-rebinding guard (Host and Origin)", () => {
  it("a foreign Host is refused with 403 before anything else", async () => {
    const res = await rawMcp(initializeBody(), { Host: "evil.example.com" }, "http://evil.example.com/mcp");
    expect(await expectJsonRpcError(res, 403, -32000)).toMatch(/host not allowed/);
  });

  it("a foreign Origin is refused; a loopback Origin passes on to authentication", async () => {
    const evil = await rawMcp(initializeBody(), { Origin: "https://evil.example" });
    expect(await expectJsonRpcError(evil, 403, -32000)).toMatch(/origin not allowed/);
    const nullOrigin = await rawMcp(initializeBody(), { Origin: "null" });
    expect(nullOrigin.status).toBe(403);
    const local = await rawMcp(initializeBody(), { Origin: "http://localhost:6274" });
    expect(local.status).toBe(401);
  });

  it("hosts of MCP_ALLOWED_HOSTS are served (exact and *.wildcard); others are not", async () => {
    const configured = { ...env, MCP_ALLOWED_HOSTS: "mcp.example.com, *.workers.example" };
    const call = (host: string) =>
      handleMcpRequest(
        new Request(`https://${host}/mcp`, { method: "POST", body: JSON.stringify(initializeBody()) }),
        configured,
        createExecutionContext(),
      );
    expect((await call("mcp.example.com")).status).toBe(401);
    expect((await call("tracking.workers.example")).status).toBe(401);
    expect((await call("example.com")).status).toBe(403);
    expect((await call("mcp.example.com.evil.net")).status).toBe(403);
  });

  it("isAllowedHost: loopback names and addresses only, not look-alikes", () => {
    for (const host of [
      "localhost",
      "localhost:8787",
      "app.localhost",
      "127.0.0.1",
      "127.0.0.5:9000",
      "[::1]:8787",
      "::1",
    ]) {
      expect(isAllowedHost(host, []), host).toBe(true);
    }
    for (const host of ["", "0.0.0.0", "10.0.0.1", "127.0.0.1.nip.io", "localhost.evil.com", "[::2]", "evil.com"]) {
      expect(isAllowedHost(host, []), host).toBe(false);
    }
  });

  it("CORS preflight (OPTIONS) is answered without a key", async () => {
    const res = await workerFetch(MCP_URL, { method: "OPTIONS", headers: { Origin: "http://localhost:6274" } });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get("Access-Control-Allow-Headers")).toMatch(/Authorization/);
  });
});

describe("tenant isolation", () => {
  let a: TrackedAccount;
  let b: TrackedAccount;
  let clientB: Client;

  beforeAll(async () => {
    // Both track the same sandbox boxes (one Tracker per box), each with its own container and shipment rows.
    [a, b] = (await trackedAccounts([[], ["routing"]])) as [TrackedAccount, TrackedAccount];
    ({ client: clientB } = await connectMcp(b.account.key));
  });
  afterAll(async () => {
    await clientB?.close();
  });

  it("another account's container or shipment id is not found through every tool", async () => {
    const foreignBox = a.containers[0]?.id ?? "";
    for (const name of ["get_container", "get_container_transport_events", "get_container_route"]) {
      const result = await clientB.callTool({ name, arguments: { id: foreignBox } });
      expect(result.isError, name).toBe(true);
      expect(JSON.stringify(result.content), name).toContain(`No container with id ${foreignBox} in this account`);
      expect(result.structuredContent, name).toBeUndefined();
    }
    const shipment = await clientB.callTool({ name: "get_shipment_details", arguments: { id: a.shipmentId } });
    expect(shipment.isError).toBe(true);
    expect(JSON.stringify(shipment.content)).toContain(`No shipment with id ${a.shipmentId} in this account`);
  });

  it("lists and searches see only the account's own rows", async () => {
    const list = await clientB.callTool({ name: "list_containers", arguments: {} });
    const ids = (list.structuredContent as { items: { id: string }[] }).items.map((c) => c.id).sort();
    expect(ids).toEqual(b.containers.map((c) => c.id).sort());
    const stranger = await createAccount();
    const { client } = await connectMcp(stranger.key);
    try {
      const search = await client.callTool({
        name: "search_container",
        arguments: { query: a.containers[0]?.number ?? "" },
      });
      expect((search.structuredContent as { total_results: number }).total_results).toBe(0);
      const byNumber = await client.callTool({
        name: "get_container",
        arguments: { id: a.containers[0]?.number ?? "" },
      });
      expect(byNumber.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("another account's container resource is not found (-32002)", async () => {
    const uri = `svc://container/${a.containers[0]?.id}`;
    const error = await clientB.readResource({ uri }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32002);
    expect((error as McpError).message).not.toContain(a.containers[0]?.number ?? "-");
  });
});

describe("rate limit shared with REST (default bucket, 100 per minute)", () => {
  /** `count` authenticated REST reads for `key`, ten at a time; returns their statuses. */
  async function restReads(key: string, count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i += 10) {
      const batch = Array.from({ length: Math.min(10, count - i) }, () => api("/shipping_lines?page[size]=1", { key }));
      statuses.push(...(await Promise.all(batch)).map((r) => r.status));
    }
    return statuses;
  }

  it("exhausted over REST: an MCP tool call is a tool error that says when to retry", async () => {
    const account = await createAccount();
    const { client } = await connectMcp(account.key); // initialize draws 1
    try {
      expect(new Set(await restReads(account.key, 99))).toEqual(new Set([200]));
      expect((await api("/shipping_lines", { key: account.key })).status).toBe(429);
      const result = await client.callTool({ name: "list_containers", arguments: {} });
      expect(result.isError).toBe(true);
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
      const seconds = Number(/Retry after (\d+) seconds?\./.exec(text)?.[1]);
      expect(text).toMatch(/^Rate limited: /);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
      // A new session cannot be opened either: HTTP 429 with Retry-After.
      const init = await rawMcp(initializeBody(), { Authorization: `Token ${account.key}` });
      expect(init.status).toBe(429);
      expect(Number(init.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
  });

  it("concurrent tool calls of several sessions (one account) are each counted exactly once, and all answer", async () => {
    const account = await createAccount();
    const sessions = await Promise.all([1, 2, 3].map(() => connectMcp(account.key))); // 3
    try {
      // 30 concurrent calls: their checks share RateLimiter calls (src/ratelimit/client.ts), each decided alone.
      const results = await Promise.all(
        sessions.flatMap(({ client }) =>
          Array.from({ length: 10 }, () =>
            client.callTool({ name: "get_supported_shipping_lines", arguments: { search: "maersk" } }),
          ),
        ),
      ); // 33
      expect(results.map((r) => r.isError ?? false)).toEqual(results.map(() => false));
      // Exactly 67 left: 67 REST reads pass, the 68th is refused.
      expect(new Set(await restReads(account.key, 67))).toEqual(new Set([200]));
      expect((await api("/shipping_lines", { key: account.key })).status).toBe(429);
    } finally {
      await Promise.all(sessions.map(({ client }) => client.close()));
    }
  });

  /**
   * Asserts that `request` was refused for the spent bucket as the protocol refuses a request: a JSON-RPC error
   * -32000 whose message is a tool's rate-limit text (`Rate limited: … Retry after N seconds.`) and whose data gives
   * the same seconds.
   */
  async function expectRateLimited(request: Promise<unknown>, what: string): Promise<void> {
    const error = await request.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, what).toBeInstanceOf(McpError);
    const { code, message, data } = error as McpError;
    expect(code, what).toBe(-32000);
    const seconds = Number(/Rate limited: .* Retry after (\d+) seconds?\.$/.exec(message)?.[1]);
    expect(seconds, what).toBeGreaterThanOrEqual(1);
    expect(seconds, what).toBeLessThanOrEqual(60);
    expect(data, what).toMatchObject({ retry_after_seconds: seconds });
  }

  it("exhausted: completions, resource lists and reads and prompts are refused like a tool call (issue 23 §4)", async () => {
    const account = await createAccount();
    const { client } = await connectMcp(account.key); // 1
    try {
      expect(new Set(await restReads(account.key, 99))).toEqual(new Set([200])); // 100
      expect((await api("/shipping_lines", { key: account.key })).status).toBe(429);
      const box = crypto.randomUUID();
      await expectRateLimited(
        client.complete({
          ref: { type: "ref/prompt", name: "check-demurrage" },
          argument: { name: "container_id", value: "" },
        }),
        "completion/complete of a prompt argument",
      );
      await expectRateLimited(
        client.complete({
          ref: { type: "ref/resource", uri: "svc://container/{id}" },
          argument: { name: "id", value: "" },
        }),
        "completion/complete of a template variable",
      );
      await expectRateLimited(client.listResources(), "resources/list");
      await expectRateLimited(
        client.getPrompt({ name: "check-demurrage", arguments: { container_id: box } }),
        "prompts/get with an id",
      );
      await expectRateLimited(
        client.getPrompt({ name: "track-shipment", arguments: { container_number: "MSCU1234566" } }),
        "prompts/get that reads nothing",
      );
      await expectRateLimited(client.readResource({ uri: "svc://docs/milestone-glossary" }), "static resources/read");
      await expectRateLimited(client.readResource({ uri: `svc://container/${box}` }), "container resources/read");
      // What reads no account data stays available.
      await expect(client.ping()).resolves.toEqual({});
      expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
      expect((await client.listPrompts()).prompts).toHaveLength(3);
      expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("under the limit, each completion, resource list or read and prompt is answered and draws exactly one", async () => {
    const account = await createAccount();
    const { client } = await connectMcp(account.key); // 1
    try {
      const carriers = await client.complete({
        ref: { type: "ref/prompt", name: "track-shipment" },
        argument: { name: "carrier", value: "ma" },
      }); // 2
      expect(carriers.completion.values).toContain("MAEU");
      const { resources } = await client.listResources(); // 3
      expect(resources.map((r) => r.uri)).toContain("svc://docs/milestone-glossary");
      // The prompt looks the number up in the account: still one.
      const prompt = await client.getPrompt({ name: "check-demurrage", arguments: { container_id: "MSCU1234566" } }); // 4
      expect(prompt.messages).toHaveLength(1);
      const glossary = await client.readResource({ uri: "svc://docs/milestone-glossary" }); // 5
      expect((glossary.contents[0] as { text: string }).text).toContain("## Typical sequences");
      const missing = await client
        .readResource({ uri: `svc://container/${crypto.randomUUID()}` })
        .catch((e: unknown) => e); // 6
      expect((missing as McpError).code).toBe(-32002);
      // Free: ping and the listings of tools, prompts and templates.
      await client.ping();
      await client.listTools();
      await client.listPrompts();
      await client.listResourceTemplates();
      expect(new Set(await restReads(account.key, 94))).toEqual(new Set([200])); // 100
      expect((await api("/shipping_lines", { key: account.key })).status).toBe(429);
    } finally {
      await client.close();
    }
  });

  it("MCP tool calls count against the REST limit", async () => {
    const account = await createAccount();
    const { client } = await connectMcp(account.key); // 1
    try {
      expect(new Set(await restReads(account.key, 97))).toEqual(new Set([200])); // 98
      for (let i = 0; i < 2; i++) {
        const result = await client.callTool({ name: "get_supported_shipping_lines", arguments: { search: "maersk" } });
        expect(result.isError ?? false).toBe(false); // 99, 100
      }
      expect((await api("/shipping_lines", { key: account.key })).status).toBe(429);
      // Listing tools reads no account data and stays available.
      expect((await client.listTools()).tools.length).toBe(TOOL_NAMES.length);
    } finally {
      await client.close();
    }
  });
});
