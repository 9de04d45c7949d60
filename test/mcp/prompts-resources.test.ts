import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROMPT_NAMES, SERVER_INFO } from "../../src/mcp/register";
import { JOURNEY_PHASES, PHASE_LABELS } from "../../src/transport-events/milestone-catalog";
import { createAccount } from "../helpers/api";
import { type TrackedAccount, trackedAccounts } from "./fixtures";
import { connectMcp } from "./helpers";

// Prompts, completions, resources, server instructions and capabilities through a real MCP client.

let t: TrackedAccount;
let client: Client;

beforeAll(async () => {
  [t] = (await trackedAccounts([[]])) as [TrackedAccount];
  ({ client } = await connectMcp(t.account.key));
});
afterAll(async () => {
  await client?.close();
});

const box = () => t.containers[0] ?? { id: "", number: "" };

/** The text of the single user message of a prompt. */
async function promptText(name: string, args: Record<string, string>): Promise<string> {
  const result = await client.getPrompt({ name, arguments: args });
  expect(result.messages).toHaveLength(1);
  const message = result.messages[0];
  expect(message?.role).toBe("user");
  return message?.content.type === "text" ? message.content.text : "";
}

describe("initialize", () => {
  it("announces the server, its instructions and the tools, prompts, resources, completions and logging capabilities", () => {
    expect(client.getServerVersion()).toMatchObject(SERVER_INFO);
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toContain("Only track_container writes");
    expect(instructions).toContain("search_container");
    expect(instructions).toContain("Rate limited");
    const caps = client.getServerCapabilities();
    for (const cap of ["tools", "prompts", "resources", "completions", "logging"] as const) {
      expect(caps?.[cap], cap).toBeDefined();
    }
  });

  it("accepts logging/setLevel and ping", async () => {
    await expect(client.setLoggingLevel("debug")).resolves.toEqual({});
    await expect(client.ping()).resolves.toEqual({});
  });
});

