// Extracts the interface facts of the reference service's Postman collection for the requests of issue 26 (custom
// fields and documents), for test/app/postman-collection.test.ts:
//
//   node scripts/contract/postman-requests.mjs <collection.json> --commit <sha> [--repo Terminal49/API]
//        [--path Terminal49-API.postman_collection.json] [--out test/app/contract/postman-requests.generated.json]
//
// The collection (public repository Terminal49/API, no licence file) is not committed, and neither is its text: the
// generated file keeps, per request, only its folder, name, method, path template, query keys (with the example value
// where it is not a placeholder), the JSON body's shape (keys and non-placeholder values; placeholders as their type,
// `<string>`, `<uuid>`, `<integer>`), the Accept / Content-Type headers, and each documented response's status with its
// top-level keys and `data.type`. Descriptions, example bodies and prose are left out. Postman's rendering of a
// free-form object (`{"key_0": …, "key_1": …}`, from OpenAPI `additionalProperties`) becomes the placeholder `<object>`.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Folders taken whole, and folders of which only the `custom_fields` requests are taken (issue 26). */
const WHOLE_FOLDERS = [
  "Custom Field Definitions",
  "Custom Field Options",
  "Custom Fields",
  "Documents",
  "Email Submissions",
  "Document Schemas",
];
const CUSTOM_FIELD_FOLDERS = ["Shipments", "Containers", "Tracking Requests"];

/** Headers kept (the collection's own; the API key header comes from the collection's auth, not from requests). */
const KEPT_HEADERS = ["accept", "content-type"];

function usage(message) {
  console.error(
    `${message}\nusage: node scripts/contract/postman-requests.mjs <collection.json> --commit <sha> [--repo owner/name] [--path file] [--out file]`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = {
    repo: "Terminal49/API",
    path: "Terminal49-API.postman_collection.json",
    out: join(root, "test", "app", "contract", "postman-requests.generated.json"),
  };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith("--")) {
      const value = argv[++i];
      if (value === undefined) usage(`${arg} needs a value`);
      options[arg.slice(2)] = value;
    } else positional.push(arg);
  }
  if (positional.length !== 1) usage("give exactly one collection file");
  if (!options.commit || !/^[0-9a-f]{7,40}$/.test(options.commit)) usage("--commit <sha> is required");
  return { file: positional[0], ...options };
}

/** Whether a value is one of Postman's placeholders (`<string>`, `<uuid>`, `<integer>` …). */
export function isPlaceholder(value) {
  return typeof value === "string" && /^<[a-z-]+>$/.test(value);
}

/** The shape of a JSON body: objects and arrays kept, placeholders as they are, free-form objects as `<object>`. */
export function shapeOf(value) {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value && typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length > 0 && keys.every((k) => /^key_\d+$/.test(k))) return "<object>";
    return Object.fromEntries(keys.map((k) => [k, shapeOf(value[k])]));
  }
  return value;
}

function pathTemplate(url) {
  const segments = Array.isArray(url.path) ? url.path : [];
  return `/${segments.join("/")}`;
}

function parseJson(text) {
  if (typeof text !== "string" || text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function responseFacts(response) {
  const body = parseJson(response.body);
  const facts = { status: Number(response.code) };
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
    facts.top_level_keys = null;
    return facts;
  }
  facts.top_level_keys = Object.keys(body);
  const data = body.data;
  if (Array.isArray(data)) {
    facts.data = "array";
    const type = data.find((d) => d && typeof d === "object")?.type;
    if (typeof type === "string" && !isPlaceholder(type)) facts.data_type = type;
  } else if (data && typeof data === "object") {
    facts.data = "object";
    if (typeof data.type === "string" && !isPlaceholder(data.type)) facts.data_type = data.type;
  }
  return facts;
}

/** The interface facts of one Postman request item. */
function requestFacts(folder, item) {
  const request = item.request ?? {};
  const url = typeof request.url === "object" && request.url !== null ? request.url : {};
  const query = (url.query ?? []).map((q) => ({
    key: q.key,
    ...(isPlaceholder(q.value) ? { placeholder: q.value } : { example: q.value ?? null }),
    ...(q.disabled ? { disabled: true } : {}),
  }));
  const headers = Object.fromEntries(
    (request.header ?? [])
      .filter((h) => KEPT_HEADERS.includes(String(h.key).toLowerCase()) && !h.disabled)
      .map((h) => [h.key, h.value]),
  );
  const raw = request.body?.mode === "raw" ? parseJson(request.body.raw) : undefined;
  return {
    folder,
    name: item.name,
    method: String(request.method ?? "GET").toUpperCase(),
    path: pathTemplate(url),
    path_variables: (url.variable ?? []).map((v) => v.key),
    query,
    headers,
    body: raw === undefined ? null : shapeOf(raw),
    responses: (item.response ?? []).map(responseFacts).sort((a, b) => a.status - b.status),
  };
}

/** The requests of issue 26's folders, in collection order. */
export function extract(collection) {
  const folders = new Map((collection.item ?? []).map((f) => [f.name, f]));
  const requests = [];
  for (const name of [...WHOLE_FOLDERS, ...CUSTOM_FIELD_FOLDERS]) {
    const folder = folders.get(name);
    if (!folder) throw new Error(`folder "${name}" is not in the collection`);
    for (const item of folder.item ?? []) {
      if (!item.request) continue;
      const facts = requestFacts(name, item);
      if (CUSTOM_FIELD_FOLDERS.includes(name) && !facts.path.includes("/custom_fields")) continue;
      requests.push(facts);
    }
  }
  return requests;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = parseArgs(process.argv.slice(2));
  const collection = JSON.parse(readFileSync(args.file, "utf8"));
  const requests = extract(collection);
  const generated = {
    $comment:
      "Generated by scripts/contract/postman-requests.mjs: interface facts only (no descriptions or example bodies) of the reference's Postman collection. Do not edit.",
    source: { repo: args.repo, path: args.path, commit: args.commit },
    requests,
  };
  writeFileSync(args.out, `${JSON.stringify(generated, null, 1)}\n`);
  console.log(`${requests.length} requests → ${relative(root, args.out)}`);
}
