import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { alertRoutes } from "./alerts/routes";
import { apiKeyRoutes } from "./api-keys/routes";
import { callbackRoutes } from "./callbacks/routes";
import { chargeRoutes } from "./charges/routes";
import { containerMapRoutes } from "./containers/map-geojson-routes";
import { containerRoutes } from "./containers/routes";
import { customFieldDefinitionRoutes } from "./custom-fields/definition-routes";
import { customFieldRoutes, entityCustomFieldRoutes } from "./custom-fields/value-routes";
import { dashboardRoutes } from "./dashboard/routes";
import { docsPage } from "./docs/page";
import { emailSubmissionRoutes } from "./documents/email-submission-routes";
import { documentRoutes } from "./documents/routes";
import { documentSettingsRoutes } from "./documents/settings-routes";
import { uploadRoutes } from "./documents/upload-routes";
import type { AppEnv } from "./env";
import { inferRoutes } from "./infer/routes";
import { ApiError, errorDocument } from "./lib/errors";
import { allowedMethods } from "./lib/http-routes";
import { JSON_API_MEDIA_TYPE } from "./lib/jsonapi/document";
import { validationError } from "./lib/validation";
import { metroAreaRoutes } from "./metro-areas/routes";
import { requireApiKey } from "./middleware/auth";
import { jsonBody } from "./middleware/body";
import { rateLimit } from "./middleware/rate-limit";
import { requestId } from "./middleware/request-id";
import { strictQuery } from "./middleware/strict-query";
import { oauthConsentRoutes } from "./oauth/consent-routes";
import { partyRoutes } from "./parties/routes";
import { portRoutes } from "./ports/routes";
import { searchRoutes } from "./search/routes";
import { signInRoutes } from "./sessions/sign-in-routes";
import { shipmentRoutes } from "./shipments/routes";
import { shippingLineRoutes } from "./shipping-lines/routes";
import { tariffRoutes } from "./tariffs/routes";
import { terminalRoutes } from "./terminals/routes";
import { trackingRequestImportRoutes } from "./tracking-request-imports/routes";
import { trackingRequestRoutes } from "./tracking-requests/routes";
import { acceptInvitationPage } from "./users/accept-page";
import { userRoutes } from "./users/routes";
import { futurePositionRoutes } from "./vessels/future-positions-routes";
import { vesselRoutes } from "./vessels/routes";
import { webhookNotificationRoutes } from "./webhook-notifications/routes";
import { webhookRoutes } from "./webhooks/routes";

/** Paths under /v2 that need no API key and draw from no rate bucket. */
const PUBLIC_V2_PATHS = new Set(["/v2/health", "/v2/openapi.json"]);

function errorResponse(err: ApiError, requestIdValue: string | undefined): Response {
  const headers = new Headers({ "Content-Type": JSON_API_MEDIA_TYPE, ...err.headers });
  if (requestIdValue) headers.set("X-Request-Id", requestIdValue);
  return new Response(JSON.stringify(errorDocument(err)), { status: err.status, headers });
}

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["Service"],
  summary: "Liveness (no auth, no rate limit)",
  description: "Answers without touching D1 or Durable Objects; the benchmarks use it as their baseline.",
  security: [],
  responses: {
    200: {
      description: "The service is up.",
      content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } },
    },
  },
});

/**
 * Builds the Worker's HTTP app (docs/architecture.md §Overview): request id → auth → rate limit → body guard → routes,
 * with one error path turning every failure into a JSON:API error (docs/architecture.md §One error path).
 */
