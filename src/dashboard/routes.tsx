import { Hono } from "hono";
import type { AppEnv } from "../env";
import { accountRoutes } from "../sessions/account-page";
import { verifyCsrf } from "../sessions/csrf";
import { requireSignedIn } from "../sessions/session";
import { alertPages } from "./alerts-page";
import { apiKeysPage } from "./api-keys-page";
import { connectionsRoutes } from "./connections-page";
import { containerPageRoutes } from "./container-page";
import { containersPageRoutes } from "./containers-page";
import { DASHBOARD_HEADERS } from "./headers";
import { tariffPages } from "./tariffs-page";
import { teamPage } from "./team-page";
import { trackRoutes } from "./track-page";
import { webhookPages } from "./webhooks-page";

/**
 * The dashboard under /app (issue 28; docs/dashboard.md): server-rendered pages (Hono JSX) reading through the same
 * services as REST and MCP, for the signed-in user's account. Every route needs a session (`requireSignedIn`: a page
 * request without one goes to /sign-in), every state-changing request a CSRF token (`verifyCsrf`), and every response
 * carries DASHBOARD_HEADERS. Each page's routes live beside it (src/dashboard/*-page.tsx) and are mounted here.
 */
export const dashboardRoutes = new Hono<AppEnv>();

dashboardRoutes.use("*", async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) {
    if (!c.res.headers.has(name)) c.res.headers.set(name, value);
  }
});
dashboardRoutes.use("*", requireSignedIn);
dashboardRoutes.use("*", verifyCsrf);
dashboardRoutes.get("/", (c) => c.redirect("/app/containers", 303));
dashboardRoutes.route("/account/connections", connectionsRoutes);
dashboardRoutes.route("/account", accountRoutes);
dashboardRoutes.route("/settings/team", teamPage);
dashboardRoutes.route("/settings/api-keys", apiKeysPage);
dashboardRoutes.route("/settings/webhooks", webhookPages);
dashboardRoutes.route("/settings/alerts", alertPages);
dashboardRoutes.route("/settings/tariffs", tariffPages);
dashboardRoutes.route("/", containerPageRoutes);
dashboardRoutes.route("/", containersPageRoutes);
dashboardRoutes.route("/", trackRoutes);
