import type { z } from "zod";
import { ApiError, type ErrorObject } from "./errors";

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
 * `unknown_attribute`); query or path → 400 with `source.parameter` (DECISIONS.md §Wire format).
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
  const errors = error.issues.flatMap((issue) =>
    issueToError(issue, (path) => ({ parameter: path.map(String).join(".") || target })),
  );
  return new ApiError(target === "param" ? 404 : 400, errors);
}
