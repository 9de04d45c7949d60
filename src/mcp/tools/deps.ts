import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import type { Clock } from "../../lib/clock";
import type { TrackingApi } from "../api";

/**
 * Resolves the caller's `TrackingApi` for one request; rejects with `TrackingApiError` `unauthorized` when the
 * session has no owner. It draws from no rate bucket: the Worker's agent counts each request that may read account
 * data before the server handles it (`METERED_METHODS`, src/mcp/agent.ts).
 */
export type ApiResolver = () => Promise<TrackingApi>;

/** What `registerAll` hands every tool, prompt and resource. */
export interface McpDeps {
  resolveApi: ApiResolver;
  clock: Clock;
  /**
   * Called with every unexpected error (not a `TrackingApiError`) and the reference given to the client, so it
   * can be logged server-side; the client only sees the reference.
   */
  reportError: (err: unknown, reference: string, where: string) => void;
  /** The client's log level (`logging/setLevel`): whether a message of a level is sent. */
  logging: { enabled: (level: LoggingLevel) => boolean };
}