export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });

  app.use("*", requestId);
  app.get("/health", (c) => c.json({ status: "ok" }));
  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
  // Upstream push callbacks (issue 13 §4): outside /v2, no API key; each body is signed by the upstream.
  app.route("/callbacks", callbackRoutes);
  // The document upload flow's routes outside /v2 (docs/api.md §Documents): the reference's direct-upload path (API
  // key) and the signed upload and download URLs (the token is the credential).
  app.route("/", uploadRoutes);

  const v2 = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });
  v2.use("*", async (c, next) => {
    if (PUBLIC_V2_PATHS.has(c.req.path)) return next();
    return requireApiKey(c, next);
  });
  v2.use("*", async (c, next) => {
    if (PUBLIC_V2_PATHS.has(c.req.path)) return next();
    return rateLimit(c, next);
  });
  // After auth and rate limit (an unknown parameter costs a request like any other), before the body is read.
  v2.use(
    "*",
    strictQuery(() => v2.openAPIRegistry.definitions, "/v2"),
  );
  v2.use("*", jsonBody);
  // Registered through the OpenAPI registry so that /v2/openapi.json lists it (it answers without a key).
  v2.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
  // Before the tracking request routes so that /tracking_requests/infer_number is never read as an {id}.
  v2.route("/", inferRoutes);
  v2.route("/", trackingRequestRoutes);
  v2.route("/", trackingRequestImportRoutes);
  v2.route("/", shipmentRoutes);
  v2.route("/", containerRoutes);
  v2.route("/", containerMapRoutes);
  v2.route("/", shippingLineRoutes);
  v2.route("/", terminalRoutes);
  v2.route("/", portRoutes);
  v2.route("/", metroAreaRoutes);
  v2.route("/", partyRoutes);
  // Registers /documents/types before /documents/{id}.
  v2.route("/", documentRoutes);
  v2.route("/", emailSubmissionRoutes);
  v2.route("/", documentSettingsRoutes);
  v2.route("/", vesselRoutes);
  // /vessels/{id}/future_positions…: literal last segments, so no clash with /vessels/{key} in any order.
  v2.route("/", futurePositionRoutes);
  v2.route("/", searchRoutes);
  v2.route("/", customFieldDefinitionRoutes);
  v2.route("/", customFieldRoutes);
  v2.route("/", entityCustomFieldRoutes);
  v2.route("/", tariffRoutes);
  v2.route("/", chargeRoutes);
  // Each registers its fixed paths (/webhooks/events, /webhooks/trigger, /webhook_notifications/examples) before {id}.
  v2.route("/", webhookRoutes);
  v2.route("/", webhookNotificationRoutes);
  v2.route("/", alertRoutes);
  v2.route("/", userRoutes);
  v2.route("/", apiKeyRoutes);
  v2.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description: "`Token <API key>` (or `Bearer <API key>`).",
  });
  v2.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Container Tracking Service API",
      version: "0.2.0",
      description:
        "Track ocean shipments and containers: JSON:API documents, per-account API keys (`Authorization: Token <key>`), rolling 60-second rate limits.",
    },
    servers: [{ url: `${new URL(c.req.url).origin}/v2` }],
    security: [{ apiKey: [] }],
  }));
  app.route("/v2", v2);
  // The API reference page; its script is a static asset (public/docs/assets/, issue 11 §4).
  app.get("/docs", docsPage);
  // The web dashboard (issue 28): sign-in pages and /app, on sessions in cookies (src/sessions/), never API keys.
  app.route("/", signInRoutes);
  app.route("/app", dashboardRoutes);
  app.route("/invitations", acceptInvitationPage);
  // OAuth for MCP's consent page (src/oauth/consent-routes.tsx; 404 unless MCP_OAUTH is on).
  app.route("/oauth", oauthConsentRoutes);
  app.get("/", (c) => c.redirect("/app/containers", 303));

  // A known path with a method it does not have → 405 with `Allow` (RFC 9110 §15.5.6); OPTIONS on a known path → 204
  // with `Allow` (RFC 9110 §9.3.7; no CORS: the API is not called from browsers). Unknown paths stay 404.
  app.notFound((c) => {
    const allow = allowedMethods(app.router, c.req.path);
    if (allow.length === 0) return errorResponse(ApiError.notFound("No route matches this path."), c.get("requestId"));
    if (c.req.method === "OPTIONS") return c.body(null, 204, { Allow: allow.join(", ") });
    const detail = `${c.req.method} is not allowed on this path; allowed: ${allow.join(", ")}.`;
    return errorResponse(new ApiError(405, [{ detail }], { Allow: allow.join(", ") }), c.get("requestId"));
  });
  app.onError((err, c) => {
    const id = c.get("requestId");
    if (err instanceof ApiError) return errorResponse(err, id);
    if (err instanceof HTTPException) {
      const status = err.status >= 400 && err.status < 500 ? err.status : 400;
      return errorResponse(new ApiError(status, [{ detail: err.message || "Bad request." }]), id);
    }
    console.error(JSON.stringify({ level: "error", requestId: id, message: String(err), stack: (err as Error).stack }));
    return errorResponse(new ApiError(500, [{ detail: `Internal error; request id ${id}.` }]), id);
  });
  return app;
}
