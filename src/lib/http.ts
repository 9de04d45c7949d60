import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { LoadContext } from "./jsonapi/include";

/**
 * The request's query parameters, decoded: `page%5Bsize%5D` arrives as `page[size]`, so the literal and
 * percent-encoded bracket forms are the same thing (DECISIONS.md §Wire format).
 */
export function queryParams(c: Context<AppEnv>): URLSearchParams {
  return new URL(c.req.url).searchParams;
}

/** Loader context of the authenticated account, for serializers and includes. */
export function loadContext(c: Context<AppEnv>): LoadContext {
  return { db: c.var.db, accountId: c.var.principal.accountId };
}

/** The `include` parameter, or `fallback` when the client sent none (an explicit empty value includes nothing). */
export function includeParam(params: URLSearchParams, fallback = ""): string {
  const value = params.get("include");
  return value === null ? fallback : value;
}
