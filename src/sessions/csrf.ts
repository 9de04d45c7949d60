import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";

/** Name of the form field (or the `X-CSRF-Token` header, for scripts on the page) that carries the CSRF token. */
export const CSRF_FIELD = "_csrf";

/** Methods that change nothing and need no token (RFC 9110 §9.2.1 safe methods). */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a state-changing request comes from a page of this origin (OWASP CSRF Prevention Cheat Sheet, "Verifying
 * Origin with standard headers" and Fetch Metadata): `Sec-Fetch-Site` when the browser sends it (`same-origin` only),
 * else `Origin` equal to the request's own origin. A request with neither is refused.
 */
export function isSameOriginRequest(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site) return site === "same-origin";
  const origin = request.headers.get("origin");
  return origin !== null && origin === new URL(request.url).origin;
}

/**
 * CSRF protection of the dashboard's state-changing requests (after `requireSignedIn`): same origin
 * ({@link isSameOriginRequest}) and the session's synchronizer token (`csrfToken` of the signed-in user, OWASP
 * "Synchronizer Token Pattern") in the `_csrf` form field or the `X-CSRF-Token` header. Failing either: 403, nothing
 * done. Reads the form body with Hono's parser, so handlers read it again from the cache (`c.req.parseBody()`).
 */
export const verifyCsrf: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (SAFE_METHODS.has(c.req.method)) return next();
  if (!isSameOriginRequest(c.req.raw)) throw new ApiError(403, [{ detail: "Cross-site request refused." }]);
  const user = c.get("user");
  let token = c.req.header("x-csrf-token") ?? null;
  if (!token) {
    const type = c.req.header("content-type") ?? "";
    if (type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")) {
      // A body that does not parse (a multipart without its boundary …) carries no token: 403, never a 500.
      const field = await c.req.parseBody().then(
        (body) => body[CSRF_FIELD],
        () => undefined,
      );
      token = typeof field === "string" ? field : null;
    }
  }
  if (!user || !token || !timingSafeEqual(token, user.csrfToken)) {
    throw new ApiError(403, [{ detail: "The form is out of date or not from this site; reload the page and retry." }]);
  }
  await next();
};

/** Constant-time comparison of two strings (both ASCII tokens). */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
