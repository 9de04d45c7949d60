/**
 * `tools/list` and `tools/call` of the MCP server, served here rather than by the SDK's `McpServer.registerTool`
 * (issue 16): arguments are checked the way an agent needs them checked.
 *
 * - Unknown top-level arguments are rejected by name (with the closest known name), never silently dropped.
 * - The reference server's argument names are accepted as aliases (`tracking_stopped`, `containerNumber`,
 *   `filter[...]`, `page[size]`, `intent`, an `include` list as a comma-separated string;
 *   docs/mcp.md §Compatibility with the reference server), so prompts written for it work here.
 * - Errors name the argument the agent sent (its alias when it used one), also when the API rejects a value under
 *   its REST parameter name (`filter[updated_at][start]` → `updated_after`).
 * - A malformed `tools/call` (no `name`, non-object `arguments`) or an unknown tool is a JSON-RPC -32602 error with a
 *   one-line message; the SDK answers -32603 with a zod dump for the former.
 * - `tools/list` carries each schema once, without the ±2^53 bounds zod writes on every integer (58.7 KB → see
 *   docs/mcp.md §Tools).
 * - A call with a `progressToken` gets `notifications/progress` at its start, at each step the tool reports, and at
 *   its end.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ContentBlock,
  LoggingLevel,
  ServerNotification,
  ServerRequest,
  Tool,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Clock } from "../../lib/clock";
import { NULLABLE_MARK } from "../../lib/nullable";
import type { TrackingApi } from "../api";
import { TrackingApiError } from "../api-errors";
import type { McpDeps } from "./deps";

/** JSON-RPC "Invalid params" (MCP: malformed request, unknown tool). */
export const INVALID_PARAMS = -32602;

/**
 * A JSON-RPC error the SDK's protocol layer sends as is: `code` and a one-line `message`. Not an SDK `McpError`,
 * whose message already carries "MCP error <code>:" — the client adds that prefix itself, so it would show twice.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** What a tool's `run` returns: the structured result, a short human-readable text, optional extra blocks. */
export interface ToolOutput<S> {
  structured: S;
  text: string;
  /** Extra content blocks after the text (e.g. `resource_link`s). */
  extra?: ContentBlock[];
}

/** Context of one tool call. */
export interface ToolContext {
  api: TrackingApi;
  clock: Clock;
  /** Sends an MCP log message (`notifications/message`) to the client, honouring its log level. */
  log: (level: "info" | "notice" | "warning", message: string) => Promise<void>;
  /** Reports a step of a slow call (`notifications/progress` when the client sent a `progressToken`; else nothing). */
  progress: (message: string) => Promise<void>;
}

/**
 * An argument name of the reference server and what it means here: given the value sent, the arguments it stands
 * for (merged into the call's arguments; a nested object such as `filters` is merged one level deep).
 */
export type ArgumentAlias = (value: unknown) => Record<string, unknown>;

/** A tool: schemas, annotations, the reference's aliases, and its `run`. */
export interface ToolDefinition<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** Reference argument names accepted in place of ours (docs/mcp.md §Compatibility with the reference server). */
  aliases?: Record<string, ArgumentAlias>;
  /**
   * API field or REST parameter names (as `TrackingApiError.field` carries them) → the argument that sets them,
   * so an API rejection names the argument (e.g. `filter[updated_at][start]` → `updated_after`).
   */
  fields?: Record<string, string>;
  run: (args: z.infer<z.ZodObject<I>>, ctx: ToolContext) => Promise<ToolOutput<z.infer<z.ZodObject<O>>>>;
}

/** Arguments every tool accepts and ignores: the reference server's `intent` (MCP-side telemetry, ≤ 200 chars). */
const IGNORED_ARGUMENTS = new Set(["intent"]);

/** A registered tool, erased to what the dispatcher needs. */
interface Registered {
  def: ToolDefinition<z.ZodRawShape, z.ZodRawShape>;
  input: z.ZodObject<z.ZodRawShape>;
  output: z.ZodObject<z.ZodRawShape>;
}

/** The tools of one server and their (lazily built) listing. */
interface Registry {
  tools: Map<string, Registered>;
  listing?: Tool[];
}

const registries = new WeakMap<McpServer, Registry>();

/**
 * Adds a tool to `server`; the first call installs the `tools/list` and `tools/call` handlers (and the `tools`
 * capability), so call it before the server connects, like the SDK's `registerTool`.
 */
export function addTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  server: McpServer,
  deps: McpDeps,
  def: ToolDefinition<I, O>,
): void {
  let registry = registries.get(server);
  if (!registry) {
    const created: Registry = { tools: new Map() };
    registry = created;
    registries.set(server, created);
    install(server, deps, created);
  }
  if (registry.tools.has(def.name)) throw new Error(`Tool ${def.name} is already registered`);
  registry.listing = undefined;
  registry.tools.set(def.name, {
    def: def as unknown as ToolDefinition<z.ZodRawShape, z.ZodRawShape>,
    input: z.object(def.input).strict(),
    output: z.object(def.output),
  });
}

