import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { trackSandboxShipment } from "../helpers/tracking";
import { expectMatchesOutputSchema } from "./fixtures";
import { connectMcp } from "./helpers";

// get_container and get_shipment_details show the entity's custom field values (docs/mcp.md §Tools; docs/api.md
// §Custom fields), read through the same service as GET /v2/{shipments|containers}/{id}/custom_fields.

let account: TestAccount;
let client: Client;
let shipmentId: string;
let containerId: string;

async function define(api_slug: string, entity_type: string, data_type: string) {
  const { res, json } = await apiJson<{ data: { id: string } }>("/custom_field_definitions", {
    key: account.key,
    body: {
      data: {
        type: "custom_field_definition",
        attributes: { api_slug, entity_type, data_type, display_name: api_slug },
      },
    },
  });
  expect(res.status).toBe(201);
  return json.data.id;
}

async function set(path: string, api_slug: string, value: unknown) {
  const { res } = await apiJson(`${path}/custom_fields`, {
    key: account.key,
    body: { data: { type: "custom_field", attributes: { api_slug, value } } },
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  account = await createAccount();
  const tracked = await trackSandboxShipment(account);
  shipmentId = tracked.shipment.id;
  containerId = tracked.containerIds[0] ?? "";
  await define("po_number", "Shipment", "short_text");
  const incoterm = await define("incoterm", "Shipment", "enum");
  await apiJson(`/custom_field_definitions/${incoterm}/options`, {
    key: account.key,
    body: { data: { type: "custom_field_option", attributes: { value: "EXW", label: "Ex Works" } } },
  });
  await define("hazmat", "Container", "boolean");
  await set(`/shipments/${shipmentId}`, "po_number", "PO-77");
  await set(`/shipments/${shipmentId}`, "incoterm", "EXW");
  await set(`/containers/${containerId}`, "hazmat", true);
  ({ client } = await connectMcp(account.key));
});

afterAll(async () => {
  await client?.close();
});

async function call(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError ?? false).toBe(false);
  const tools = (await client.listTools()).tools;
  expectMatchesOutputSchema(tools.find((t) => t.name === name)?.outputSchema, result.structuredContent);
  const text = result.content[0];
  return {
    structured: result.structuredContent as Record<string, unknown>,
    text: text?.type === "text" ? text.text : "",
  };
}

describe("custom fields in MCP tools", () => {
  it("get_shipment_details lists the shipment's values with display values", async () => {
    const { structured, text } = await call("get_shipment_details", { id: shipmentId });
    expect(structured.custom_fields).toEqual([
      { api_slug: "po_number", value: "PO-77", display_value: "PO-77" },
      { api_slug: "incoterm", value: "EXW", display_value: "Ex Works" },
    ]);
    expect(text).toContain("po_number = PO-77, incoterm = Ex Works");
  });

  it("get_container lists the container's values with display values", async () => {
    const { structured, text } = await call("get_container", { id: containerId });
    expect(structured.custom_fields).toEqual([{ api_slug: "hazmat", value: true, display_value: "Yes" }]);
    expect(text).toContain("hazmat = Yes");
  });
});
