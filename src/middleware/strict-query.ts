import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { queryParams } from "../lib/http";
import {
  checkQueryParameters,
  declaredQueryParameters,
  matchedOperation,
  type RegisteredRoute,
} from "../lib/http-routes";

/** The registry entries the check reads: `@hono/zod-openapi`'s `openAPIRegistry.definitions`. */
export type RouteDefinitions = readonly ({ type: "route"; route: RegisteredRoute } | { type: string })[];

/**
 * Refuses query parameters the matched operation does not declare in its OpenAPI query schema (issue 11 §2,
 * docs/decisions.md §Wire format): unknown parameters and `filter[...]` keys, `sort`, `fields[...]`, `include[]`,
 * operators such as `filter[number][eq]`, and a declared parameter given twice → 400 with `source.parameter` (see
 * `checkQueryParameters`). One check for every route: the allow-list is each route's declared query schema, read from
 * `definitions` (the app's OpenAPI registry) on the first request, so a new route is covered as soon as it is
 * registered with `openapi()`; an operation without a query schema takes no parameters. Requests no registered
 * operation answers (a 404 or 405, `/v2/openapi.json`) pass unchecked.
 * @param basePath where the app whose registry this is is mounted (`/v2`).
 */
export function strictQuery(definitions: () => RouteDefinitions, basePath: string): MiddlewareHandler<AppEnv> {
  let declared: ReturnType<typeof declaredQueryParameters> | undefined;
  return async (c, next) => {
    if (!c.req.url.includes("?")) return next();
    const operation = matchedOperation(c);
    if (operation === undefined) return next();
    declared ??= declaredQueryParameters(
      definitions().flatMap((d) => ("route" in d ? [d.route] : [])),
      basePath,
    );
    const names = declared.get(operation);
    if (names !== undefined) checkQueryParameters(queryParams(c), names);
    return next();
  };
}
