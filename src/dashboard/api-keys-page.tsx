import { type Context, Hono } from "hono";
import { KeyName } from "../api-keys/schemas";
import {
  type ApiKeyRow,
  type CreatedApiKey,
  createApiKey,
  keyEnvironmentOf,
  listApiKeys,
  revokeApiKey,
} from "../api-keys/service";
import type { AppEnv, SignedInUser } from "../env";
import { ApiError } from "../lib/errors";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { requireRole } from "../sessions/session";
import { CsrfField, Layout } from "./layout";
import { htmlErrors, renderPage } from "./page-response";

/**
 * /app/settings/api-keys (issue 28 §Settings: "API keys (create, revoke)"), admins only (403 for everyone else, the
 * page included): the account's keys (name, prefix, dates; never a key), a create form whose answer shows the new key
 * once in a read-only field with a copy button (island copy-field.js), and a revoke button per active key. The forms
 * call the services `/v2/api_keys` calls (src/api-keys/service.ts).
 */
export const apiKeysPage = new Hono<AppEnv>();

apiKeysPage.use("*", htmlErrors);
apiKeysPage.use("*", requireRole("admin"));

const PATH = "/app/settings/api-keys";
/** Keys shown on the page: one page of the service's list, newest first. */
const SHOWN: PageRequest = { number: 1, size: 100, sizeGiven: true, offset: 0 };

const NOTICES: Record<string, string> = {
  revoked: "Key revoked: requests with it are refused within a few seconds.",
};

interface KeysView {
  user: SignedInUser;
  keys: ApiKeyRow[];
  total: number;
  notice: string | null;
  /** The key just created: shown this once. */
  created: CreatedApiKey | null;
  nameError: string | null;
  name: string;
}

function NewKey({ created }: { created: CreatedApiKey }) {
  return (
    <section aria-labelledby="new-key-heading">
      <h2 id="new-key-heading">{`New key "${created.name}"`}</h2>
      <p id="new-key-warning" role="alert">
        <strong>Copy this key now.</strong> It is shown only once: the service keeps only a hash of it.
      </p>
      <p>
        <label for="new-key">Your new API key</label>
        <br />
        <input
          id="new-key"
          type="text"
          readonly
          value={created.key}
          size={60}
          autocomplete="off"
          spellcheck={false}
          aria-describedby="new-key-warning"
        />{" "}
        <button type="button" data-copy-target="new-key" hidden>
          Copy key
        </button>
        <span id="new-key-copied" role="status" />
      </p>
      <p>
        Send it as <code>Authorization: Token &lt;key&gt;</code>.
      </p>
    </section>
  );
}

function KeyRow({ row, user }: { row: ApiKeyRow; user: SignedInUser }) {
  return (
    <tr>
      <th scope="row">{row.name}</th>
      <td>
        <code>{row.prefix}</code>…
      </td>
      <td>
        <time datetime={row.createdAt}>{row.createdAt}</time>
      </td>
      <td>{row.lastUsedAt ? <time datetime={row.lastUsedAt}>{row.lastUsedAt}</time> : "never"}</td>
      <td>{row.revokedAt ? `revoked ${row.revokedAt}` : "active"}</td>
      <td>
        {row.revokedAt ? null : (
          <form method="post" action={`${PATH}/${row.id}/revoke`}>
            <CsrfField user={user} />
            <button type="submit" aria-label={`Revoke key ${row.name} (${row.prefix})`}>
              Revoke
            </button>
          </form>
        )}
      </td>
    </tr>
  );
}

function ApiKeysPage({ view }: { view: KeysView }) {
  return (
    <Layout title="API keys" user={view.user} current={PATH} scripts={["copy-field.js"]}>
      {view.notice ? <p role="status">{view.notice}</p> : null}
      {view.created ? <NewKey created={view.created} /> : null}
      <section aria-labelledby="create-heading">
        <h2 id="create-heading">Create a key</h2>
        <form method="post" action={PATH}>
          <CsrfField user={view.user} />
          <p>
            <label for="key-name">Key name</label>
            <br />
            <input
              id="key-name"
              name="name"
              type="text"
              required
              maxlength={100}
              value={view.name}
              aria-describedby={view.nameError ? "key-name-error" : "key-name-hint"}
              aria-invalid={view.nameError ? "true" : undefined}
            />
            {view.nameError ? (
              <span id="key-name-error" class="field-error">{` Error: ${view.nameError}`}</span>
            ) : (
              <span id="key-name-hint"> What the key is for, e.g. "TMS sync".</span>
            )}
          </p>
          <button type="submit">Create key</button>
        </form>
      </section>
      <table>
        <caption>The account's API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Created (UTC)</th>
            <th scope="col">Last used (UTC)</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {view.keys.map((row) => (
            <KeyRow row={row} user={view.user} />
          ))}
        </tbody>
      </table>
      {view.total > view.keys.length ? <p>{`Showing the newest ${view.keys.length} of ${view.total} keys.`}</p> : null}
    </Layout>
  );
}

async function showKeys(
  c: Context<AppEnv>,
  extra: { created?: CreatedApiKey; nameError?: string; name?: string } = {},
) {
  const user = c.get("user");
  const { rows, total } = await listApiKeys(c.get("primaryDb"), user.accountId, SHOWN);
  const view: KeysView = {
    user,
    keys: rows,
    total,
    notice: NOTICES[c.req.query("notice") ?? ""] ?? null,
    created: extra.created ?? null,
    nameError: extra.nameError ?? null,
    name: extra.name ?? "",
  };
  return renderPage(c, <ApiKeysPage view={view} />, extra.nameError ? 422 : 200);
}

apiKeysPage.get("/", (c) => showKeys(c));

apiKeysPage.post("/", async (c) => {
  const raw = (await c.req.parseBody()).name;
  const typed = typeof raw === "string" ? raw : "";
  const name = KeyName.safeParse(typed);
  if (!name.success) {
    const nameError = typed.trim() === "" ? "enter a name" : "use at most 100 characters, without line breaks";
    return showKeys(c, { nameError, name: typed });
  }
  const deps = { db: c.get("primaryDb"), clock: c.get("clock") };
  try {
    const created = await createApiKey(deps, c.get("user").accountId, name.data, keyEnvironmentOf(c.req.url));
    return showKeys(c, { created });
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) {
      return showKeys(c, { nameError: err.errors.map((e) => e.detail ?? "").join(" "), name: typed });
    }
    throw err;
  }
});

apiKeysPage.post("/:id/revoke", async (c) => {
  await revokeApiKey({ db: c.get("primaryDb"), clock: c.get("clock") }, c.get("user").accountId, c.req.param("id"));
  return c.redirect(`${PATH}?notice=revoked`, 303);
});
