import { expect } from "vitest";
import { type TestWebUser, web } from "./web-session";

/** The `_csrf` hidden input of a rendered dashboard page (what a browser would post back). */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error("no _csrf field on the page");
  return match[1];
}

/** GETs a dashboard page as `user`, expects `status`, and returns its HTML. */
export async function getPage(path: string, user: TestWebUser | null, status = 200): Promise<string> {
  const res = await web(path, { user });
  const html = await res.text();
  expect(res.status, html.slice(0, 500)).toBe(status);
  return html;
}

/**
 * Posts a form as a browser on the page would: the fields (repeat a name with several entries, for checkbox groups)
 * plus the `_csrf` token read from `from` (a page's path), unless `csrf: null` leaves it out.
 */
export async function postForm(
  path: string,
  user: TestWebUser,
  fields: ReadonlyArray<[string, string]> | Record<string, string>,
  options: { from?: string; csrf?: string | null } = {},
): Promise<{ res: Response; html: string }> {
  const form = new URLSearchParams(Array.isArray(fields) ? [...fields] : Object.entries(fields));
  const csrf = options.csrf === undefined ? csrfOf(await getPage(options.from ?? path, user)) : options.csrf;
  if (csrf !== null) form.set("_csrf", csrf);
  const res = await web(path, {
    user,
    body: form.toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  return { res, html: await res.text() };
}

/**
 * The text of the error message the page shows for the control (or fieldset) `id`, when something on the page points
 * at it with aria-describedby (as the forms do); null when there is none.
 */
export function fieldErrorOf(html: string, id: string): string | null {
  const referenced = new RegExp(`aria-describedby="[^"]*${id}-error`).test(html);
  const message = new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(html);
  return referenced && message?.[1] !== undefined ? message[1] : null;
}
