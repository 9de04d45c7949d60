import type { Context } from "hono";
import type { AppEnv } from "../env";
import scalarAsset from "./scalar-asset.json";

/**
 * Path of the pinned Scalar API reference build, served by Workers static assets ([assets] in wrangler.toml) from
 * public/docs/assets/, where `npm run docs:assets` (scripts/docs-assets.mjs) copies it from the npm package at the
 * version pinned in src/docs/scalar-asset.json. The version in the name lets browsers cache it for a year.
 */
export const SCALAR_SCRIPT_PATH = `/docs/assets/scalar-api-reference-${scalarAsset.version}.js`;

/** Subresource Integrity of that script (`sha384-<base64>`), pinned with its version (W3C SRI). */
export const SCALAR_SCRIPT_INTEGRITY = scalarAsset.integrity;

/** Path of the OpenAPI document the page renders. */
const OPENAPI_PATH = "/v2/openapi.json";

/**
 * Scalar's configuration (read by its standalone build from `data-configuration`, so the page has no inline script):
 * nothing may reach another origin. `withDefaultFonts: false`: no fonts from fonts.scalar.com (system fonts);
 * `telemetry: false`; `agent` and `mcp` disabled: no "Ask AI" panel (api.scalar.com) and no "Generate MCP" link;
 * `showDeveloperTools: "never"` and `hideClientButton`: no toolbar or "Open API Client" button leading to Scalar's
 * hosted services (client.scalar.com), where a user would type the API key next; `proxyUrl: ""`: "Test request" in
 * the page goes straight to this origin, never through proxy.scalar.com (which would see the key).
 */
const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  hideClientButton: true,
  proxyUrl: "",
};

/**
 * Content-Security-Policy of /docs (CSP Level 3). Scripts come only from this origin (the pinned Scalar build; no
 * inline script, no eval), and so do fetches, images (plus `data:` icons) and fonts; nothing else is allowed
 * (`default-src 'none'`). Styles allow 'unsafe-inline': Scalar adds `<style>` elements without a nonce and sets
 * `style` attributes, which neither a nonce nor a hash can cover; a style cannot run script. `frame-ancestors 'none'`:
 * the page, where users type API keys, cannot be framed (clickjacking).
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Response headers of /docs besides its type: the policy above, `nosniff`, no Referer to anywhere (the page's
 * URL could carry a fragment a user pasted), `X-Frame-Options` for browsers without `frame-ancestors`, and its own
 * browsing context group. `no-cache`: revalidated, so a new Scalar version (a new script name) shows at once.
 */
export const DOCS_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": DOCS_CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cache-Control": "no-cache",
};

/** Escapes text for an HTML attribute value in double quotes. */
function escapeAttribute(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * The HTML of the API reference page: Scalar's standalone build (local, with its integrity hash) rendering
 * /v2/openapi.json, configured through data attributes (Scalar's HTML API: `<script id="api-reference">`).
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Container Tracking Service API</title>
</head>
<body>
<script id="api-reference" data-url="${OPENAPI_PATH}" data-configuration="${escapeAttribute(JSON.stringify(SCALAR_CONFIGURATION))}"></script>
<script src="${SCALAR_SCRIPT_PATH}" integrity="${SCALAR_SCRIPT_INTEGRITY}"></script>
</body>
</html>
`;

/**
 * GET /docs: the API reference page (issue 11 §4), self-contained (nothing from a CDN; the script is a static
 * asset) under {@link DOCS_HEADERS}.
 */
export function docsPage(c: Context<AppEnv>): Response {
  return c.html(DOCS_HTML, 200, DOCS_HEADERS);
}
