import { env } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, vi } from "vitest";
import { PROMPT_NAMES, SERVER_INFO, TOOL_NAMES } from "../../src/mcp/register";
import { DEFAULT_BASE_URL, mcpEndpointOf, readStdioConfig, startRelay } from "../../src/mcp/stdio";
import { createAccount, type TestAccount } from "../helpers/api";
import { trackSandboxShipment } from "../helpers/tracking";
import { seedTransshipmentJourney } from "./fixtures";
import { MCP_URL, workerFetch } from "./helpers";

// The stdio bin is a relay (src/mcp/stdio.ts): it serves nothing itself and forwards every MCP message to the
// service's /mcp over streamable HTTP. Here the SDK's real Client talks to the relay over an in-memory transport (in
// the bin: stdin/stdout), and the relay's HTTP requests are answered by the Worker under test. The same calls made to
// the Worker's own /mcp directly must give the same results. The process itself (bin, env, stdio streams) is exercised
// by `npm run mcp:conformance` through the Inspector.

/** The REST base URL the relay is configured with; its MCP endpoint is the loopback /mcp of the Worker under test. */
const BASE_URL = MCP_URL.replace(/\/mcp$/, "/v2");

/** Every HTTP request the relay sent, with the Worker's answer status. */
interface Sent {
  method: string;
  authorization: string | null;
  sessionId: string | null;
  status: number;
  responseSessionId: string | null;
}

