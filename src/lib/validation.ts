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
 * A free-text string of a request body (reference numbers, tags, company names, webhook URLs and header values): at
 * most `maxLength` characters and no control character (`hasControlCharacter`). The one refinement every free-text
 * field uses; a violation is a 422 with the field's `source.pointer` and code `control_character`.
 */
export function freeText(maxLength: number) {
  return z
    .string()
    .max(maxLength)
    .refine((value) => !hasControlCharacter(value), {
      error: "must not contain control characters (U+0000–U+001F, U+007F)",
      params: { code: CONTROL_CHARACTER_CODE },
    });
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
    // An item of a list (`ref_numbers/1`) is named by its list.
    const named = [...path].reverse().find((p) => typeof p === "string");
    const name = humanizeField(named === undefined ? "body" : String(named));
    return [
      {
        detail: `${name} must not contain control characters (U+0000–U+001F, U+007F).`,
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
 * `unknown_attribute`, `control_character`); query → 400 with `source.parameter` (DECISIONS.md §Wire format); path →
 * the 404 of an unknown id, whose detail is the issue's message (`pathIdParam` in src/lib/openapi.ts sets it to
 * `Couldn't find <model>`).
 */
export function validationError(error: z.ZodError, target: string): ApiError {
  if (target === "json") {
    const errors = error.issues.flatMap((issue) =>
      issueToError(issue, (path) => ({
        // RFC 6901: the whole document is "", while "/" would name a member with an empty key.
        pointer: path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join(""),
      })),
    );
    return new ApiError(422, errors);
  }
  if (target === "param") return ApiError.notFound(error.issues[0]?.message);
  const errors = error.issues.flatMap((issue) =>
    issueToError(issue, (path) => ({ parameter: path.map(String).join(".") || target })),
  );
  return new ApiError(400, errors);
}
