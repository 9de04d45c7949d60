/**
 * Content-Security-Policy of every dashboard page (CSP Level 3; issue 28: "strict CSP as /docs", nothing from a CDN).
 * Scripts, styles, fetches, images and fonts come only from this origin: no inline script or style, no eval; forms post
 * only here; `worker-src 'self' blob:` for the map's tile worker; the page cannot be framed.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Headers of every dashboard HTML response: the policy above, `nosniff`, no Referer beyond this origin, no framing,
 * its own browsing context group, and `no-store` (pages show an account's data; nothing is kept in shared caches or
 * the back/forward cache after sign-out).
 */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": DASHBOARD_CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cache-Control": "no-store",
};
