import { FUTURE_T0 } from "./engine";

/** What a {@link terminalPollMessage} was told by the consumer: how often it was acked and retried. */
export interface MessageState {
  acked: number;
  retried: number;
}

/**
 * A `terminal-polls` queue message for box `number` of `scac` (first attempt, stamped {@link FUTURE_T0}) that records
 * whether the consumer acked or retried it; `id` defaults to `msg-{number}`.
 */
export function terminalPollMessage(
  scac: string,
  number: string,
  id = `msg-${number}`,
): { message: Message<{ scac: string; number: string }>; state: MessageState } {
  const state: MessageState = { acked: 0, retried: 0 };
  const message = {
    id,
    timestamp: new Date(FUTURE_T0),
    body: { scac, number },
    attempts: 1,
    ack: () => {
      state.acked++;
    },
    retry: () => {
      state.retried++;
    },
  } as unknown as Message<{ scac: string; number: string }>;
  return { message, state };
}
