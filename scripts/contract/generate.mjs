// Generates the contract test's artifacts from the reference service's schemas and captured responses (run: npm run
// contract:generate; docs/api.md §Contract tests):
//   test/app/contract/reference.schema.json    JSON Schemas of the reference's resources, list and single documents,
//                                              errors and /webhooks/ips (from scripts/contract/reference-types.mjs;
//                                              OpenAPI 3.0 `nullable`)
//   test/app/contract/validators.generated.js  ajv + ajv-formats standalone validators of those schemas (workerd
//                                              forbids the `new Function` ajv compiles with, so they are compiled here),
//                                              with their types in validators.generated.d.ts
//   test/app/contract/reference-samples.generated.json  attribute and relationship names of every resource in the
//                                              captured samples of data/reference-service/response-samples.md, per type
// The generated files are committed (the tests run in workerd, which can read neither data/ nor this script).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import addFormats from "ajv-formats";
import { RESOURCES } from "./reference-types.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const out = join(root, "test", "app", "contract");
const samplesPath = join(root, "data", "reference-service", "response-samples.md");

/** One attribute type of reference-types.mjs as JSON Schema. */
function typeSchema(t) {
  if (Array.isArray(t)) return { enum: t };
  if (typeof t === "object") {
    if (t.array) return { type: "array", items: typeSchema(t.array), ...(t.nullable ? { nullable: true } : {}) };
    if (t.object) {
      return {
        type: "object",
        required: Object.keys(t.object),
        properties: Object.fromEntries(Object.entries(t.object).map(([k, v]) => [k, typeSchema(v)])),
        ...(t.nullable ? { nullable: true } : {}),
      };
    }
  }
  const nullable = t.endsWith("?");
  const base = nullable ? t.slice(0, -1) : t;
  const n = nullable ? { nullable: true } : {};
  switch (base) {
    case "any":
      return {};
    case "string":
      return { type: "string", ...n };
    case "datetime":
      return { type: "string", format: "date-time", ...n };
    case "date":
      return { type: "string", format: "date", ...n };
    case "integer":
    case "number":
    case "boolean":
      return { type: base, ...n };
    case "string[]":
      return { type: "array", items: { type: "string" }, ...n };
    default:
      throw new Error(`unknown type ${t}`);
  }
}

/** A relationship's linkage: to-many (`x[]`) or to-one of the listed types (`x?` allows null). */
function relationshipSchema(targets) {
  const many = targets.every((x) => x.endsWith("[]"));
  const types = targets.map((x) => x.replace(/\[\]$|\?$/, ""));
  const identifier = {
    type: "object",
    required: ["id", "type"],
    properties: { id: { type: "string" }, type: { enum: types } },
  };
  const data = many
    ? { type: "array", items: identifier }
    : { ...identifier, ...(targets.some((x) => x.endsWith("?")) ? { nullable: true } : {}) };
  return { type: "object", required: ["data"], properties: { data } };
}

const schemas = {};
for (const [type, def] of Object.entries(RESOURCES)) {
  const rels = Object.keys(def.relationships);
  schemas[type] = {
    $id: type,
    $comment: `reference resource \`${type}\` (docs/api.md §Resources; scripts/contract/reference-types.mjs)`,
    type: "object",
    required: ["id", "type", "attributes", ...(rels.length > 0 && !def.optionalRelationships ? ["relationships"] : [])],
    properties: {
      id: { type: "string" },
      type: { const: type },
      attributes: {
        type: "object",
        required: Object.keys(def.attributes),
        properties: Object.fromEntries(Object.entries(def.attributes).map(([k, v]) => [k, typeSchema(v)])),
      },
      relationships: {
        type: "object",
        required: def.optionalRelationships ? [] : rels,
        properties: Object.fromEntries(Object.entries(def.relationships).map(([k, v]) => [k, relationshipSchema(v)])),
      },
    },
  };
}
const linkObject = { type: "object", required: ["self"], properties: { self: { type: "string" } } };
const resourceEnvelope = {
  type: "object",
  required: ["id", "type"],
  properties: { id: { type: "string" }, type: { type: "string" } },
};
schemas.single_document = {
  $id: "single_document",
  $comment: "docs/api.md §Identifiers and links: {data, links: {self}, included?}",
  type: "object",
  required: ["data"],
  properties: { data: resourceEnvelope, included: { type: "array", items: resourceEnvelope }, links: linkObject },
};
schemas.list_document = {
  $id: "list_document",
  $comment: "docs/api.md §Lists and pagination: {data: [], included?, links: {self, current, next?, last?}, meta?}",
  type: "object",
  required: ["data", "links"],
  properties: {
    data: { type: "array", items: resourceEnvelope },
    included: { type: "array", items: resourceEnvelope },
    links: {
      type: "object",
      required: ["self", "current"],
      properties: Object.fromEntries(
        ["self", "current", "next", "prev", "first", "last"].map((k) => [k, { type: "string" }]),
      ),
    },
    meta: {
      type: "object",
      properties: {
        size: { type: "integer" },
        total: { type: "integer" },
        pagination: {
          type: "object",
          required: ["current", "records"],
          properties: {
            current: { type: "integer" },
            next: { type: "integer" },
            last: { type: "integer" },
            records: { type: "integer" },
          },
        },
      },
    },
  },
};
schemas.error_document = {
  $id: "error_document",
  $comment: "docs/api.md §Errors: {errors: [{status, title, detail?, source?, code?}]}",
  type: "object",
  required: ["errors"],
  properties: {
    errors: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["title"],
        properties: {
          status: { type: "string", nullable: true },
          title: { type: "string" },
          detail: { type: "string", nullable: true },
          source: { type: "object", nullable: true },
          code: { type: "string", nullable: true },
        },
      },
    },
  },
};
schemas.webhook_ips = {
  $id: "webhook_ips",
  $comment: "docs/webhooks.md §Sender addresses: GET /webhooks/ips",
  type: "object",
  required: ["webhook_notification_ips", "last_updated"],
  properties: {
    webhook_notification_ips: { type: "array", items: { type: "string" } },
    last_updated: { type: "string", format: "date-time" },
  },
};
schemas.refresh = {
  $id: "refresh",
  $comment: "docs/api.md §Container endpoints: PATCH /containers/{id}/refresh",
  type: "object",
  required: ["message"],
  properties: { message: { type: "string" } },
};
schemas.infer_number_results = {
  $id: "infer_number_results",
  $comment: "docs/api.md §Infer number",
  type: "object",
  required: ["id", "type", "attributes"],
  properties: {
    id: { type: "string" },
    type: { const: "infer_number_results" },
    attributes: {
      type: "object",
      required: ["number_type", "validation", "shipping_line"],
      properties: {
        number_type: { enum: ["container", "bill_of_lading", "booking"] },
        validation: {
          type: "object",
          required: ["is_valid"],
          properties: { is_valid: { type: "boolean", nullable: true }, reason: { type: "string", nullable: true } },
        },
        shipping_line: {
          type: "object",
          required: ["decision", "selected", "candidates"],
          properties: {
            decision: { enum: ["auto_select", "needs_confirmation", "no_prediction"] },
            selected: { type: "object", nullable: true, required: ["scac", "name", "confidence"] },
            candidates: { type: "array", items: { type: "object", required: ["scac", "name", "confidence"] } },
          },
        },
      },
    },
  },
};

