import { createApp } from "./app";
import type { Env, TerminalPollMessage, TrackingRequestMessage } from "./env";
import { consumeTerminalPolls, consumeTrackingRequests } from "./tracking/consumers";
import { runMaintenance } from "./tracking/maintenance";

export { RateLimiter } from "./ratelimit/rate-limiter";
export { Tracker } from "./tracking/tracker";

const app = createApp();

/**
 * The Worker: HTTP (REST /v2, docs), queue consumers and the cron trigger (DESIGN.md §1).
 */
export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  async queue(batch, env, _ctx) {
    switch (batch.queue) {
      case "tracking-requests":
        await consumeTrackingRequests(batch as MessageBatch<TrackingRequestMessage>, env);
        return;
      case "terminal-polls":
        await consumeTerminalPolls(batch as MessageBatch<TerminalPollMessage>, env);
        return;
      default:
        // Nothing produces webhook-deliveries messages yet; leave them to the queue's retries and dead-letter
        // queue rather than dropping them.
        for (const message of batch.messages) message.retry({ delaySeconds: 300 });
    }
  },
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(runMaintenance(env));
  },
} satisfies ExportedHandler<Env, unknown>;
