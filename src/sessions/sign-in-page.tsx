import { Layout } from "../dashboard/layout";
import { CSRF_FIELD } from "./csrf";
import { DEFAULT_AFTER_SIGN_IN, SIGN_IN_LINK_TTL_MS } from "./sign-in-links";

/**
 * The pages of signing in and out (issue 28; docs/dashboard.md §Signing in), rendered with the dashboard's `Layout`
 * with no user (no navigation). Every form posts to this origin with the pre-session CSRF token
 * (src/sessions/sign-in-guard.ts). Text is escaped by Hono JSX; nothing here uses raw HTML.
 */

/** The hidden fields of a pre-session form: the CSRF token and, when not the default, where to go after. */
function HiddenFields({ csrf, next }: { csrf: string; next: string }) {
  return (
    <>
      <input type="hidden" name={CSRF_FIELD} value={csrf} />
      {next !== DEFAULT_AFTER_SIGN_IN ? <input type="hidden" name="next" value={next} /> : null}
    </>
  );
}

/** GET /sign-in: the e-mail form; with `error`, the message beside the field (`aria-describedby`). */
export function SignInPage({
  csrf,
  next,
  email = "",
  error,
}: {
  csrf: string;
  next: string;
  email?: string;
  error?: string;
}) {
  return (
    <Layout title="Sign in" user={null}>
      <p>Enter the e-mail address of your account; we will send you a link that signs you in.</p>
      <form method="post" action="/sign-in" class="sign-in-form">
        <HiddenFields csrf={csrf} next={next} />
        <p>
          <label for="email">E-mail address</label>
          <br />
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="email"
            required
            maxlength={254}
            value={email}
            aria-invalid={error ? "true" : undefined}
            aria-describedby={error ? "email-error" : undefined}
          />
        </p>
        {error ? (
          <p id="email-error" class="field-error" role="alert">
            {error}
          </p>
        ) : null}
        <p>
          <button type="submit">Send sign-in link</button>
        </p>
      </form>
    </Layout>
  );
}

/** GET /sign-in/sent: the same words whether or not the address is known. */
export function SignInSentPage() {
  const minutes = Math.round(SIGN_IN_LINK_TTL_MS / 60_000);
  return (
    <Layout title="Check your e-mail" user={null}>
      <p>
        If that address belongs to an account, a sign-in link is on its way. It works once, within {minutes} minutes.
      </p>
      <p>
        Nothing arrived? Check your spam folder, or <a href="/sign-in">ask for a new link</a>.
      </p>
    </Layout>
  );
}

/** GET /sign-in/link: who the link signs in, and the button that does it (a GET consumes nothing). */
export function SignInLinkPage({
  csrf,
  next,
  token,
  email,
}: {
  csrf: string;
  next: string;
  token: string;
  email: string;
}) {
  return (
    <Layout title="Sign in" user={null}>
      <form method="post" action="/sign-in/link">
        <HiddenFields csrf={csrf} next={next} />
        <input type="hidden" name="token" value={token} />
        <p>
          <button type="submit">Sign in as {email}</button>
        </p>
      </form>
    </Layout>
  );
}

/** A problem before sign-in (used, expired or unknown link; a form out of date; too many requests): 4xx. */
export function SignInProblemPage({ title, message }: { title: string; message: string }) {
  return (
    <Layout title={title} user={null}>
      <p role="alert">{message}</p>
      <p>
        <a href="/sign-in">Ask for a new sign-in link</a>
      </p>
    </Layout>
  );
}
