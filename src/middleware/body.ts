import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { BODY_TOO_LARGE, readBodyUpTo } from "../lib/request-body";
import { unpairedSurrogateErrors } from "../lib/validation";

/** Largest request body accepted (docs/decisions.md §Wire format: 413 over 1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

const JSON_MEDIA_TYPES = new Set(["application/json", "application/vnd.api+json"]);

/**
 * Routes that also take files (docs/api.md §Tracking request imports): a non-JSON body passes to the route, which
 * reads it with its own limit and media types (src/tracking-request-imports/routes.ts `importFromRequest`).
 */
const FILE_BODY_PATHS = new Set(["/v2/tracking_request_imports"]);

/**
 * Guards request bodies of POST/PATCH/PUT before any handler reads them: a body must be JSON
 * (`application/json` or `application/vnd.api+json`, else 415), at most 1 MiB (else 413), parse
 * (else 400) and hold no string with an unpaired surrogate (else 422 with the pointer of each,
 * `unpairedSurrogateErrors`, issue 23 §6). Bodiless PATCH actions (refresh, stop/resume tracking) pass with no body,
 * with or without a JSON content type.
 * The body's text is left in Hono's body cache for the validators and handlers (`c.req.json()`, `c.req.text()`).
 */
export const jsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const method = c.req.method;
  if (method !== "POST" && method !== "PATCH" && method !== "PUT") return next();
  const contentType = c.req.header("content-type");
  if (FILE_BODY_PATHS.has(c.req.path) && !JSON_MEDIA_TYPES.has(mediaTypeOf(contentType))) return next();
  // Read once, here: Hono's readers (`c.req.json()`, `c.req.text()`, the route validators) answer from this text
  // (its body cache holds promises, whatever its type says), so the body is neither cloned nor read twice.
  const raw = c.req.raw.body ? await readText(c.req.raw) : "";
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(raw);
  if (raw.trim() === "" && !contentType) return next();
  const mediaType = mediaTypeOf(contentType);
  if (!JSON_MEDIA_TYPES.has(mediaType)) {
    throw new ApiError(415, [{ detail: "Request body must be application/json or application/vnd.api+json." }]);
  }
  if (raw.trim() === "") {
    // An empty JSON body is no body: bodiless actions (refresh, stop/resume tracking) then work whatever
    // Content-Type the client sends, and a create without a body reports its missing fields as 422s.
    const headers = new Headers(c.req.raw.headers);
    headers.delete("content-type");
    headers.delete("content-length");
    c.req.raw = new Request(c.req.raw.url, { method: method, headers });
    return next();
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ApiError(400, [{ detail: "Request body is not valid JSON.", source: { pointer: "" } }]);
  }
  const malformed = unpairedSurrogateErrors(parsed);
  if (malformed.length > 0) throw new ApiError(422, malformed);
  await next();
};

/** The body as UTF-8 text: 413 past {@link MAX_BODY_BYTES} (declared or streamed), 400 when not UTF-8. */
async function readText(request: Request): Promise<string> {
  const bytes = await readBodyUpTo(request, MAX_BODY_BYTES);
  if (bytes === BODY_TOO_LARGE) {
    throw new ApiError(413, [{ detail: `Request body must be at most ${MAX_BODY_BYTES} bytes.` }]);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError(400, [{ detail: "Request body is not valid UTF-8." }]);
  }
}

function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}