describe("prompts", () => {
  it("lists the three prompts with their arguments", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual([...PROMPT_NAMES].sort());
    const args = Object.fromEntries(
      prompts.map((p) => [p.name, p.arguments?.map((a) => [a.name, a.required ?? false])]),
    );
    expect(args).toEqual({
      "track-shipment": [
        ["container_number", true],
        ["carrier", false],
      ],
      "check-demurrage": [["container_id", true]],
      "analyze-delays": [["container_id", true]],
    });
  });

  it("track-shipment names the number and, when given, the carrier", async () => {
    const withCarrier = await promptText("track-shipment", { container_number: "MSCU1234566", carrier: "mscu" });
    expect(withCarrier).toContain("Track container MSCU1234566 with carrier MSCU.");
    expect(withCarrier).toContain('call track_container with number "MSCU1234566" and scac "MSCU"');
    const without = await promptText("track-shipment", { container_number: "MSCU1234566" });
    expect(without).not.toContain("with carrier");
  });

  it("check-demurrage resolves a container number to its id in the account", async () => {
    const text = await promptText("check-demurrage", { container_id: box().number.toLowerCase() });
    expect(text).toContain(`(id ${box().id})`);
    expect(text).toContain(`Call get_container with id "${box().id}".`);
    expect(text).toContain("excluding the terminal's `total` line");
  });

  it("check-demurrage with an id uses it; with an unknown number it tells the model to search first", async () => {
    expect(await promptText("check-demurrage", { container_id: box().id })).toContain(
      `Call get_container with id "${box().id}".`,
    );
    const unknown = await promptText("check-demurrage", { container_id: "ABCU0000000" });
    expect(unknown).toContain('call search_container with query "ABCU0000000"');
  });

  it("analyze-delays resolves the container and lists the tools to compare estimates with actuals", async () => {
    const text = await promptText("analyze-delays", { container_id: box().number });
    expect(text).toContain(box().id);
    for (const tool of ["get_shipment_details", "get_container_transport_events", "get_container_route"]) {
      expect(text).toContain(tool);
    }
  });

  it("a missing required argument is an invalid-params error", async () => {
    const error = await client.getPrompt({ name: "check-demurrage", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
  });
});

describe("completions", () => {
  const complete = async (
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
    name: string,
    value: string,
  ) => (await client.complete({ ref, argument: { name, value } })).completion.values;

  it("completes carrier SCACs for track-shipment, without the sandbox TEST line", async () => {
    const ma = await complete({ type: "ref/prompt", name: "track-shipment" }, "carrier", "ma");
    expect(ma).toContain("MAEU");
    // SCACs starting with the text come first, then lines whose name contains it (issue 16 §5).
    const byName = ma.findIndex((s) => !s.startsWith("MA"));
    expect(byName).toBeGreaterThan(0);
    expect(ma.slice(byName).some((s) => s.startsWith("MA"))).toBe(false);
    expect(await complete({ type: "ref/prompt", name: "track-shipment" }, "carrier", "TE")).not.toContain("TEST");
    const all = await complete({ type: "ref/prompt", name: "track-shipment" }, "carrier", "");
    expect(all.length).toBeGreaterThan(10);
    expect(all.length).toBeLessThanOrEqual(100);
  });

  it("completes container numbers of the account for check-demurrage and analyze-delays", async () => {
    for (const name of ["check-demurrage", "analyze-delays"]) {
      const values = await complete({ type: "ref/prompt", name }, "container_id", "tstu");
      expect(values.sort(), name).toEqual(t.containers.map((c) => c.number).sort());
    }
    const stranger = await createAccount();
    const { client: other } = await connectMcp(stranger.key);
    try {
      const values = await other.complete({
        ref: { type: "ref/prompt", name: "check-demurrage" },
        argument: { name: "container_id", value: "TSTU" },
      });
      expect(values.completion.values).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("completes the id of the container resource template from an id prefix", async () => {
    const values = await complete({ type: "ref/resource", uri: "svc://container/{id}" }, "id", box().id.slice(0, 8));
    expect(values).toContain(box().id);
    const recent = await complete({ type: "ref/resource", uri: "svc://container/{id}" }, "id", "");
    expect(recent.sort()).toEqual(t.containers.map((c) => c.id).sort());
  });
});

describe("resources", () => {
  it("lists the glossary and the account's containers; the container template is advertised", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("svc://docs/milestone-glossary");
    for (const c of t.containers) expect(uris).toContain(`svc://container/${c.id}`);
    const named = resources.find((r) => r.uri === `svc://container/${box().id}`);
    expect(named).toMatchObject({ name: `Container ${box().number}`, mimeType: "text/markdown" });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(["svc://container/{id}"]);
  });

  it("reads the milestone glossary: every phase, typical sequences, the readiness rule", async () => {
    const { contents } = await client.readResource({ uri: "svc://docs/milestone-glossary" });
    const text = (contents[0] as { text: string }).text;
    expect(contents[0]?.mimeType).toBe("text/markdown");
    for (const phase of JOURNEY_PHASES.filter((p) => p !== "other"))
      expect(text).toContain(`## ${PHASE_LABELS[phase]}`);
    expect(text).toContain("## Typical sequences");
    expect(text).toContain("`container.transport.transshipment_discharged`");
    expect(text).toContain("no hold with status `hold`");
  });

  it("reads a container by id or by number as markdown with readiness, LFD, holds and fees", async () => {
    for (const key of [box().id, box().number]) {
      const { contents } = await client.readResource({ uri: `svc://container/${key}` });
      const text = (contents[0] as { text: string }).text;
      expect(text).toContain(`# Container ${box().number}`);
      expect(text).toContain("Ready for pickup: **not_ready**");
      expect(text).toContain("(imminent");
      expect(text).toContain("customs (hold)");
      expect(text).toContain("total 225.5 USD");
    }
  });

  it("an unknown container is a resource-not-found error", async () => {
    const error = await client.readResource({ uri: `svc://container/${crypto.randomUUID()}` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32002);
  });
});