/** `tools/call` as the protocol layer hands it over: only the method is checked, the params are ours to check. */
const LooseCallToolRequest = z.looseObject({ method: z.literal("tools/call"), params: z.unknown().optional() });

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

function install(server: McpServer, deps: McpDeps, registry: Registry): void {
  server.server.registerCapabilities({ tools: { listChanged: false } });
  server.server.setRequestHandler(ListToolsRequestSchema, () => {
    registry.listing ??= [...registry.tools.values()].map(listingOf);
    return { tools: registry.listing };
  });
  // The SDK's `Server.setRequestHandler` re-parses `tools/call` with its strict schema and turns a malformed one into
  // a zod dump; the protocol layer's own method installs the handler with only the method checked (SDK 1.32, pinned).
  Protocol.prototype.setRequestHandler.call(server.server, LooseCallToolRequest, (request, extra) =>
    callTool(registry, deps, request.params, extra as Extra),
  );
}

/**
 * Most characters of a listed output schema expanded two object levels deep (the tool's fields and theirs); a larger
 * one is listed one level deep (issue 16 §8: `tools/list` ≤ 25 KB); the structured results are unchanged.
 */
export const OUTPUT_SCHEMA_BUDGET = 2_000;

/**
 * The listing of one tool (issue 16 §8): the input schema in full (what a model fills in), trimmed of noise; the
 * output schema trimmed and cut to the depth that fits {@link OUTPUT_SCHEMA_BUDGET} — output schemas serve clients
 * validating `structuredContent`, and a deeper object is still typed (`{"type": "object"}` with its description).
 */
function listingOf({ def, input, output }: Registered): Tool {
  const full = trimSchema(z.toJSONSchema(output, { target: "draft-7", io: "output" }), def.name);
  const deep = limitDepth(full, 0, 2);
  const outputSchema = JSON.stringify(deep).length <= OUTPUT_SCHEMA_BUDGET ? deep : limitDepth(full, 0, 1);
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: trimSchema(z.toJSONSchema(input, { target: "draft-7", io: "input" })) as Tool["inputSchema"],
    outputSchema: outputSchema as Tool["outputSchema"],
    annotations: def.annotations,
  };
}

/**
 * `schema` with objects at `depth ≥ max` (counted in `properties` levels) reduced to `{"type": "object"}` plus their
 * description, and `required` kept on the top level only.
 */
function limitDepth(schema: unknown, depth: number, max: number): unknown {
  if (Array.isArray(schema)) return schema.map((s) => limitDepth(s, depth, max));
  if (!isPlainObject(schema)) return schema;
  if (schema.type === "object" && isPlainObject(schema.properties) && depth >= max) {
    return { type: "object", ...(schema.description !== undefined ? { description: schema.description } : {}) };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "required" && depth > 0) continue;
    out[key] =
      key === "properties" && isPlainObject(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, limitDepth(v, depth + 1, max)]))
        : limitDepth(value, depth, max);
  }
  return out;
}

/**
 * JSON Schema key (set with zod `.meta`) of a summary object listed in full only in one tool's output schema, its
 * "home" (e.g. `list_shipments` for a shipment summary); elsewhere it is a typed pointer to that tool (issue 16 §8).
 */
export const FULL_SCHEMA_IN = "x-full-schema-in";

/**
 * A tool's JSON Schema without what does not help a model (issue 16 §8): `$schema`; the `minimum`/`maximum` of
 * ±`Number.MAX_SAFE_INTEGER` zod 4 writes on every `.int()` (real bounds such as `page ≥ 1` stay); the marker
 * description of nullable branches; in output schemas `additionalProperties: false`, and summary objects outside
 * their home tool (see {@link FULL_SCHEMA_IN}).
 * @param tool The tool whose schema this is; `null` for an input schema.
 */
export function trimSchema(node: unknown, tool: string | null = null): unknown {
  if (Array.isArray(node)) return node.map((n) => trimSchema(n, tool));
  if (!node || typeof node !== "object") return node;
  const home = (node as Record<string, unknown>)[FULL_SCHEMA_IN];
  if (typeof home === "string" && tool !== null && home !== tool) {
    return { type: "object", description: `As ${home} items.` };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || key === FULL_SCHEMA_IN) continue;
    if ((key === "minimum" || key === "maximum") && Math.abs(Number(value)) === Number.MAX_SAFE_INTEGER) continue;
    if (key === "description" && value === NULLABLE_MARK) continue;
    if (key === "additionalProperties" && value === false && tool !== null) continue;
    out[key] = trimSchema(value, tool);
  }
  return out;
}

