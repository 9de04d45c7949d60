import { z } from "@hono/zod-openapi";
import { ApiError, type ErrorObject } from "./errors";

/** The `code` of a 422 for free text holding a control character. */
export const CONTROL_CHARACTER_CODE = "control_character";

/**
 * True when `value` holds a C0 control character (U+0000–U+001F: NUL, TAB, LF, CR, ESC …) or DEL (U+007F). None of
 * the API's free-text fields is multi-line, so TAB and LF are refused with the rest (issue 11 §2): a NUL or a line
 * break stored in a reference number or a header value breaks the exports, logs and headers it is copied into.
 */
export function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * A free-text string of a request body or an MCP tool's arguments (reference numbers, tags, company names, webhook
 * URLs and header values): at most `maxLength` characters, no control character (`hasControlCharacter`, code
 * `control_character`) and no unpaired surrogate (`hasUnpairedSurrogate`, code `unpaired_surrogate`; REST bodies are
 * refused for one before validation, `unpairedSurrogateErrors`, but MCP arguments reach their schema directly). The
 * one refinement every free-text field uses; over REST a violation is a 422 with the field's `source.pointer`.
 */
export function freeText(maxLength: number) {
  return z
    .string()
    .max(maxLength)
    .refine((value) => !hasControlCharacter(value), {
      error: "must not contain control characters (U+0000–U+001F, U+007F)",
      params: { code: CONTROL_CHARACTER_CODE },
    })
    .refine((value) => !hasUnpairedSurrogate(value), {
      error: "must not contain an unpaired surrogate (U+D800–U+DFFF without its pair)",
      params: { code: UNPAIRED_SURROGATE_CODE },
    });
}

/** Most items of a list of reference numbers or tags (docs/api.md §Shipment endpoints). */
export const MAX_LIST_ITEMS = 50;
/** Longest reference number or tag, in characters (docs/api.md §Shipment endpoints). */
export const MAX_REF_LENGTH = 255;

/**
 * A list of reference numbers or tags of a request body (`ref_numbers`, `tags`, `shipment_tags` of tracking requests,
 * shipments and containers; docs/api.md §Shipment endpoints): at most {@link MAX_LIST_ITEMS} items, each
 * {@link freeText} of at most {@link MAX_REF_LENGTH} characters. Over REST a violation is a 422 pointing at the list
 * (too many) or at the item (`/ref_numbers/1`). The one rule every such list uses.
 */
export function referenceList() {
  return z.array(freeText(MAX_REF_LENGTH)).max(MAX_LIST_ITEMS);
}

/**
 * The check of an edit's optional `data.id` (`PATCH /shipments/{id}`, `/containers/{id}`, `/tracking_requests/{id}`;
 * docs/api.md §Shipment endpoints): when sent it must be the id in the path.
 * @throws ApiError 422 (`/data/id`, code `invalid`) when the body names another resource.
 */
export function checkBodyId(bodyId: string | undefined, id: string): void {
  if (bodyId !== undefined && bodyId !== id) {
    throw ApiError.invalidField("/data/id", "data.id does not match the id in the path", "invalid");
  }
}

/** The `code` of a 422 for a body string holding an unpaired UTF-16 surrogate. */
export const UNPAIRED_SURROGATE_CODE = "unpaired_surrogate";

/**
 * True when `value` is not well-formed UTF-16: it holds a surrogate (U+D800–U+DFFF) without its pair. JSON's `\uXXXX`
 * escapes can spell one (`"x\ud800y"` parses), but it is no Unicode character: D1 stores text as UTF-8, which cannot
 * encode it, so it came back as U+FFFD (issue 23 §6). Characters outside the BMP (a surrogate pair, 🚢) are fine.
 */
export function hasUnpairedSurrogate(value: string): boolean {
  return !value.isWellFormed();
}

/** RFC 6901 JSON Pointer of a path: `~` → `~0`, `/` → `~1`; the whole document is "" ("/" names an empty key). */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/** Most unpaired-surrogate errors reported for one body: enough to fix it, bounded for a hostile one. */
const MAX_UNPAIRED_SURROGATE_ERRORS = 100;

/** A value met while walking a body: its member name or index, and the value that holds it (null at the root). */
interface BodyNode {
  value: unknown;
  key: string | number | null;
  parent: BodyNode | null;
}

