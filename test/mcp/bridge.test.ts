import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { McpExchangeResult, TrackingMcpAgent } from "../../src/mcp/agent";
import { jsonRpcKindOf } from "../../src/mcp/http";
import { TOOL_NAMES } from "../../src/mcp/register";
import { keyFingerprint } from "../../src/mcp/session";
import { createAccount } from "../helpers/api";
import { connectMcp, MCP_URL, rawMcp, workerFetch } from "./helpers";

// The /mcp bridge (src/mcp/http.ts → TrackingMcpAgent.exchange): what the streamable-HTTP transport answers beyond
// the SDK client's happy path — batches, notifications, GET, a request id reused while in flight — and the
// structural JSON-RPC check it runs before the agent does.

/** The JSON-RPC messages of an SSE answer. */
async function sseMessages(res: Response): Promise<{ id?: unknown; result?: unknown; error?: unknown }[]> {
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  return (await res.text())
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

async function openSession() {
  const account = await createAccount();
  const { client, transport } = await connectMcp(account.key);
  const sessionId = transport.sessionId ?? "";
  const headers = {
    Authorization: `Token ${account.key}`,
    "mcp-session-id": sessionId,
    "mcp-protocol-version": "2025-06-18",
  };
  return { account, client, sessionId, headers };
}

describe("POST answers", () => {
  it("a batch of two requests is answered on one SSE stream with both responses, in order", async () => {
    const { client, headers } = await openSession();
    const res = await rawMcp(
      [
        { jsonrpc: "2.0", id: "a", method: "ping" },
        { jsonrpc: "2.0", id: "b", method: "tools/list", params: {} },
      ],
      headers,
    );
    expect(res.status).toBe(200);
    const messages = await sseMessages(res);
    expect(messages.map((m) => m.id)).toEqual(["a", "b"]);
    const listed = messages[1]?.result as { tools: unknown[] } | undefined;
    expect(listed?.tools).toHaveLength(TOOL_NAMES.length);
    await client.close();
  });

  it("a tool's log notification rides on the POST's SSE stream, before the tool's result", async () => {
    const { client, headers } = await openSession();
    const level = await rawMcp(
      { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "info" } },
      headers,
    );
    expect(level.status).toBe(200);
    await level.text();
    const res = await rawMcp(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "track_container", arguments: { number: "TEST-TR-SUCCEEDED", scac: "TEST" } },
      },
      headers,
    );
    expect(res.status).toBe(200);
    const messages = (await sseMessages(res)) as { id?: unknown; method?: string; params?: { data?: string } }[];
    expect(messages).toHaveLength(2);
    expect(messages[0]?.method).toBe("notifications/message");
    expect(messages[0]?.params?.data).toMatch(/^Created tracking request /);
    expect(messages[1]?.id).toBe(2);
    await client.close();
  });

  it("notifications alone are accepted with 202 and no body; the session stays usable", async () => {
    const { client, headers } = await openSession();
    const res = await rawMcp({ jsonrpc: "2.0", method: "notifications/initialized" }, headers);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
    await client.close();
  });

  it("GET (a standalone stream) is 405 with Allow, after the key check; DELETE without a session is 400", async () => {
    const { client, headers } = await openSession();
    const get = await workerFetch(MCP_URL, { method: "GET", headers: { ...headers, Accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("Allow")).toBe("POST, DELETE, OPTIONS");
    const noKey = await workerFetch(MCP_URL, { method: "GET", headers: { Accept: "text/event-stream" } });
    expect(noKey.status).toBe(401);
    const del = await workerFetch(MCP_URL, { method: "DELETE", headers: { Authorization: headers.Authorization } });
    expect(del.status).toBe(400);
    await client.close();
  });

  it("an unsupported mcp-protocol-version is a 400 naming the supported ones", async () => {
    const { client, headers } = await openSession();
    const res = await rawMcp(
      { jsonrpc: "2.0", id: 3, method: "ping" },
      { ...headers, "mcp-protocol-version": "1999-01-01" },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/2025-06-18/);
    await client.close();
  });

  it("an initialize with a session id, or with another message, is refused with 400", async () => {
    const { client, headers } = await openSession();
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    expect((await rawMcp(init, headers)).status).toBe(400);
    const { "mcp-session-id": _, ...noSession } = headers;
    expect((await rawMcp([init, { jsonrpc: "2.0", id: 2, method: "ping" }], noSession)).status).toBe(400);
    expect((await rawMcp({ ...init, params: { nonsense: true } }, noSession)).status).toBe(400);
    await client.close();
  });
});