async function callTool(registry: Registry, deps: McpDeps, params: unknown, extra: Extra): Promise<CallToolResult> {
  if (!isPlainObject(params))
    throw new RpcError(INVALID_PARAMS, "Invalid params: tools/call needs params {name, arguments}.");
  const { name, arguments: raw } = params;
  if (typeof name !== "string" || name === "") {
    throw new RpcError(INVALID_PARAMS, "Invalid params: `name` (the tool to call) is missing or not a string.");
  }
  const tool = registry.tools.get(name);
  if (!tool) {
    throw new RpcError(INVALID_PARAMS, `Unknown tool \`${name}\`; tools/list gives the tools of this server.`);
  }
  if (raw !== undefined && !isPlainObject(raw)) {
    throw new RpcError(INVALID_PARAMS, `Invalid params: \`arguments\` of ${name} must be a JSON object.`);
  }
  const meta = isPlainObject(params._meta) ? params._meta : {};
  const token = meta.progressToken;
  const progress = progressReporter(extra, typeof token === "string" || typeof token === "number" ? token : null);
  const { def } = tool;

  let sentAs = new Map<string, string>();
  try {
    const normalized = normalizeArguments(tool, raw ?? {});
    sentAs = normalized.sentAs;
    const parsed = tool.input.safeParse(normalized.args);
    if (!parsed.success) {
      return errorResult(`Invalid argument ${describeIssues(parsed.error.issues, normalized.args, sentAs)}`);
    }
    await progress.step(`${name} started`);
    const api = await deps.resolveApi();
    const log = async (level: LoggingLevel, message: string) => {
      if (!deps.logging.enabled(level)) return;
      // On the request's own stream (related to this call), so clients without a standalone stream get it too.
      await extra
        .sendNotification({ method: "notifications/message", params: { level, logger: name, data: message } })
        .catch(() => undefined);
    };
    const out = await def.run(parsed.data, { api, clock: deps.clock, log, progress: progress.step });
    const structured = out.structured as Record<string, unknown>;
    await progress.done(`${name} done`);
    return {
      content: [
        { type: "text", text: out.text },
        ...(out.extra ?? []),
        { type: "text", text: JSON.stringify(structured), annotations: { audience: ["assistant"] } },
      ],
      structuredContent: structured,
    };
  } catch (err) {
    if (err instanceof ArgumentError) return errorResult(err.message);
    return errorResult(errorMessage(renameField(err, def.fields, sentAs), deps, name));
  }
}

/** A tool's error result: `isError` and one text block (MCP "Tools": errors the model should see and act on). */
export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** Progress of one call: a step per report, `done` at the end; nothing without a token. */
function progressReporter(extra: Extra, token: string | number | null) {
  let count = 0;
  const send = async (message: string, total?: number) => {
    if (token === null) return;
    count += 1;
    await extra
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: count, ...(total !== undefined ? { total } : {}), message },
      })
      .catch(() => undefined);
  };
  return {
    step: (message: string) => send(message),
    done: (message: string) => send(message, count + 1),
  };
}

/** A rejected argument (unknown, or two names for one argument): the message is the whole tool error. */
class ArgumentError extends Error {}

/**
 * The arguments with the reference's aliases resolved and list-valued strings split, and for every argument the
 * name the agent sent it under.
 * @throws ArgumentError for an unknown argument, or an argument given twice (once under an alias) with two values.
 */
