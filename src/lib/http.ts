import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { LoadContext } from "./jsonapi/include";

/** The query parameters already parsed for a request (`queryParams`), so a request parses its URL once. */
const parsedQueries = new WeakMap<Request, URLSearchParams>();

/**
 * The request's query parameters, decoded: `page%5Bsize%5D` arrives as `page[size]`, so the literal and
 * percent-encoded bracket forms are the same thing (docs/decisions.md §Wire format). Parsed once per request and shared
 * by every caller (the strict-query check, the handler): callers must treat the result as read-only.
 */
export function queryParams(c: Context<AppEnv>): URLSearchParams {
  const request = c.req.raw;
  let params = parsedQueries.get(request);
  if (!params) {
    params = new URL(c.req.url).searchParams;
    parsedQueries.set(request, params);
  }
  return params;
}

/**
 * The request's execution context (for `waitUntil`), or undefined when the app was called without one (tests calling
 * `app.request`): Hono's `c.executionCtx` throws then.
 */
export function executionContextOf(c: Context<AppEnv>): Pick<ExecutionContext, "waitUntil"> | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/**
 * Loader context of the authenticated account, for serializers and includes. Reads the variables with `c.get`:
 * Hono's `c.var` copies every variable of the request into a new object on each access.
 */
export function loadContext(c: Context<AppEnv>): LoadContext {
  return { db: c.get("db"), accountId: c.get("principal").accountId };
}

/**
 * {@link loadContext} over the primary database (`DB`), for the resources that live only there whatever the account's
 * shard (docs/SCALING.md §Shards): users, invitations and API keys. Account rows (containers, webhooks, …) go through
 * {@link loadContext}, whose `db` is the account's shard.
 */
export function primaryContext(c: Context<AppEnv>): LoadContext {
  return { db: c.get("primaryDb"), accountId: c.get("principal").accountId };
}

/** The `include` parameter, or `fallback` when the client sent none (an explicit empty value includes nothing). */
export function includeParam(params: URLSearchParams, fallback = ""): string {
  const value = params.get("include");
  return value === null ? fallback : value;
}
