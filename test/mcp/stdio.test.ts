import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { PROMPT_NAMES, SERVER_INFO, TOOL_NAMES } from "../../src/mcp/register";
import { createStdioServer, DEFAULT_BASE_URL, readStdioConfig } from "../../src/mcp/stdio";
import { BASE, createAccount, type TestAccount } from "../helpers/api";
import { trackSandboxShipment } from "../helpers/tracking";
import { seedTransshipmentJourney } from "./fixtures";

// The stdio variant's server (src/mcp/stdio.ts: registerAll over HttpTrackingApi over the REST client), driven by
// the SDK's real Client over an in-memory transport, its REST calls answered by the Worker under test. The same
// calls made to the Worker's own /mcp endpoint (streamable HTTP, McpAgent) must give the same structured results.
// The process itself (bin, env, stdio streams) is exercised by `npm run mcp:conformance` through the Inspector.

const workerFetch = (request: Request) => exports.default.fetch(request);

/** An SDK client connected to a fresh stdio-variant server for `key` (in memory, no process). */
async function stdioClient(key: string, log: string[] = []): Promise<Client> {
  const server = createStdioServer({ apiKey: key, baseUrl: BASE }, { fetch: workerFetch, log: (l) => log.push(l) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

/** An SDK client of the Worker's /mcp endpoint (streamable HTTP through the Worker's fetch handler). */
async function workerClient(account: TestAccount): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    fetch: (url, init) => workerFetch(new Request(url, init)),
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

describe("the stdio server over the REST client", () => {
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

  it("reads the container resource and the glossary over REST", async () => {
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

  it("serves get_container_route over REST: the Worker's structured route, and its error without `routing`", async () => {
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

    const log: string[] = [];
    const wrongKey = `${owner.key.slice(0, -4)}zzzz`;
    const rejected = await call(await stdioClient(wrongKey, log), "list_containers");
    expect(rejected.isError).toBe(true);
    expect(text(rejected)).toMatch(/rejected/i);
    expect(text(rejected)).not.toContain(wrongKey);
    // The REST failure is logged for the user (stderr), without the key.
    expect(log.some((l) => JSON.parse(l).status === 401)).toBe(true);
    expect(log.join("\n")).not.toContain(wrongKey);
  });
});
