import { z } from "@hono/zod-openapi";
import { type Context, Hono } from "hono";
import { USER_ROLES, type UserRole } from "../db/schema/users";
import type { AppEnv, SignedInUser } from "../env";
import { ApiError } from "../lib/errors";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { requireRole, roleAllows } from "../sessions/session";
import { type InvitationView, inviteUser, listInvitations, revokeInvitation } from "../users/invitations";
import { invitationDeps, userDeps } from "../users/routes";
import { EmailAddress } from "../users/schemas";
import { listUsers, removeUser, type UserRow, updateUser } from "../users/service";
import { CsrfField, Layout } from "./layout";
import { htmlErrors, renderPage } from "./page-response";

/**
 * /app/settings/team (issue 28 §Settings: "team members"): the account's users with their roles, the invite form and
 * the pending invitations. Everyone signed in sees the list; only admins see and use the forms (each POST needs the
 * admin role: 403 otherwise). Every form calls the services REST calls (src/users/), then answers 303 back here with
 * a notice, or re-renders the page with the error next to the field it is about (nothing changed).
 */
export const teamPage = new Hono<AppEnv>();

teamPage.use("*", htmlErrors);
teamPage.use("*", async (c, next) =>
  c.req.method === "GET" || c.req.method === "HEAD" ? next() : requireRole("admin")(c, next),
);

const PATH = "/app/settings/team";
/** Users and invitations shown on the page (one page of the services' lists; teams are small). */
const SHOWN: PageRequest = { number: 1, size: 100, sizeGiven: true, offset: 0 };

/** The notices a redirect may name (`?notice=`), in words; anything else shows nothing. */
const NOTICES: Record<string, string> = {
  invited: "Invitation sent.",
  role: "Role saved.",
  removed: "User removed from the team; their sessions have ended.",
  revoked: "Invitation withdrawn.",
};

/** Errors of a rendering, by the field they are about: `email`, `role`, `user:<id>`. */
type FieldErrors = Record<string, string>;

interface TeamView {
  user: SignedInUser;
  members: UserRow[];
  membersTotal: number;
  invitations: InvitationView[];
  notice: string | null;
  errors: FieldErrors;
  /** What the invite form held when it is shown again with an error. */
  invite: { email: string; role: string };
}

/** A role `<select>`; `label` names it when no visible `<label>` does (a table row's select, named by its user). */
function RoleSelect(props: { id: string; name: string; value: string; label?: string; describedBy?: string }) {
  const { id, name, value, label, describedBy } = props;
  return (
    <select
      id={id}
      name={name}
      aria-label={label}
      aria-describedby={describedBy}
      aria-invalid={describedBy ? "true" : undefined}
    >
      {USER_ROLES.map((role) => (
        <option value={role} selected={role === value}>
          {role}
        </option>
      ))}
    </select>
  );
}

function MemberRow({ member, view, admin }: { member: UserRow; view: TeamView; admin: boolean }) {
  const error = view.errors[`user:${member.id}`];
  const errorId = `user-error-${member.id}`;
  const selectId = `role-${member.id}`;
  const who = member.name ? `${member.name} (${member.email})` : member.email;
  return (
    <tr>
      <th scope="row">{member.name ?? "—"}</th>
      <td>{member.email}</td>
      <td>
        {admin ? (
          <form method="post" action={`${PATH}/users/${member.id}/role`}>
            <CsrfField user={view.user} />
            <RoleSelect
              id={selectId}
              name="role"
              value={member.role}
              label={`Role of ${who}`}
              describedBy={error ? errorId : undefined}
            />{" "}
            <button type="submit" aria-label={`Save role of ${who}`}>
              Save
            </button>
            {error ? (
              <p id={errorId} class="field-error" role="alert">
                {error}
              </p>
            ) : null}
          </form>
        ) : (
          member.role
        )}
      </td>
      <td>{member.lastSignedInAt ? <time datetime={member.lastSignedInAt}>{member.lastSignedInAt}</time> : "never"}</td>
      {admin ? (
        <td>
          <form method="post" action={`${PATH}/users/${member.id}/remove`}>
            <CsrfField user={view.user} />
            <button type="submit" aria-label={`Remove ${who}`}>
              Remove
            </button>
          </form>
        </td>
      ) : null}
    </tr>
  );
}

