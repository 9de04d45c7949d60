import type { Context, MiddlewareHandler } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { AppEnv, SignedInUser } from "../env";
import { ApiError } from "../lib/errors";
import { DASHBOARD_HEADERS } from "./headers";
import { Layout } from "./layout";

/**
 * Page responses of the dashboard: a rendered page as a standards-mode HTML document, and 4xx errors of page routes
 * as readable HTML pages that keep their status (issue 28 page conventions: "a 4xx renders a readable HTML message").
 */

/** The statuses a page answers with: success, a created resource, and the 4xx a page shows. */
export type PageStatus = 200 | 201 | 400 | 403 | 404 | 409 | 422;

/** Sends a page (a `<Layout>` element) as `<!DOCTYPE html>` HTML with `status` and the dashboard's headers. */
export async function renderPage(c: Context<AppEnv>, page: JSX.Element, status: PageStatus = 200) {
  const html = `<!DOCTYPE html>${await page.toString()}`;
  const res = c.html(html, status);
  for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) res.headers.set(name, value);
  return res;
}

/** A page's headline for an error status. */
function headline(status: number): string {
  if (status === 403) return "Not allowed";
  if (status === 404) return "Not found";
  if (status === 401) return "Sign in first";
  return "That did not work";
}

/** The page shown for a 4xx of a page route: a heading, the reason in words, and a way on. */
export function ErrorPage({ status, detail, user }: { status: number; detail: string; user: SignedInUser | null }) {
  return (
    <Layout title={headline(status)} user={user}>
      <p role="alert">{detail}</p>
      <p>
        <a href={user ? "/app/containers" : "/sign-in"}>{user ? "Back to the containers" : "Sign in"}</a>
      </p>
    </Layout>
  );
}

/**
 * Middleware of page routes: a 4xx `ApiError` thrown by a page handler (404 for another account's id, 403 for a
 * role, 400 for a used link, 422 …) becomes the HTML {@link ErrorPage} with the same status instead of a JSON:API
 * error document. 5xx and other errors are left to the app's error path.
 */
export const htmlErrors: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const err = c.error;
  if (!(err instanceof ApiError) || err.status >= 500) return;
  const detail = err.errors.map((e) => e.detail ?? "").join(" ") || headline(err.status);
  const status = err.status as 400 | 403 | 404 | 422;
  c.res = undefined;
  c.res = await renderPage(c, <ErrorPage status={err.status} detail={detail} user={c.get("user") ?? null} />, status);
};
