import { runAlertsCron } from "./alerts/cron";
import { createApp } from "./app";
import { runArchiveCron } from "./archive/cron";
import { sweepUpstreamSubscriptions } from "./callbacks/lifecycle";
import { sweepPortOfVirginiaSubscriptions } from "./callbacks/port-of-virginia";
import { sweptShards } from "./db/shard-sweeps";
import { handleEmail } from "./documents/email-intake";
import { consumeDocumentExtractions, type DocumentQueueMessage } from "./documents/extraction-job";
import { systemClock } from "./lib/clock";
import { handleMcpRequest, MCP_PATH } from "./mcp/http";
import { routeWithOAuth } from "./oauth/mcp-bridge";
import { oauthEnabled } from "./oauth/provider";
// Registers every resource type for `include` before any request (src/lib/jsonapi/include-registry.ts).
import "./resource-types";
import { pruneEndedSessions, pruneSignInLinks } from "./sessions/prune";
import { withBenchEngine } from "./tracking/bench-trace";
import { consumeTrackingRequests } from "./tracking/consumers";
import { runMaintenance } from "./tracking/maintenance";
import { consumeTerminalPolls } from "./tracking/poll-consumer";
import type { TerminalPollMessage } from "./tracking/terminal-poll-message";
import { consumeTrackingRequestImports, importDepsFromEnv } from "./tracking-request-imports/queue";
import { requeueStalledImports, type TrackingRequestImportMessage } from "./tracking-request-imports/service";
import type { TrackingRequestMessage } from "./tracking-requests/queue-message";
import { syncVesselPositions } from "./vessels/positions/feed-sync";
import { consumeWebhookDeliveries, consumeWebhookDeliveriesDlq } from "./webhooks/delivery";
import type { WebhookDeliveryMessage } from "./webhooks/outbox";

export { TrackingMcpAgent } from "./mcp/agent";
export { RateLimiter } from "./ratelimit/rate-limiter";
// The Tracker with the bench trace, inert unless BENCH_ENGINE=trace (src/tracking/bench-trace.ts).
export { BenchTracedTracker as Tracker } from "./tracking/bench-trace";
export { Credentials } from "./tracking/sources/credentials";
export { ProviderGate } from "./tracking/sources/terminal-operators/provider-gate";
export { AisFeed } from "./vessels/positions/ais-feed";

const app = createApp();

/**
 * The Worker: HTTP (REST /v2, docs; `/mcp` goes to the MCP guard and agent, src/mcp/http.ts; with `MCP_OAUTH = "on"`
 * the OAuth endpoints and Bearer requests to `/mcp` go through the OAuth provider first, src/oauth/mcp-bridge.ts),
 * queue consumers and the cron trigger (docs/architecture.md §Overview).
 */
const worker = {
  async fetch(request, env, ctx) {
    if (oauthEnabled(env)) {
      const routed = await routeWithOAuth(request, env, ctx);
      if (routed) return routed;
      return app.fetch(request, env, ctx);
    }
    return new URL(request.url).pathname === MCP_PATH
      ? handleMcpRequest(request, env, ctx)
      : app.fetch(request, env, ctx);
  },
  async queue(batch, env, _ctx) {
    switch (batch.queue) {
      case "tracking-requests":
        await consumeTrackingRequests(batch as MessageBatch<TrackingRequestMessage>, env);
        return;
      case "terminal-polls":
        await consumeTerminalPolls(batch as MessageBatch<TerminalPollMessage>, env);
        return;
      case "webhook-deliveries":
        await consumeWebhookDeliveries(batch as MessageBatch<WebhookDeliveryMessage>, env);
        return;
      case "document-extractions":
        await consumeDocumentExtractions(batch as MessageBatch<DocumentQueueMessage>, env);
        return;
      case "tracking-request-imports":
        await consumeTrackingRequestImports(batch as MessageBatch<TrackingRequestImportMessage>, env);
        return;
      case "webhook-deliveries-dlq":
        await consumeWebhookDeliveriesDlq(batch as MessageBatch<WebhookDeliveryMessage>, env);
        return;
      default:
        // A queue this Worker does not know (e.g. a dead-letter queue without a consumer here): leave its messages
        // to the queue's retries rather than dropping them.
        for (const message of batch.messages) message.retry({ delaySeconds: 300 });
    }
  },
  // Cloudflare Email Routing: documents e-mailed to an account's submission address (src/documents/email-intake.ts).
  async email(message, env, _ctx) {
    await handleEmail(message, env);
  },
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(runMaintenance(env));
    // Alerts: date-driven conditions, the daily digests, the charges webhook events, the alert outbox sweep.
    ctx.waitUntil(runAlertsCron(env));
    // Bulk imports whose chain of steps lost its message (src/tracking-request-imports/service.ts), in every shard.
    ctx.waitUntil(
      sweptShards(env).then(async (shards) => {
        for (const { db } of shards) await requeueStalledImports(importDepsFromEnv(env, systemClock, db));
      }),
    );
    // Vessel positions: retention, and the AIS feed's subscription follows the vessels carrying tracked boxes.
    ctx.waitUntil(syncVesselPositions(env, Date.now()));
    // Deletes push subscriptions of references no longer tracked, prunes old callback receipts (issue 13 §4). The
    // Port of Virginia's per-box subscriptions go first: they are deleted at the port, not only marked (issue 14).
    ctx.waitUntil(sweepPortOfVirginiaSubscriptions({ env }).then(() => sweepUpstreamSubscriptions({ env })));
    // Sign-in links and dashboard sessions a day after they stopped working are deleted (src/sessions/prune.ts).
    ctx.waitUntil(pruneSignInLinks(env.DB, Date.now()));
    ctx.waitUntil(pruneEndedSessions(env.DB, Date.now()));
    // Retention: old raw events and finished notifications move to R2, every shard (src/archive/cron.ts).
    ctx.waitUntil(runArchiveCron(env, systemClock));
  },
} satisfies ExportedHandler<Env, unknown>;

// The bench's entry points (src/tracking/bench-trace.ts), inert unless BENCH_ENGINE is set, as only
// `npm run bench -- engine` does.
export default withBenchEngine(worker);
