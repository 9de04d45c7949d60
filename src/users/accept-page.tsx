import { Hono } from "hono";
import { Layout } from "../dashboard/layout";
import { htmlErrors, renderPage } from "../dashboard/page-response";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { isSameOriginRequest } from "../sessions/csrf";
import { createSession, revokeSession, setSessionCookie, signedInUserOf } from "../sessions/session";
import { acceptInvitation, invitationByToken, unusableInvitation } from "./invitations";
import { MAX_USER_NAME_LENGTH } from "./schemas";

/**
 * The invitation link's page, `/invitations/accept?token=…` (issue 28 URL map): GET shows the invitation (account,
 * role, address) with an "Accept and sign in" form; its POST (same origin only, `isSameOriginRequest`: there is no
 * session yet, so no synchronizer token) accepts it (`acceptInvitation`), ends any session the browser had, starts a
 * new one (a fresh token: a cookie planted before never becomes the session) and goes to /app/containers. A link that is used, expired,
 * withdrawn or unknown answers a 400 page. The GET changes nothing, so a mail scanner following the link does no harm.
 */
export const acceptInvitationPage = new Hono<AppEnv>();

acceptInvitationPage.use("*", htmlErrors);

function tokenOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

const ROLE_WORDS = {
  admin: "an admin: you will manage the team, API keys, webhooks, tariffs and alert rules",
  member: "a member: you will track containers and edit custom fields and documents",
  viewer: "a viewer: you will see the team's containers",
} as const;

acceptInvitationPage.get("/accept", async (c) => {
  const token = tokenOf(c.req.query("token"));
  const found = await invitationByToken(c.get("primaryDb"), token, c.get("clock").now());
  if (found?.invitation.status !== "pending") throw unusableInvitation(found?.invitation.status ?? null);
  const invitation = found.invitation;
  return renderPage(
    c,
    <Layout title={`Join ${found.accountName}`} user={null}>
      <p>
        You are invited to join <strong>{found.accountName}</strong> as {ROLE_WORDS[invitation.role]}.
      </p>
      <p>
        You will sign in as <strong>{invitation.email}</strong>. The invitation works once, until {invitation.expiresAt}{" "}
        (UTC).
      </p>
      <form method="post" action="/invitations/accept">
        <input type="hidden" name="token" value={token} />
        <p>
          <label for="accept-name">Your name (optional)</label>
          <br />
          <input id="accept-name" name="name" type="text" autocomplete="name" maxlength={MAX_USER_NAME_LENGTH} />
        </p>
        <button type="submit">Accept and sign in</button>
      </form>
    </Layout>,
  );
});

acceptInvitationPage.post("/accept", async (c) => {
  if (!isSameOriginRequest(c.req.raw)) throw new ApiError(403, "Cross-site request refused.");
  const form = await c.req.parseBody();
  const rawName = tokenOf(form.name).trim().slice(0, MAX_USER_NAME_LENGTH);
  // Control characters would break the places a name is copied to (mail headers, CSV); drop them.
  const name = Array.from(rawName)
    .filter((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f)
    .join("");
  const nowMs = c.get("clock").now();
  const user = await acceptInvitation(
    { db: c.get("primaryDb"), clock: c.get("clock") },
    tokenOf(form.token),
    name || null,
  );
  // Whoever was signed in on this browser before is signed out: the browser now belongs to the invitee's new session.
  const previous = await signedInUserOf(c);
  if (previous) await revokeSession(c.env.DB, previous.sessionId, nowMs);
  const session = await createSession(c.env.DB, user, nowMs, c.req.header("user-agent") ?? null);
  setSessionCookie(c, session.token);
  return c.redirect("/app/containers", 303);
});
