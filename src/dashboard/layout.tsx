import type { Child } from "hono/jsx";
import type { SignedInUser } from "../env";
import { CSRF_FIELD } from "../sessions/csrf";

/** Where the dashboard's static files are served from (public/app/assets/, Workers static assets). */
export const DASHBOARD_ASSETS = "/app/assets";

/** The navigation: path and label, in the order shown. */
export const DASHBOARD_NAV: ReadonlyArray<{ path: string; label: string }> = [
  { path: "/app/containers", label: "Containers" },
  { path: "/app/track", label: "Track" },
  { path: "/app/settings/webhooks", label: "Webhooks" },
  { path: "/app/settings/alerts", label: "Alerts" },
  { path: "/app/settings/tariffs", label: "Tariffs" },
  { path: "/app/settings/api-keys", label: "API keys" },
  { path: "/app/settings/team", label: "Team" },
];

/** The hidden CSRF field every state-changing form carries (src/sessions/csrf.ts `verifyCsrf`). */
export function CsrfField({ user }: { user: SignedInUser }) {
  return <input type="hidden" name={CSRF_FIELD} value={user.csrfToken} />;
}

/** Props of {@link Layout}. */
export interface LayoutProps {
  /** The page's title (shown in the tab and as the page's `<h1>`). */
  title: string;
  /** The signed-in user; null on the sign-in pages. */
  user: SignedInUser | null;
  /** Path of the current page, marked `aria-current` in the navigation. */
  current?: string;
  /** Module scripts of the page's islands, under {@link DASHBOARD_ASSETS}. */
  scripts?: string[];
  /** The page's own style sheets, under {@link DASHBOARD_ASSETS}, linked after app.css. */
  styles?: string[];
  children?: Child;
}

/**
 * The page shell of every dashboard page: skip link, header with navigation and the user's sign-out form, `<main>`
 * with the title. Accessible by construction (landmarks, one `<h1>`, a skip link, `aria-current`); no inline script
 * or style (DASHBOARD_CONTENT_SECURITY_POLICY).
 */
export function Layout({ title, user, current, scripts = [], styles = [], children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Container tracking`}</title>
        <link rel="stylesheet" href={`${DASHBOARD_ASSETS}/app.css`} />
        {styles.map((href) => (
          <link rel="stylesheet" href={`${DASHBOARD_ASSETS}/${href}`} />
        ))}
        {scripts.map((src) => (
          <script type="module" src={`${DASHBOARD_ASSETS}/${src}`} />
        ))}
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="site-header">
          <a class="brand" href="/app/containers">
            Container tracking
          </a>
          {user ? (
            <nav aria-label="Main">
              <ul>
                {DASHBOARD_NAV.map((item) => (
                  <li>
                    <a href={item.path} aria-current={current === item.path ? "page" : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
          {user ? (
            <form class="sign-out" method="post" action="/sign-out">
              <CsrfField user={user} />
              <span class="user-email">{user.email}</span>
              <button type="submit">Sign out</button>
            </form>
          ) : null}
        </header>
        <main id="main">
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}
