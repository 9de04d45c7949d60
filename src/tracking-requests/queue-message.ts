/**
 * Message on the `tracking-requests` queue: look up this tracking request at its carrier. Produced when a request is
 * created (`createTrackingRequest`, src/tracking-requests/service.ts), re-sent for a retry or a re-check
 * (src/tracking/consumers.ts) and re-queued by the cron sweep (src/tracking/maintenance.ts); consumed by
 * `consumeTrackingRequests` (src/tracking/consumers.ts).
 */
export interface TrackingRequestMessage {
  trackingRequestId: string;
  accountId: string;
}