function normalizeArguments(
  tool: Pick<Registered, "def">,
  raw: Record<string, unknown>,
): { args: Record<string, unknown>; sentAs: Map<string, string> } {
  const { def } = tool;
  const aliases = def.aliases ?? {};
  const sentAs = new Map<string, string>();
  const args: Record<string, unknown> = {};
  // The reference's `filters` map holds REST-style keys (`filter[status]`, `page[size]`): they are read as
  // top-level aliases, so either spelling works.
  const entries = Object.entries(raw).flatMap(([key, value]): [string, unknown][] => {
    if (key !== "filters" || !isPlainObject(value)) return [[key, value]];
    const hoisted = Object.entries(value).filter(([k]) => aliases[k] !== undefined);
    const rest = Object.fromEntries(Object.entries(value).filter(([k]) => aliases[k] === undefined));
    return [
      ...(Object.keys(rest).length > 0 || hoisted.length === 0 ? [[key, rest] as [string, unknown]] : []),
      ...hoisted,
    ];
  });
  const unknown: string[] = [];
  const put = (key: string, value: unknown, from: string) => {
    const before = args[key];
    const nested = isPlainObject(value);
    if (nested && from !== key) for (const k of Object.keys(value)) sentAs.set(`${key}.${k}`, from);
    if (isPlainObject(before) && nested) {
      args[key] = { ...before, ...value };
      return;
    }
    if (before !== undefined && JSON.stringify(before) !== JSON.stringify(value)) {
      throw new ArgumentError(
        `Conflicting arguments: \`${sentAs.get(key) ?? key}\` and \`${from}\` both set \`${key}\`; pass one.`,
      );
    }
    args[key] = value;
    if (from !== key && !nested) sentAs.set(key, from);
  };
  for (const [key, value] of entries) {
    if (key in def.input) put(key, value, key);
    else if (aliases[key]) for (const [k, v] of Object.entries(aliases[key](value))) put(k, v, key);
    else if (IGNORED_ARGUMENTS.has(key) && (typeof value === "string" || value === undefined)) continue;
    else unknown.push(key);
  }
  if (unknown.length > 0) {
    const known = Object.keys(def.input);
    const hints = unknown.map((u) => {
      const near = closest(u, [...known, ...Object.keys(aliases)]);
      return near ? `\`${u}\` (did you mean \`${near}\`?)` : `\`${u}\``;
    });
    throw new ArgumentError(
      `Unknown argument${unknown.length === 1 ? "" : "s"} ${hints.join(", ")} for ${def.name}. Its arguments: ${known.join(", ")}.`,
    );
  }
  // A list argument sent as a comma-separated string (`include: "shipment,pod_terminal"`, as REST spells it).
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string" && isArraySchema(def.input[key])) {
      args[key] = value
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
    }
  }
  return { args, sentAs };
}

function isArraySchema(schema: z.core.$ZodType | undefined): boolean {
  let s: unknown = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap();
  return s instanceof z.ZodArray;
}

/** One line naming each failing argument as sent, e.g. `` `updated_after`: an ISO 8601 date or date-time``. */
function describeIssues(
  issues: z.core.$ZodIssue[],
  args: Record<string, unknown>,
  sentAs: Map<string, string>,
): string {
  const parts = issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String);
    const key = path.join(".");
    const name = sentAs.get(key) ?? sentAs.get(path[0] ?? "") ?? (key || "arguments");
    const missing = issue.code === "invalid_type" && valueAt(args, path) === undefined;
    return `\`${name}\`: ${missing ? "required" : issue.message}`;
  });
  return parts.join("; ");
}

function valueAt(value: unknown, path: string[]): unknown {
  let v = value;
  for (const p of path) v = isPlainObject(v) || Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

/** A `TrackingApiError` whose `field` is renamed to the argument the agent sent (its alias when it used one). */
function renameField(err: unknown, fields: Record<string, string> | undefined, sentAs: Map<string, string>): unknown {
  if (!(err instanceof TrackingApiError) || err.kind !== "invalid_argument" || !err.field) return err;
  const argument = fields?.[err.field] ?? err.field;
  const name = sentAs.get(argument) ?? argument;
  if (name === err.field) return err;
  // The API's message names its own parameter too (`filter[updated_at][start] must be …`).
  return new TrackingApiError("invalid_argument", err.message.split(err.field).join(name), {
    field: name,
    ...(err.code !== undefined ? { code: err.code } : {}),
  });
}

/** The known name within edit distance 2 of `name` (or sharing its first 4 letters), if any. */
function closest(name: string, known: string[]): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best ?? known.find((k) => name.length >= 4 && k.startsWith(name.slice(0, 4))) ?? null;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What every MCP answer over the account's limit says (a tool's error text, the message of a refused request's
 * JSON-RPC error): `Rate limited: … Retry after N seconds.`, `seconds` whole and at least 1.
 */
export function rateLimitedMessage(seconds: number): string {
  return `Rate limited: this account's request limit (shared with the REST API) is used up. Retry after ${seconds} second${seconds === 1 ? "" : "s"}.`;
}

/** The safe text of an error (shared by tools, prompts and resources); see {@link McpDeps.reportError}. */
export function errorMessage(err: unknown, deps: Pick<McpDeps, "reportError">, where: string): string {
  if (err instanceof TrackingApiError) {
    switch (err.kind) {
      case "rate_limited":
        return rateLimitedMessage(err.retryAfterSeconds ?? 60);
      case "not_found":
        return `Not found: ${err.message}`;
      case "invalid_argument":
        return `Invalid argument${err.field ? ` \`${err.field}\`` : ""}: ${err.message}`;
      case "forbidden_feature":
        return `Feature not enabled: ${err.message}`;
      case "forbidden":
        return err.message;
      case "unauthorized":
        return "Unauthorized: the API key was rejected (missing, unknown or revoked). Reconnect with a valid key.";
      case "upstream":
        return `Service unavailable: ${err.message}`;
    }
  }
  const reference = crypto.randomUUID();
  deps.reportError(err, reference, where);
  return `Internal error: the request could not be completed (reference ${reference}). Retry later; if it persists, report the reference.`;
}
