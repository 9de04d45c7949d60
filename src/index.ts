import { createApp } from "./app";
import type { Env, TrackingRequestMessage } from "./env";
import { consumeTrackingRequests } from "./tracking/consumers";

export { RateLimiter } from "./ratelimit/rate-limiter";

const app = createApp();

/**
 * The Worker: HTTP (REST /v2, docs), queue consumers and the cron trigger (DESIGN.md §1).
 */
export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  async queue(batch, env) {
    switch (batch.queue) {
      case "tracking-requests":
        await consumeTrackingRequests(batch as MessageBatch<TrackingRequestMessage>, env);
        return;
      default:
        // terminal-polls and webhook-deliveries consumers arrive with the engine and webhook work.
        for (const message of batch.messages) message.ack();
    }
  },
  async scheduled() {
    // Repair jobs (re-arm alarms, expire requests, sweep the outbox) arrive with the engine and webhook work.
  },
} satisfies ExportedHandler<Env, TrackingRequestMessage>;