/** An SDK client connected through a fresh relay for `key` (in memory, no process). */
async function stdioClient(key: string, log: string[] = [], sent: Sent[] = []): Promise<Client> {
  const [clientSide, relaySide] = InMemoryTransport.createLinkedPair();
  await startRelay(
    relaySide,
    { apiKey: key, baseUrl: BASE_URL },
    {
      fetch: async (url, init) => {
        const request = new Request(url, init);
        const response = await workerFetch(request);
        sent.push({
          method: request.method,
          authorization: request.headers.get("authorization"),
          sessionId: request.headers.get("mcp-session-id"),
          status: response.status,
          responseSessionId: response.headers.get("mcp-session-id"),
        });
        return response;
      },
      log: (l) => log.push(l),
    },
  );
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

/** An SDK client of the Worker's /mcp endpoint (streamable HTTP through the Worker's fetch handler). */
async function workerClient(account: TestAccount): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: workerFetch,
    requestInit: { headers: { Authorization: `Token ${account.key}` } },
  });
  const client = new Client({ name: "worker-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

describe("readStdioConfig (SVC_API_KEY, SVC_API_BASE_URL)", () => {
  it("fails fast without a key, with a message that names the variable", () => {
    for (const env of [{}, { SVC_API_KEY: "" }, { SVC_API_KEY: "   " }]) {
      const result = readStdioConfig(env);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message).toMatch(/^container-tracking-mcp: SVC_API_KEY is not set\./);
    }
  });

  it("refuses a key with spaces and an unusable base URL, never echoing the key", () => {
    const spaced = readStdioConfig({ SVC_API_KEY: "svc_test_a b" });
    expect(spaced).toEqual({
      ok: false,
      message: "container-tracking-mcp: SVC_API_KEY must be a single key without spaces.",
    });
    const bad = readStdioConfig({ SVC_API_KEY: "svc_test_secret", SVC_API_BASE_URL: "ftp://example.com/v2" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.message).toContain("SVC_API_BASE_URL is not usable");
      expect(bad.message).not.toContain("svc_test_secret");
    }
  });

  it("defaults the base URL to npm start's and normalises a bare origin", () => {
    expect(readStdioConfig({ SVC_API_KEY: "k" })).toEqual({
      ok: true,
      config: { apiKey: "k", baseUrl: DEFAULT_BASE_URL },
    });
    expect(readStdioConfig({ SVC_API_KEY: " k ", SVC_API_BASE_URL: "https://api.example.com/" })).toEqual({
      ok: true,
      config: { apiKey: "k", baseUrl: "https://api.example.com/v2" },
    });
  });
});

describe("mcpEndpointOf", () => {
  it("is the origin of the REST base URL + /mcp", () => {
    expect(mcpEndpointOf("https://api.example.com/v2").href).toBe("https://api.example.com/mcp");
    expect(mcpEndpointOf(DEFAULT_BASE_URL).href).toBe("http://127.0.0.1:8787/mcp");
  });
});

describe("the stdio relay to the Worker's /mcp", () => {
  it("announces the same server, tools and prompts as the Worker's /mcp", async () => {
    const account = await createAccount();
    const [local, remote] = await Promise.all([stdioClient(account.key), workerClient(account)]);
    expect(local.getServerVersion()).toEqual(SERVER_INFO);
    expect(local.getServerCapabilities()).toMatchObject({ logging: {}, tools: {}, prompts: {}, resources: {} });
    expect(local.getInstructions()).toBe(remote.getInstructions());
    const [localTools, remoteTools] = await Promise.all([local.listTools(), remote.listTools()]);
    expect(localTools.tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    expect(localTools.tools).toEqual(remoteTools.tools);
    expect((await local.listPrompts()).prompts.map((p) => p.name).sort()).toEqual([...PROMPT_NAMES].sort());
    await Promise.all([local.close(), remote.close()]);
  });

  it("answers every read tool with the structured content the Worker's /mcp gives", async () => {
    const account = await createAccount();
    const { shipment, containerIds, request } = await trackSandboxShipment(account);
    const containerId = containerIds[0] ?? "";
    const [local, remote] = await Promise.all([stdioClient(account.key), workerClient(account)]);
    // listTools first: the SDK client then validates every structuredContent against the tool's output schema.
    await Promise.all([local.listTools(), remote.listTools()]);
    const calls: [string, Record<string, unknown>][] = [
      ["get_container", { id: containerId }],
      ["get_shipment_details", { id: shipment.id }],
      ["get_container_transport_events", { id: containerId }],
      ["list_containers", {}],
      ["list_shipments", { page_size: 1 }],
      ["list_tracking_requests", {}],
      ["search_container", { query: "TEST-TR-SUCCEEDED" }],
      ["get_supported_shipping_lines", { search: "MAEU" }],
    ];
    for (const [name, args] of calls) {
      const [viaStdio, viaWorker] = await Promise.all([call(local, name, args), call(remote, name, args)]);
      expect(viaStdio.isError, `${name}: ${text(viaStdio)}`).toBeFalsy();
      expect(viaStdio.structuredContent, name).toBeDefined();
      expect(viaStdio.structuredContent, name).toEqual(viaWorker.structuredContent);
    }
    const found = await call(local, "search_container", { query: "TEST-TR-SUCCEEDED" });
    expect(JSON.stringify(found.structuredContent)).toContain(request.id);
    await Promise.all([local.close(), remote.close()]);
  });

  it("reads the container resource and the glossary through the relay", async () => {
    const account = await createAccount();
    const { containerIds } = await trackSandboxShipment(account);
    const client = await stdioClient(account.key);
    const uri = `svc://container/${containerIds[0]}`;
    const box = await client.readResource({ uri });
    expect(box.contents[0]?.uri).toBe(uri);
    expect(box.contents[0] && "text" in box.contents[0] ? box.contents[0].text : "").not.toBe("");
    const glossary = await client.readResource({ uri: "svc://docs/milestone-glossary" });
    expect(glossary.contents[0] && "text" in glossary.contents[0] ? glossary.contents[0].text : "").toContain(
      "vessel_departed",
    );
    await client.close();
  });

  it("serves get_container_route: the Worker's structured route, and its error without `routing`", async () => {
    const owner = await createAccount();
    const { shipment, containerIds } = await trackSandboxShipment(owner);
    const containerId = containerIds[0] ?? "";
    const tracked = { account: owner, shipmentId: shipment.id, billOfLading: "TEST-TR-SUCCEEDED", containers: [] };
    await seedTransshipmentJourney(tracked, containerId);

    // Without the entitlement: the same tool error, word for word, from both servers.
    const [local, remote] = await Promise.all([stdioClient(owner.key), workerClient(owner)]);
    await Promise.all([local.listTools(), remote.listTools()]);
    const [deniedLocal, deniedRemote] = await Promise.all([
      call(local, "get_container_route", { id: containerId }),
      call(remote, "get_container_route", { id: containerId }),
    ]);
    expect(deniedLocal.isError).toBe(true);
    expect(text(deniedLocal)).toMatch(/^Feature not enabled: Routing data feature is not enabled for this account\./);
    expect(deniedLocal.content).toEqual(deniedRemote.content);

    // With it: equal structured results (stops, legs, vessels, ETAs, delays).
    await env.DB.prepare("UPDATE accounts SET entitlements = '[\"routing\"]' WHERE id = ?1")
      .bind(owner.accountId)
      .run();
    for (const id of containerIds) {
      const [viaStdio, viaWorker] = await Promise.all([
        call(local, "get_container_route", { id }),
        call(remote, "get_container_route", { id }),
      ]);
      expect(viaStdio.isError, text(viaStdio)).toBeFalsy();
      expect(viaStdio.structuredContent).toEqual(viaWorker.structuredContent);
      expect(viaStdio.content).toEqual(viaWorker.content);
    }
    const route = await call(local, "get_container_route", { id: containerId });
    expect((route.structuredContent as { stops: { locode: string }[] }).stops.map((s) => s.locode)).toEqual([
      "CNYTN",
      "SGSIN",
      "USLAX",
    ]);
    await Promise.all([local.close(), remote.close()]);
  });

  it("reports errors as specific tool errors: not found, rejected key", async () => {
    const owner = await createAccount();
    const { containerIds } = await trackSandboxShipment(owner);
    const stranger = await stdioClient((await createAccount()).key);
    const missing = await call(stranger, "get_container", { id: containerIds[0] });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/not found/i);

    // A key revoked while the client is connected: the service answers 401, the relay a tool error.
    const log: string[] = [];
    const client = await stdioClient(owner.key, log);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = '2025-01-01T00:00:00Z' WHERE id = ?1")
      .bind(owner.apiKeyId)
      .run();
    const rejected = await call(client, "list_containers");
    expect(rejected.isError).toBe(true);
    expect(text(rejected)).toMatch(/rejected/i);
    expect(text(rejected)).not.toContain(owner.key);
    // The HTTP failure is logged for the user (stderr), without the key.
    expect(log.some((l) => JSON.parse(l).status === 401)).toBe(true);
    expect(log.join("\n")).not.toContain(owner.key);
  });

  it("a key rejected at start fails the connection with a message naming SVC_API_KEY, never the key", async () => {
    const owner = await createAccount();
    const log: string[] = [];
    const wrongKey = `${owner.key.slice(0, -4)}zzzz`;
    const refused = await stdioClient(wrongKey, log).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(refused?.message).toMatch(/SVC_API_KEY\) was rejected/);
    expect(refused?.message).not.toContain(wrongKey);
    expect(log.some((l) => JSON.parse(l).status === 401)).toBe(true);
    expect(log.join("\n")).not.toContain(wrongKey);
  });

  it("sends the key on every HTTP request, keeps one session, and ends it when the client closes", async () => {
    const account = await createAccount();
    const sent: Sent[] = [];
    const client = await stdioClient(account.key, [], sent);
    await client.listTools();
    await call(client, "get_supported_shipping_lines", { search: "MAEU" });
    await client.close();
    await vi.waitFor(() => expect(sent.at(-1)?.method).toBe("DELETE"));
    expect(sent.every((r) => r.authorization === `Token ${account.key}`)).toBe(true);
    const sessionId = sent[0]?.responseSessionId;
    expect(sessionId).toMatch(/^[0-9a-f]{64}$/);
    // Everything after initialize is on that session: notifications/initialized, the two calls, the standalone GET
    // the SDK's transport tries once initialized (405: this server has none; it goes out beside the calls), DELETE.
    expect(sent.slice(1).every((r) => r.sessionId === sessionId)).toBe(true);
    expect(
      sent
        .slice(1, -1)
        .map((r) => `${r.method} ${r.status}`)
        .sort(),
    ).toEqual(["GET 405", "POST 200", "POST 200", "POST 202"]);
    expect(sent.at(-1)?.status).toBe(200);
  });

  it("relays notifications both ways: the client's initialized, the server's progress and log messages", async () => {
    const account = await createAccount();
    const client = await stdioClient(account.key);
    await client.setLoggingLevel("info");
    const progress: string[] = [];
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
    });
    const result = await client.callTool(
      {
        name: "track_container",
        arguments: { number: "TEST-TR-SUCCEEDED", scac: "TEST", numberType: "bill_of_lading" },
      },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? "") },
    );
    expect((result as CallToolResult).isError).toBeFalsy();
    expect(progress).toContain("Creating the tracking request");
    expect(logs.some((l) => String(l).startsWith("Created tracking request"))).toBe(true);
    await client.close();
  });

  it("opens a new session when the service no longer knows its own (expired or ended), and carries on", async () => {
    const account = await createAccount();
    const log: string[] = [];
    const sent: Sent[] = [];
    const client = await stdioClient(account.key, log, sent);
    const sessionId = sent[0]?.responseSessionId ?? "";
    // The session ends behind the relay's back, as it does after 24 hours.
    const ended = await workerFetch(MCP_URL, {
      method: "DELETE",
      headers: { Authorization: `Token ${account.key}`, "mcp-session-id": sessionId },
    });
    expect(ended.status).toBe(200);
    const lines = await call(client, "get_supported_shipping_lines", { search: "MAEU" });
    expect(lines.isError, text(lines)).toBeFalsy();
    expect(text(lines)).toContain("MAEU");
    expect(log.some((l) => JSON.parse(l).message === "session reopened")).toBe(true);
    const reopened = sent.find((r) => r.responseSessionId && r.responseSessionId !== sessionId)?.responseSessionId;
    expect(reopened).toBeDefined();
    expect(sent.at(-1)?.sessionId).toBe(reopened);
    await client.close();
  });

  it("a service that cannot be reached fails the connection with a message that names neither key nor details", async () => {
    const [clientSide, relaySide] = InMemoryTransport.createLinkedPair();
    const log: string[] = [];
    await startRelay(
      relaySide,
      { apiKey: "svc_test_secret", baseUrl: "http://127.0.0.1:9/v2" },
      {
        fetch: async () => {
          throw new TypeError("connect ECONNREFUSED 127.0.0.1:9");
        },
        log: (l) => log.push(l),
      },
    );
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    const refused = await client.connect(clientSide).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(refused?.message).toMatch(/could not be reached/);
    expect(refused?.message).not.toContain("svc_test_secret");
    expect(log.join("\n")).toContain("ECONNREFUSED");
    expect(log.join("\n")).not.toContain("svc_test_secret");
  });
});
