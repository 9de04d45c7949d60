import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import worker from "../../src/index";
import type { TestWebUser } from "../helpers/web-session";

/** Origin of the OAuth tests: loopback http, as `wrangler dev` serves (the provider accepts http only there). */
export const ORIGIN = "http://localhost:8787";
export const MCP_ENDPOINT = `${ORIGIN}/mcp`;
/** The MCP client's redirect URI (never contacted: the test reads the code from the consent's Location). */
export const REDIRECT_URI = "http://127.0.0.1:33418/callback";

/** The Worker's bindings with OAuth turned on (`MCP_OAUTH = "on"`), or as given. */
export const oauthEnv: Env = { ...env, MCP_OAUTH: "on" };

/** Sends `input` straight to the Worker's fetch handler with `bindings` (default {@link oauthEnv}). */
export async function workerFetch(
  input: string | URL | Request,
  init?: RequestInit,
  bindings: Env = oauthEnv,
): Promise<Response> {
  const request = new Request(input, { redirect: "manual", ...init });
  const ctx = createExecutionContext();
  const res = await worker.fetch?.(request as Request<unknown, IncomingRequestCfProperties>, bindings, ctx);
  await waitOnExecutionContext(ctx);
  if (!res) throw new Error("no response");
  return res;
}

/** `name=value` pairs of a response's `Set-Cookie` headers, for the next request's `Cookie`. */
export function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
}

/** The value of the hidden input `name` in a page's HTML (`value` attribute as rendered, HTML-escaped). */
export function hiddenInput(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(html);
  if (!match?.[1]) throw new Error(`no hidden input ${name}`);
  return match[1];
}

/** A browser tab of `user`: GET and form POST with its cookies (session + whatever the pages set), no redirects. */
export function browserOf(user: TestWebUser) {
  const jar = new Map<string, string>();
  const [name, value] = user.cookie.split("=");
  jar.set(name ?? "", value ?? "");
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const keep = (res: Response) => {
    for (const pair of cookiesOf(res)) {
      const i = pair.indexOf("=");
      const v = pair.slice(i + 1);
      if (v === "") jar.delete(pair.slice(0, i));
      else jar.set(pair.slice(0, i), v);
    }
    return res;
  };
  return {
    get: async (url: string) => keep(await workerFetch(url, { headers: { Cookie: cookieHeader() } })),
    post: async (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      keep(
        await workerFetch(url, {
          method: "POST",
          headers: {
            Cookie: cookieHeader(),
            "Content-Type": "application/x-www-form-urlencoded",
            Origin: ORIGIN,
            "Sec-Fetch-Site": "same-origin",
            ...headers,
          },
          body: new URLSearchParams(form).toString(),
        }),
      ),
    forget: (cookiePrefix: string) => {
      for (const k of [...jar.keys()]) if (k.startsWith(cookiePrefix)) jar.delete(k);
    },
  };
}

/**
 * An `OAuthClientProvider` of the MCP SDK (the real client's side of the flow: discovery, dynamic registration, PKCE,
 * the token exchange) whose "browser" is `user`'s: `redirectToAuthorization` opens the consent page with the user's
 * session, presses `decision` and keeps the authorization code (or the error) the redirect carries.
 */
export class TestOAuthClient implements OAuthClientProvider {
  clientInfo: OAuthClientInformationMixed | undefined;
  savedTokens: OAuthTokens | undefined;
  verifier = "";
  /** The query of the redirect back to the client (`code`, `state`, `iss`; or `error`). */
  callback: URLSearchParams | null = null;
  /** The consent page as served (HTML), for assertions. */
  consentPage = "";

  constructor(
    readonly user: TestWebUser,
    readonly decision: "allow" | "deny" = "allow",
    readonly clientName = "Test MCP client",
  ) {}

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.clientInfo = info;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.savedTokens = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    const browser = browserOf(this.user);
    const page = await browser.get(url.toString());
    if (page.status !== 200) throw new Error(`consent page answered ${page.status}`);
    this.consentPage = await page.text();
    const answer = await browser.post(`${ORIGIN}/oauth/authorize`, {
      _csrf: hiddenInput(this.consentPage, "_csrf"),
      handle: hiddenInput(this.consentPage, "handle"),
      decision: this.decision,
    });
    const location = answer.headers.get("location");
    if (answer.status !== 303 || !location) throw new Error(`consent answered ${answer.status}`);
    this.callback = new URL(location).searchParams;
  }
}

/** A fetch for the SDK that goes straight to the Worker with OAuth on. */
export const sdkFetch = (input: string | URL | Request, init?: RequestInit) => workerFetch(input, init);

/**
 * Signs `user` in through the whole OAuth flow with the MCP SDK client (401 → metadata → registration → consent →
 * code → token exchange) and returns a connected MCP client and its OAuth side.
 */
export async function connectWithOAuth(user: TestWebUser, clientName?: string) {
  const oauth = new TestOAuthClient(user, "allow", clientName);
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(MCP_ENDPOINT), { fetch: sdkFetch, authProvider: oauth });
  const first = transport();
  const client = new Client(
    { name: "oauth-test-client", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  // The first connect meets the 401, runs discovery, registration and the consent, then stops for the code.
  await client.connect(first).catch((err: unknown) => {
    if (!String(err).includes("Unauthorized")) throw err;
  });
  const code = oauth.callback?.get("code");
  if (!code) throw new Error(`no code: ${oauth.callback?.toString()}`);
  await first.finishAuth(code);
  await first.close();
  const connected = new Client(
    { name: "oauth-test-client", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const second = transport();
  await connected.connect(second);
  return { client: connected, transport: second, oauth };
}
