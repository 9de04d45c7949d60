import { describe, expect, it } from "vitest";
import type { TerminalPollMessage } from "../../src/env";
import { pollMessages, TERMINAL_POLL_CONCURRENCY } from "../../src/tracking/consumers";

// How one terminal-polls batch is worked through (src/tracking/consumers.ts `pollMessages`): boxes in parallel up to
// a bound, each box's messages in order, and each message acked or retried on its own outcome.

/** A queue message that records what the consumer did with it. */
function message(id: string, scac: string, number: string) {
  const outcome: { acked: number; retried: number; delaySeconds?: number } = { acked: 0, retried: 0 };
  const m = {
    id,
    timestamp: new Date(0),
    attempts: 1,
    body: { scac, number } as TerminalPollMessage,
    ack: () => {
      outcome.acked++;
    },
    retry: (options?: { delaySeconds?: number }) => {
      outcome.retried++;
      outcome.delaySeconds = options?.delaySeconds;
    },
  };
  return { m: m as unknown as Message<TerminalPollMessage>, outcome };
}

/** A poll that stays open until released, recording how many run at once and in which order they started. */
function gatedPoll() {
  let running = 0;
  let maxRunning = 0;
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const poll = async (body: TerminalPollMessage) => {
    const key = `${body.scac}:${body.number}#${started.filter((s) => s.startsWith(`${body.scac}:${body.number}`)).length}`;
    started.push(key);
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise<void>((resolve) => gates.set(key, resolve));
    running--;
  };
  return { poll, started, gates, maxRunning: () => maxRunning };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("pollMessages", () => {
  it("polls different boxes at once, at most TERMINAL_POLL_CONCURRENCY, and acks each once", async () => {
    const messages = Array.from({ length: 20 }, (_, i) => message(`m${i}`, "MAEU", `BOX${i}`));
    const gated = gatedPoll();
    const done = pollMessages(
      messages.map((x) => x.m),
      gated.poll,
    );
    await flush();
    expect(gated.started).toHaveLength(TERMINAL_POLL_CONCURRENCY);
    // Release polls one by one: a freed slot takes the next box.
    while (gated.gates.size > 0) {
      const [key, release] = [...gated.gates][0] as [string, () => void];
      gated.gates.delete(key);
      release();
      await flush();
    }
    await done;
    expect(gated.maxRunning()).toBe(TERMINAL_POLL_CONCURRENCY);
    expect(gated.started).toHaveLength(20);
    expect(messages.map((x) => x.outcome)).toEqual(messages.map(() => ({ acked: 1, retried: 0 })));
  });

  it("polls the messages of one box one after another, in batch order", async () => {
    const messages = [message("a1", "MAEU", "SAME"), message("b", "MSCU", "OTHER"), message("a2", "MAEU", "SAME")];
    const gated = gatedPoll();
    const done = pollMessages(
      messages.map((x) => x.m),
      gated.poll,
    );
    await flush();
    // The second message of SAME has not started while the first is open; OTHER runs beside it.
    expect(gated.started.sort()).toEqual(["MAEU:SAME#0", "MSCU:OTHER#0"]);
    gated.gates.get("MAEU:SAME#0")?.();
    await flush();
    expect(gated.started).toContain("MAEU:SAME#1");
    gated.gates.get("MSCU:OTHER#0")?.();
    gated.gates.get("MAEU:SAME#1")?.();
    await done;
    expect(messages.map((x) => x.outcome.acked)).toEqual([1, 1, 1]);
  });

  it("a failing poll retries its own message in 30 s; the others are acked, the box's next message still polled", async () => {
    const messages = [message("a1", "MAEU", "SAME"), message("a2", "MAEU", "SAME"), message("b", "MSCU", "OTHER")];
    let calls = 0;
    await pollMessages(
      messages.map((x) => x.m),
      async (body) => {
        calls++;
        if (body.number === "SAME" && calls === 1) throw new Error("Tracker unreachable");
      },
    );
    expect(calls).toBe(3);
    expect(messages.map((x) => x.outcome)).toEqual([
      { acked: 0, retried: 1, delaySeconds: 30 },
      { acked: 1, retried: 0 },
      { acked: 1, retried: 0 },
    ]);
  });

  it("an empty batch does nothing", async () => {
    let calls = 0;
    await pollMessages([], async () => {
      calls++;
    });
    expect(calls).toBe(0);
  });
});