function InviteForm({ view }: { view: TeamView }) {
  const emailError = view.errors.email;
  const roleError = view.errors.role;
  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <form method="post" action={`${PATH}/invitations`}>
        <CsrfField user={view.user} />
        <p>
          <label for="invite-email">E-mail address</label>
          <br />
          <input
            id="invite-email"
            name="email"
            type="email"
            required
            autocomplete="off"
            value={view.invite.email}
            aria-describedby={emailError ? "invite-email-error" : undefined}
            aria-invalid={emailError ? "true" : undefined}
          />
          {emailError ? (
            <span id="invite-email-error" class="field-error">
              {` Error: ${emailError}`}
            </span>
          ) : null}
        </p>
        <p>
          <label for="invite-role">Role</label>
          <br />
          <RoleSelect
            id="invite-role"
            name="role"
            value={view.invite.role}
            describedBy={roleError ? "invite-role-error" : undefined}
          />
          {roleError ? (
            <span id="invite-role-error" class="field-error">
              {` Error: ${roleError}`}
            </span>
          ) : null}
        </p>
        <button type="submit">Send invitation</button>
      </form>
    </section>
  );
}

function InvitationsTable({ view, admin }: { view: TeamView; admin: boolean }) {
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Pending invitations</h2>
      {view.invitations.length === 0 ? (
        <p>No pending invitations.</p>
      ) : (
        <table>
          <caption>Invitations not yet accepted</caption>
          <thead>
            <tr>
              <th scope="col">E-mail address</th>
              <th scope="col">Role</th>
              <th scope="col">Expires (UTC)</th>
              {admin ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {view.invitations.map((invitation) => (
              <tr>
                <th scope="row">{invitation.email}</th>
                <td>{invitation.role}</td>
                <td>
                  <time datetime={invitation.expiresAt}>{invitation.expiresAt}</time>
                </td>
                {admin ? (
                  <td>
                    <form method="post" action={`${PATH}/invitations/${invitation.id}/revoke`}>
                      <CsrfField user={view.user} />
                      <button type="submit" aria-label={`Withdraw the invitation of ${invitation.email}`}>
                        Withdraw
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function TeamPage({ view }: { view: TeamView }) {
  const admin = roleAllows(view.user.role, "admin");
  const problems = Object.keys(view.errors).length;
  // Errors about a user no longer listed (removed meanwhile) have no row to stand next to: they go in the summary.
  const shown = new Set(view.members.map((m) => `user:${m.id}`));
  const unplaced = Object.entries(view.errors)
    .filter(([key]) => key.startsWith("user:") && !shown.has(key))
    .map(([, detail]) => detail);
  return (
    <Layout title="Team" user={view.user} current={PATH}>
      {view.notice ? <p role="status">{view.notice}</p> : null}
      {problems > 0 ? (
        <p role="alert">
          {unplaced.length > 0
            ? unplaced.join(" ")
            : problems === 1
              ? "One thing needs fixing; see below."
              : `${problems} things need fixing.`}
        </p>
      ) : null}
      {admin ? null : <p>Only admins can change the team. Ask one of them to invite someone or change a role.</p>}
      <table>
        <caption>Team members</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">E-mail address</th>
            <th scope="col">Role</th>
            <th scope="col">Last signed in (UTC)</th>
            {admin ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {view.members.map((member) => (
            <MemberRow member={member} view={view} admin={admin} />
          ))}
        </tbody>
      </table>
      {view.membersTotal > view.members.length ? (
        <p>{`Showing the first ${view.members.length} of ${view.membersTotal} members.`}</p>
      ) : null}
      {admin ? <InviteForm view={view} /> : null}
      <InvitationsTable view={view} admin={admin} />
    </Layout>
  );
}

/** Renders the page for the signed-in user, with `errors` (status 422) or without. */
async function showTeam(
  c: Context<AppEnv>,
  extra: { errors?: FieldErrors; invite?: { email: string; role: string } } = {},
) {
  const user = c.get("user");
  const nowMs = c.get("clock").now();
  const [members, invitations] = await Promise.all([
    listUsers(c.get("primaryDb"), user.accountId, SHOWN),
    listInvitations(c.get("primaryDb"), user.accountId, SHOWN, nowMs, "pending"),
  ]);
  const notice = NOTICES[c.req.query("notice") ?? ""] ?? null;
  const errors = extra.errors ?? {};
  const view: TeamView = {
    user,
    members: members.rows,
    membersTotal: members.total,
    invitations: invitations.rows,
    notice: Object.keys(errors).length > 0 ? null : notice,
    errors,
    invite: extra.invite ?? { email: "", role: "member" },
  };
  return renderPage(c, <TeamPage view={view} />, Object.keys(errors).length > 0 ? 422 : 200);
}

/** The text of a submitted field ("" when absent or a file). */
async function field(c: Context<AppEnv>, name: string): Promise<string> {
  const value = (await c.req.parseBody())[name];
  return typeof value === "string" ? value : "";
}

const RoleInput = z.enum(USER_ROLES);

/** The first error's detail of a 422 (or 503), for the field it is about. */
function detailOf(err: ApiError): string {
  return err.errors.map((e) => e.detail ?? "").join(" ");
}

teamPage.get("/", (c) => showTeam(c));

teamPage.post("/invitations", async (c) => {
  const rawEmail = await field(c, "email");
  const rawRole = await field(c, "role");
  const email = EmailAddress.safeParse(rawEmail);
  const role = RoleInput.safeParse(rawRole);
  const errors: FieldErrors = {};
  if (!email.success) errors.email = "enter an e-mail address such as name@example.com";
  if (!role.success) errors.role = "choose admin, member or viewer";
  if (!email.success || !role.success) return showTeam(c, { errors, invite: { email: rawEmail, role: rawRole } });
  const user = c.get("user");
  try {
    await inviteUser(invitationDeps(c), user.accountId, { email: email.data, role: role.data }, user);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 422 || err.status === 503)) {
      return showTeam(c, { errors: { email: detailOf(err) }, invite: { email: rawEmail, role: rawRole } });
    }
    throw err;
  }
  return c.redirect(`${PATH}?notice=invited`, 303);
});

teamPage.post("/users/:id/role", async (c) => {
  const id = c.req.param("id");
  const role = RoleInput.safeParse(await field(c, "role"));
  if (!role.success) return showTeam(c, { errors: { [`user:${id}`]: "choose admin, member or viewer" } });
  try {
    await updateUser(userDeps(c), c.get("user").accountId, id, { role: role.data as UserRole });
  } catch (err) {
    if (err instanceof ApiError && err.status === 422)
      return showTeam(c, { errors: { [`user:${id}`]: detailOf(err) } });
    throw err;
  }
  return c.redirect(`${PATH}?notice=role`, 303);
});

teamPage.post("/users/:id/remove", async (c) => {
  const id = c.req.param("id");
  try {
    await removeUser(userDeps(c), c.get("user").accountId, id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 422)
      return showTeam(c, { errors: { [`user:${id}`]: detailOf(err) } });
    throw err;
  }
  return c.redirect(`${PATH}?notice=removed`, 303);
});

teamPage.post("/invitations/:id/revoke", async (c) => {
  await revokeInvitation({ db: c.get("primaryDb"), clock: c.get("clock") }, c.get("user").accountId, c.req.param("id"));
  return c.redirect(`${PATH}?notice=revoked`, 303);
});