/**
 * The 422 errors of a parsed JSON request body for every string in it, member names included and at any depth,
 * that holds an unpaired surrogate (`hasUnpairedSurrogate`): one error per string (at most
 * `MAX_UNPAIRED_SURROGATE_ERRORS`), `source.pointer` at it (a bad member name is named by its own pointer and its
 * value is not looked into), code `unpaired_surrogate`. Checking the whole document, not chosen fields, is what keeps
 * every string of every body from being stored or echoed corrupted. The walk keeps its own stack and builds a path
 * only for an error, so a body nested a million levels deep costs neither recursion nor a copy of the path per level.
 * @returns `[]` when every string is well-formed.
 */
export function unpairedSurrogateErrors(body: unknown): Omit<ErrorObject, "status" | "title">[] {
  const errors: Omit<ErrorObject, "status" | "title">[] = [];
  const fail = (node: BodyNode, what?: string) => {
    const path: (string | number)[] = [];
    for (let n: BodyNode | null = node; n !== null && n.key !== null; n = n.parent) path.push(n.key);
    path.reverse();
    errors.push({
      detail: `${what ?? fieldName(path)} must not contain an unpaired surrogate (U+D800–U+DFFF without its pair).`,
      source: { pointer: jsonPointer(path) },
      code: UNPAIRED_SURROGATE_CODE,
    });
  };
  const stack: BodyNode[] = [{ value: body, key: null, parent: null }];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (errors.length >= MAX_UNPAIRED_SURROGATE_ERRORS) break;
    const { value } = node;
    if (typeof value === "string") {
      if (hasUnpairedSurrogate(value)) fail(node);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: node });
    } else if (value !== null && typeof value === "object") {
      for (const [key, member] of Object.entries(value).reverse()) {
        const child = { value: member, key, parent: node };
        if (hasUnpairedSurrogate(key)) fail(child, "A member name");
        else stack.push(child);
      }
    }
  }
  return errors.slice(0, MAX_UNPAIRED_SURROGATE_ERRORS);
}

/** The field a path names, as `detail` words it: its last member name (`ref_numbers/1` → `Ref numbers`). */
function fieldName(path: readonly PropertyKey[]): string {
  const named = [...path].reverse().find((p) => typeof p === "string");
  return humanizeField(named === undefined ? "body" : String(named));
}

/** `request_number` → `Request number` (the reference service's Rails-style field names in `detail`). */
export function humanizeField(name: string): string {
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function issueToError(
  issue: z.core.$ZodIssue,
  pointerOf: (path: PropertyKey[]) => ErrorObject["source"],
): Omit<ErrorObject, "status" | "title">[] {
  const path = issue.path;
  const last = path.length > 0 ? String(path[path.length - 1]) : "body";
  const field = humanizeField(last);
  if (issue.code === "custom" && issue.params?.code === CONTROL_CHARACTER_CODE) {
    return [
      {
        // An item of a list (`ref_numbers/1`) is named by its list.
        detail: `${fieldName(path)} must not contain control characters (U+0000–U+001F, U+007F).`,
        source: pointerOf(path),
        code: CONTROL_CHARACTER_CODE,
      },
    ];
  }
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      detail: `${key} is not a known attribute.`,
      source: pointerOf([...path, key]),
      code: "unknown_attribute",
    }));
  }
  if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) {
    return [{ detail: `${field} can't be blank`, source: pointerOf(path), code: "blank" }];
  }
  if (issue.code === "too_small" && issue.origin === "string" && Number(issue.minimum) <= 1) {
    return [{ detail: `${field} can't be blank`, source: pointerOf(path), code: "blank" }];
  }
  if (issue.code === "invalid_value") {
    const values = issue.values.map((v) => String(v)).join(", ");
    return [{ detail: `${field} must be one of: ${values}.`, source: pointerOf(path), code: "invalid" }];
  }
  return [{ detail: `${field}: ${issue.message}`, source: pointerOf(path), code: "invalid" }];
}

/**
 * Turns a failed zod validation into the JSON:API error of its target: body → 422 with one error per issue,
 * each with `source.pointer` (JSON Pointer into the request document) and a `code` (`blank`, `invalid`,
 * `unknown_attribute`, `control_character`); query → 400 with `source.parameter` (docs/decisions.md §Wire format); path
 * → the 404 of an unknown id, whose detail is the issue's message (`pathIdParam` in src/lib/openapi.ts sets it to
 * `Couldn't find <model>`).
 */
export function validationError(error: z.ZodError, target: string): ApiError {
  if (target === "json") {
    const errors = error.issues.flatMap((issue) => issueToError(issue, (path) => ({ pointer: jsonPointer(path) })));
    return new ApiError(422, errors);
  }
  if (target === "param") return ApiError.notFound(error.issues[0]?.message);
  const errors = error.issues.flatMap((issue) =>
    issueToError(issue, (path) => ({ parameter: path.map(String).join(".") || target })),
  );
  return new ApiError(400, errors);
}