const schemaText = `${JSON.stringify(schemas, null, 1)}\n`;
writeFileSync(join(out, "reference.schema.json"), schemaText);

const ajv = new Ajv({ code: { source: true, esm: true }, strict: false, allErrors: true });
addFormats(ajv, ["date-time", "date"]);
for (const schema of Object.values(schemas)) ajv.addSchema(schema);
let code = standaloneCode(ajv, Object.fromEntries(Object.keys(schemas).map((k) => [k, k])));
// The standalone code `require`s its runtime (formats); as an ES module for workerd they become imports.
const imports = new Map();
code = code.replace(/require\("([^"]+)"\)/g, (_, mod) => {
  if (!imports.has(mod)) imports.set(mod, `__import${imports.size}`);
  return imports.get(mod);
});
const header = [
  "// @ts-nocheck",
  "// Generated by scripts/contract/generate.mjs from test/app/contract/reference.schema.json (ajv standalone). Do not edit.",
  ...[...imports].map(([mod, name]) => `import ${name} from "${mod}";`),
].join("\n");
writeFileSync(join(out, "validators.generated.js"), `${header}\n${code.replace(/^"use strict";/, "")}\n`);
writeFileSync(
  join(out, "validators.generated.d.ts"),
  [
    "// Generated by scripts/contract/generate.mjs. Do not edit.",
    "/** An ajv validator: true when valid; otherwise `errors` says where and why (ajv's ErrorObject, abridged). */",
    "export type Validate = ((data: unknown) => boolean) & {",
    "  errors?: { instancePath: string; keyword: string; message?: string }[] | null;",
    "};",
    ...Object.keys(schemas).map((k) => `export declare const ${k}: Validate;`),
    "",
  ].join("\n"),
);

// Names in the captured samples (`### A.n` headings, each followed by one json block), per resource type:
// attributes, one level into object-valued attributes (`provided_data.pickup_lfd`), and relationships.
const md = readFileSync(samplesPath, "utf8");
const sampleCount = [...md.matchAll(/^### A\.\d+/gm)].length;
const names = {};
const add = (type, kind, name, sample) => {
  names[type] ??= { attributes: {}, relationships: {} };
  names[type][kind][name] ??= [];
  if (!names[type][kind][name].includes(sample)) names[type][kind][name].push(sample);
};
const walk = (node, sample) => {
  if (Array.isArray(node)) {
    for (const n of node) walk(n, sample);
    return;
  }
  if (!node || typeof node !== "object" || typeof node.type !== "string" || !node.attributes) return;
  for (const [k, v] of Object.entries(node.attributes)) {
    add(node.type, "attributes", k, sample);
    if (v && typeof v === "object" && !Array.isArray(v))
      for (const sub of Object.keys(v)) add(node.type, "attributes", `${k}.${sub}`, sample);
  }
  for (const k of Object.keys(node.relationships ?? {})) add(node.type, "relationships", k, sample);
};
let parsed = 0;
for (const m of md.matchAll(/### (A\.\d+)[^\n]*\n+```json\n([\s\S]*?)\n```/g)) {
  const doc = JSON.parse(m[2]);
  walk(doc.data, m[1]);
  walk(doc.included, m[1]);
  parsed++;
}
// A heading whose json block was not found would drop its sample's names silently, and the contract test with them.
if (parsed === 0 || parsed !== sampleCount) {
  throw new Error(`${samplesPath}: ${sampleCount} sample headings but ${parsed} json blocks read`);
}
writeFileSync(
  join(out, "reference-samples.generated.json"),
  `${JSON.stringify({ $comment: "Generated by scripts/contract/generate.mjs from data/reference-service/response-samples.md. Do not edit.", names }, null, 1)}\n`,
);
console.log(
  `contract: ${Object.keys(schemas).length} schemas, ${Object.keys(names).length} sampled types, imports ${[...imports.keys()].join(", ")}`,
);