describe("the session's agent", () => {
  it("a request id already in flight in the session is refused (409), never a 500", async () => {
    const { account, client, sessionId } = await openSession();
    const caller = { accountId: account.accountId, keyFingerprint: await keyFingerprint(account.key) };
    const call = {
      jsonrpc: "2.0" as const,
      id: 42,
      method: "tools/call",
      params: { name: "list_containers", arguments: {} },
    };
    const stub = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(`rpc:${sessionId}`));
    const results = await runInDurableObject(stub, (agent: TrackingMcpAgent) =>
      Promise.all([
        agent.exchange({ messages: [call], caller, opening: false }),
        agent.exchange({ messages: [call], caller, opening: false }),
      ]),
    );
    const kinds = results.map((r: McpExchangeResult) => r.session).sort();
    expect(kinds).toEqual(["found", "refused"]);
    const refused = results.find((r) => r.session === "refused");
    expect(refused).toMatchObject({ status: 409 });
    // The same id is free again once the first call answered.
    const again = await runInDurableObject(stub, (agent: TrackingMcpAgent) =>
      agent.exchange({ messages: [call], caller, opening: false }),
    );
    expect(again.session).toBe("found");
    await client.close();
  });

  it("an exchange from another key, or an opening exchange on a session that exists, is not_found", async () => {
    const { account, client, sessionId } = await openSession();
    const other = await createAccount();
    const stub = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(`rpc:${sessionId}`));
    const ping = { jsonrpc: "2.0" as const, id: 1, method: "ping" };
    const stranger = { accountId: other.accountId, keyFingerprint: await keyFingerprint(other.key) };
    const owner = { accountId: account.accountId, keyFingerprint: await keyFingerprint(account.key) };
    const init = {
      jsonrpc: "2.0" as const,
      id: 2,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const [fromStranger, reopened, fromOwner] = await runInDurableObject(stub, async (agent: TrackingMcpAgent) => [
      await agent.exchange({ messages: [ping], caller: stranger, opening: false }),
      await agent.exchange({ messages: [init], caller: stranger, opening: true }),
      await agent.exchange({ messages: [ping], caller: owner, opening: false }),
    ]);
    expect(fromStranger).toEqual({ session: "not_found" });
    expect(reopened).toEqual({ session: "not_found" });
    expect(fromOwner).toEqual({ session: "found", messages: [{ jsonrpc: "2.0", id: 1, result: {} }] });
    await client.close();
  });
});

describe("a session across its agent's restarts", () => {
  it("after the object is evicted, the session answers as before: owner, props and initialize restored from storage", async () => {
    const { client, sessionId, headers } = await openSession();
    const stub = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(`rpc:${sessionId}`));
    await evictDurableObject(stub);
    // The SDK client's own session keeps working, tool calls included (they need the props: the account).
    expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
    const listed = await client.callTool({ name: "list_containers", arguments: {} });
    expect(listed.isError).not.toBe(true);
    await evictDurableObject(stub);
    // Another key is still refused after a restart.
    const other = await createAccount();
    const stranger = await rawMcp(
      { jsonrpc: "2.0", id: 9, method: "ping" },
      { ...headers, Authorization: `Token ${other.key}` },
    );
    expect(stranger.status).toBe(404);
    const own = await rawMcp({ jsonrpc: "2.0", id: 10, method: "ping" }, headers);
    expect((await sseMessages(own)).map((m) => m.id)).toEqual([10]);
    await client.close();
  });
});

describe("jsonRpcKindOf", () => {
  it("classifies requests, notifications and responses", () => {
    expect(jsonRpcKindOf({ jsonrpc: "2.0", id: 1, method: "ping" })).toBe("request");
    expect(jsonRpcKindOf({ jsonrpc: "2.0", id: "x", method: "tools/call", params: { name: "a" } })).toBe("request");
    expect(jsonRpcKindOf({ jsonrpc: "2.0", method: "notifications/initialized" })).toBe("notification");
    expect(jsonRpcKindOf({ jsonrpc: "2.0", id: 1, result: {} })).toBe("response");
    expect(jsonRpcKindOf({ jsonrpc: "2.0", id: null, error: { code: -1, message: "x" } })).toBe("response");
  });

  it("rejects everything else", () => {
    for (const bad of [
      null,
      "ping",
      [],
      { id: 1, method: "ping" },
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 1.5, method: "ping" },
      { jsonrpc: "2.0", id: { a: 1 }, method: "ping" },
      { jsonrpc: "2.0", id: null, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: 7 },
      { jsonrpc: "2.0", id: 1, method: "ping", params: [1, 2] },
      { jsonrpc: "2.0", id: 1, method: "ping", params: "x" },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "2.0", id: null, result: {} },
    ]) {
      expect(jsonRpcKindOf(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
