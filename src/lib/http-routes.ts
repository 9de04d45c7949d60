import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import type { Router } from "hono/router";
import type { H, RouterRoute } from "hono/types";
import { ApiError, type ErrorObject } from "./errors";

/** The methods a route can be registered with, in the order an `Allow` header lists them (RFC 9110 §10.2.1). */
const ROUTE_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Hono's method name of a middleware registered with `use()`: it matches every method and is no operation. */
const ANY_METHOD = "ALL";

/**
 * The methods a path answers, for `Allow` (RFC 9110 §15.5.6: a 405 must list them): every method with a route (not a
 * middleware) matching `path`, `HEAD` wherever `GET` is (Hono answers HEAD with the GET route minus the body), and
 * `OPTIONS` when the path has any method, since the app answers `OPTIONS` on a known path with 204 and this header.
 * @returns the methods in `ROUTE_METHODS` order then `OPTIONS`; empty when no route has this path (a 404).
 */
export function allowedMethods(router: Router<[H, RouterRoute]>, path: string): string[] {
  const allowed = new Set<string>();
  for (const method of ROUTE_METHODS) {
    if (method === "HEAD") continue;
    const [matches] = router.match(method, path);
    if (matches.some(([[, route]]) => route.method === method)) allowed.add(method);
  }
  if (allowed.has("GET")) allowed.add("HEAD");
  if (allowed.size === 0) return [];
  return [...ROUTE_METHODS.filter((m) => allowed.has(m)), "OPTIONS"];
}

/** A route definition as the OpenAPI registry of `@hono/zod-openapi` keeps it (only what is read here). */
export interface RegisteredRoute {
  method: string;
  path: string;
  request?: { query?: unknown };
}

/**
 * The query parameters each operation declares, keyed `METHOD path` with the path in Hono's form and prefixed with
 * `basePath` (`GET /v2/containers/:id`), as `@hono/zod-openapi` registers it. A route whose query schema is not a zod
 * object (none is, today) maps to `undefined`: its parameters are not checked.
 */
export function declaredQueryParameters(
  routes: readonly RegisteredRoute[],
  basePath: string,
): Map<string, ReadonlySet<string> | undefined> {
  const declared = new Map<string, ReadonlySet<string> | undefined>();
  for (const route of routes) {
    // The same conversion @hono/zod-openapi applies when it registers the route with Hono.
    const path = `${basePath}${route.path.replaceAll(/\/{(.+?)}/g, "/:$1")}`;
    const query = route.request?.query;
    const names =
      query === undefined
        ? new Set<string>()
        : query instanceof z.ZodObject
          ? new Set(Object.keys(query.shape))
          : undefined;
    declared.set(`${route.method.toUpperCase()} ${path}`, names);
  }
  return declared;
}

/**
 * The `METHOD path` key of the operation that will answer the request (the first route matched that is not a
 * middleware), or undefined when none will (the request ends in a 404 or 405). Only valid inside a handler chain.
 */
export function matchedOperation(c: Context): string | undefined {
  const route = matchedRoutes(c).find((r) => r.method !== ANY_METHOD);
  return route ? `${route.method} ${route.path}` : undefined;
}

/**
 * Refuses query parameters the operation does not declare, and declared ones given more than once (which of the
 * values would count is not guessed): one error per parameter, each with `source.parameter` naming it exactly as
 * decoded (`filter%5Bx%5D` → `filter[x]`) and a `code` (`unknown_parameter`, `duplicate_parameter`). JSON:API 1.1
 * §Query Parameters: a server that does not support `sort` must answer 400; the same for `fields[...]` and any
 * filter or operator (`filter[number][eq]`) it does not have. docs/decisions.md §Wire format (changed 2026-11-25).
 * @throws ApiError 400 listing every offending parameter.
 */
export function checkQueryParameters(params: URLSearchParams, declared: ReadonlySet<string>): void {
  const errors: Omit<ErrorObject, "status" | "title">[] = [];
  const seen = new Set<string>();
  const reported = new Set<string>();
  for (const name of params.keys()) {
    if (reported.has(name)) continue;
    if (!declared.has(name)) {
      reported.add(name);
      errors.push({ detail: unknownDetail(name, declared), source: { parameter: name }, code: "unknown_parameter" });
    } else if (seen.has(name)) {
      reported.add(name);
      errors.push({
        detail: `${name} is given more than once.`,
        source: { parameter: name },
        code: "duplicate_parameter",
      });
    }
    seen.add(name);
  }
  if (errors.length > 0) throw new ApiError(400, errors);
}

function unknownDetail(name: string, declared: ReadonlySet<string>): string {
  const known = [...declared];
  if (name === "sort") return "sort is not supported: every list has a fixed order (newest first).";
  if (name.startsWith("fields[")) return `${name}: sparse fieldsets (fields[...]) are not supported.`;
  if (name.startsWith("filter[")) {
    const filters = known.filter((k) => k.startsWith("filter[") || k === "number" || k === "search");
    return filters.length === 0
      ? `${name}: this endpoint has no filters.`
      : `${name} is not a filter of this endpoint. Filters: ${filters.join(", ")}.`;
  }
  return known.length === 0
    ? `${name}: this endpoint takes no query parameters.`
    : `${name} is not a query parameter of this endpoint. Parameters: ${known.join(", ")}.`;
}
