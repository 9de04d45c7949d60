/**
 * Message on the `terminal-polls` queue: poll the box with this SCAC and container number now. Produced by the
 * Tracker when a box's poll is due (src/tracking/tracker.ts) and by upstream push callbacks (src/callbacks/);
 * consumed by `consumeTerminalPolls` (src/tracking/poll-consumer.ts).
 */
export interface TerminalPollMessage {
  scac: string;
  number: string;
}
