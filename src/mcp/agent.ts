import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { isInitializeRequest, type JSONRPCMessage, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { McpAgent, RPCServerTransport } from "agents/mcp";
import { createDatabase } from "../db/client";
import { dbFor } from "../db/shards";
import { systemClock } from "../lib/clock";
import { TrackingApi } from "./api";
import { TrackingApiError } from "./api-errors";
import { registerAll, SERVER_INFO, SERVER_INSTRUCTIONS } from "./register";
import { drawFromBucket, type McpSessionProps, type SessionOwner } from "./session";
import { errorResult, rateLimitedMessage } from "./tools/calls";

/** A session lives at most this long after it was opened (seconds); then it is torn down and answers 404. */
export const SESSION_MAX_AGE_SECONDS = 24 * 60 * 60;

/**
 * One POST of the `/mcp` bridge (src/mcp/http.ts) for a session's agent: the JSON-RPC messages (already validated),
 * who sends them (the account and key fingerprint of the authenticated caller), and whether they open the session
 * (`initialize`, on a fresh session id).
 */
export interface McpExchange {
  messages: JSONRPCMessage[];
  caller: SessionOwner;
  opening: boolean;
  /**
   * The caller may only read (an OAuth token of a viewer, src/oauth/mcp-bridge.ts): write tools (`track_container`'s
   * create) answer a `forbidden` tool error. Sent with every exchange, as the user's role is read live per request.
   * Omitted (API keys): full access.
   */
  readOnly?: boolean;
}

/**
 * What the agent answers a {@link McpExchange}: the session is unknown to this caller (never opened, ended, or
 * opened with another key — all answered alike, 404 "Session not found"), or the messages the MCP server sent back:
 * the responses to the requests and any notifications it sent while handling them, in order; or `refused`: a request
 * id already in flight in the session (409) or a request that outlived the transport's timeout (504).
 */
export type McpExchangeResult =
  | { session: "not_found" }
  | { session: "refused"; status: 409 | 504; message: string }
  | { session: "found"; messages: JSONRPCMessage[] };

/**
 * The MCP methods whose requests may read account data: each request of one draws one request from the account's
 * `default` bucket (shared with REST, docs/decisions.md §Rate limits) before the server handles it, whatever its
 * arguments (a guide read or a carrier completion counts as a container read does), and is refused when the bucket
 * is spent (issue 23 §4). Everything else reads no account data and is free: `ping`, `logging/setLevel`, the listings
 * of tools, prompts and resource templates, notifications and responses; `initialize` is counted by the `/mcp`
 * endpoint when it opens the session (src/mcp/http.ts).
 */
export const METERED_METHODS: ReadonlySet<string> = new Set([
  "tools/call",
  "resources/read",
  "resources/list",
  "prompts/get",
  "completion/complete",
]);

/** JSON-RPC code of a request refused over the limit: an implementation-defined server error, as the `/mcp` 429. */
const RATE_LIMITED_CODE = -32000;

/**
 * The answer to `request` when the account's bucket is spent (`seconds` until one is admitted, from the rate
 * limiter): for `tools/call` a tool error result, as a tool reports every failure; for any other method a JSON-RPC
 * error -32000 with `data.retry_after_seconds` (and the `uri` of a `resources/read`, as a refused container read
 * had it). Both say `Rate limited: … Retry after N seconds.` (docs/mcp.md).
 */
export function rateLimitedAnswer(request: JSONRPCRequest, seconds: number): JSONRPCMessage {
  const message = rateLimitedMessage(seconds);
  if (request.method === "tools/call") return { jsonrpc: "2.0", id: request.id, result: errorResult(message) };
  const uri = request.method === "resources/read" ? request.params?.uri : undefined;
  return {
    jsonrpc: "2.0",
    id: request.id,
    error: {
      code: RATE_LIMITED_CODE,
      message,
      data: { ...(typeof uri === "string" ? { uri } : {}), retry_after_seconds: seconds },
    },
  };
}

/**
 * The MCP server of one session (docs/architecture.md §MCP, docs/mcp.md §Tools): an `agents` McpAgent Durable Object
 * (binding `MCP_OBJECT`, one object per `mcp-session-id`) serving the tools, prompts and resources of `registerAll`
 * over the Worker's services. Reached only through `handleMcpRequest` (src/mcp/http.ts), which authenticates every
 * request and checks that the session belongs to the caller's key before forwarding.
 *
 * Transport: the object is named `rpc:<session id>`, so McpAgent gives its server the RPC transport, and the
 * bridge hands it each POST in one Durable Object call ({@link exchange}) that returns the server's answer. Why not
 * `McpAgent.serve()`: its streamable-HTTP handler spends three Durable Object round trips and a WebSocket upgrade
 * on every POST, plus an event-store write per message; an MCP `ping` cost 15.8 ms of server CPU against 10.1 ms
 * for a whole REST `GET /containers/{id}` (`npm run bench -- mcp`, bench/README.md).
 *
 * Props (set when the session is initialised): `{accountId, keyFingerprint}`. Every exchange is checked against them
 * (the live caller's account and key fingerprint must be the session's), and each request of {@link METERED_METHODS}
 * draws one request from the account's `default` rate bucket before the server sees it
 * (docs/decisions.md §Rate limits); a refused one is answered here ({@link rateLimitedAnswer}).
 */
export class TrackingMcpAgent extends McpAgent<Env & Cloudflare.Env, unknown, McpSessionProps> {
  server = new McpServer({ ...SERVER_INFO }, { instructions: SERVER_INSTRUCTIONS, capabilities: { logging: {} } });
  /** The session's user may only read ({@link McpExchange.readOnly} of the exchange being served). */
  private readOnly = false;

  async init(): Promise<void> {
    registerAll(this.server, { resolveApi: () => this.resolveApi(), clock: systemClock });
  }

  /**
   * RPC for the `/mcp` bridge: handles one POST's messages in this session and returns what the server answers.
   * Opening: stores the caller as the session's owner (props) and the `initialize` request (which McpAgent replays
   * to its server whenever the object restarts). Otherwise the session must have been opened by the same account
   * and key and not have ended; anything else is `not_found`, whatever the reason, so a session id reveals nothing.
   */
  async exchange({ messages, caller, opening, readOnly }: McpExchange): Promise<McpExchangeResult> {
    await this.__unsafe_ensureInitialized();
    // Every caller of a session is its owner (the same key, or the same OAuth grant and so the same user), so the
    // latest exchange's role is the session user's current one.
    this.readOnly = readOnly === true;
    if (opening) {
      // Session ids are fresh (`newUniqueId`), so an opening exchange meets an object nobody owns yet.
      const initialize = messages.find((m) => isInitializeRequest(m));
      if (this.props?.accountId || !initialize) return { session: "not_found" };
      await this.updateProps({ accountId: caller.accountId, keyFingerprint: caller.keyFingerprint });
      await this.setInitializeRequest(initialize);
      // Only real sessions (opened by an authenticated initialize) get an expiry; a probe of an unknown id stores
      // nothing.
      await this.schedule(SESSION_MAX_AGE_SECONDS, "expireSession", undefined, { idempotent: true });
    } else if (!this.isOwnedBy(caller) || !(await this.getInitializeRequest())) {
      return { session: "not_found" };
    }
    const transport = this.rpcTransport();
    let answers: (JSONRPCMessage | JSONRPCMessage[] | undefined)[];
    try {
      // One message at a time, as the transport itself handles a batch (concurrently, answers in request order).
      answers = await Promise.all(
        messages.map(async (message) => (await this.refusalOf(message)) ?? transport.handle(message)),
      );
    } catch (err) {
      // The RPC transport refuses a request id already in flight in this session, and gives up on a request after
      // its timeout: both are the client's to hear about (409, 504), not internal errors.
      const text = String((err as Error)?.message ?? err);
      if (/Duplicate pending RPC request id/.test(text)) {
        return { session: "refused", status: 409, message: "Conflict: a request with this id is already in progress" };
      }
      if (/Request timeout/.test(text)) {
        return { session: "refused", status: 504, message: "Gateway Timeout: the request took too long" };
      }
      throw err;
    }
    return { session: "found", messages: answers.flatMap((answer) => answer ?? []) };
  }

  /**
   * Draws one request from the session account's `default` bucket when `message` is a request of
   * {@link METERED_METHODS}: null when admitted (or not metered), else the answer refusing it.
   */
  private async refusalOf(message: JSONRPCMessage): Promise<JSONRPCMessage | null> {
    // A structural test (the bridge validated every message, jsonRpcKindOf): a request has a method and an id.
    if (!("method" in message) || !("id" in message) || !METERED_METHODS.has(message.method)) return null;
    const accountId = this.props?.accountId;
    if (!accountId) return null; // Not reached: exchange answers not_found for a session without an owner.
    try {
      await drawFromBucket(this.env, accountId, "default", systemClock.now(), this.ctx);
      return null;
    } catch (err) {
      if (err instanceof TrackingApiError && err.kind === "rate_limited") {
        return rateLimitedAnswer(message, err.retryAfterSeconds ?? 60);
      }
      throw err;
    }
  }

  /**
   * RPC for the `/mcp` bridge (`DELETE`): ends the session when `caller` owns it and it is open. Returns false
   * (answered 404) otherwise.
   */
  async endSession(caller: SessionOwner): Promise<boolean> {
    await this.__unsafe_ensureInitialized();
    if (!this.isOwnedBy(caller) || !(await this.getInitializeRequest())) return false;
    await this._cf_terminateSession();
    return true;
  }

  /**
   * The session's RPC transport (McpAgent creates it in `onStart` for objects named `rpc:…`). Called directly rather
   * than through `handleMcpMessage`, which wraps every call in `keepAliveWhile`: two alarm re-computations in the
   * object's storage per message, for a keep-alive an exchange does not need (the bridge's call itself keeps the
   * object alive until it returns). Elicitation, the one thing `handleMcpMessage` adds, is not used by this server.
   * Reads McpAgent's private `_transport` (agents 0.32.0, pinned).
   * @throws Error when the object is not an `rpc:` session (a programming error).
   */
  private rpcTransport(): RPCServerTransport {
    const transport = (this as unknown as { _transport?: unknown })._transport;
    if (!(transport instanceof RPCServerTransport))
      throw new Error("TrackingMcpAgent: expected McpAgent's RPC transport");
    return transport;
  }

  /** Whether this session was opened by `caller`'s account and key. */
  private isOwnedBy(caller: SessionOwner): boolean {
    const props = this.props;
    return !!props?.accountId && props.accountId === caller.accountId && props.keyFingerprint === caller.keyFingerprint;
  }

  /** Scheduled {@link SESSION_MAX_AGE_SECONDS} after the session opened: ends it (later requests get 404). */
  async expireSession(): Promise<void> {
    await this._cf_terminateSession();
  }

  /**
   * The caller's `TrackingApi` for one MCP request (the caller's key was matched to the session, and the request
   * counted, by {@link exchange}). Its `limitBucket` draws from the other buckets (`track_container`: create).
   * @throws TrackingApiError `unauthorized` when the session has no owner.
   */
  private async resolveApi(): Promise<TrackingApi> {
    const props = this.props;
    if (!props?.accountId || !props.keyFingerprint) {
      throw new TrackingApiError("unauthorized", "This session is not authenticated.");
    }
    const env = this.env;
    const accountId = props.accountId;
    // The account's rows are on its shard (src/db/shards.ts; the shard is cached per isolate after the first read).
    return new TrackingApi({
      db: await dbFor(env, accountId),
      primary: createDatabase(env.DB),
      clock: systemClock,
      env,
      accountId,
      limitBucket: (bucket) => drawFromBucket(env, accountId, bucket, systemClock.now(), this.ctx),
      readOnly: this.readOnly,
    });
  }
}
