import { describe, expect, it } from "vitest";
import { POLL_SLOT_MS, pollSlotDelaySeconds } from "../../src/tracking/schedule";

// Issue 14 "Batching per terminal": scheduled polls are delivered at their terminal's slot boundaries, so the boxes
// due at one terminal meet in one terminal-polls batch instead of arriving one by one over the hour.

const T0 = Date.UTC(2030, 0, 7, 6, 0, 0);

describe("pollSlotDelaySeconds", () => {
  it("gathers 1 000 boxes whose alarms fire spread over an hour into 12 delivery times, each at most a slot late", () => {
    const deliveries = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      // Alarms spread evenly over the hour, at millisecond resolution.
      const firedAt = T0 + Math.floor((i * 3_600_000) / 1000) + (i % 7);
      const delay = pollSlotDelaySeconds(firedAt, "W185");
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay * 1000).toBeLessThan(POLL_SLOT_MS);
      deliveries.add(Math.ceil(firedAt / 1000) + delay);
    }
    expect(deliveries.size).toBeLessThanOrEqual(13);
    expect(deliveries.size).toBeGreaterThanOrEqual(12);
    const seconds = [...deliveries].sort((a, b) => a - b);
    for (let i = 1; i < seconds.length; i++)
      expect((seconds[i] ?? 0) - (seconds[i - 1] ?? 0)).toBe(POLL_SLOT_MS / 1000);
  });

  it("shifts the slots per terminal, so two terminals' boxes do not arrive in the same second", () => {
    const at = (facility: string) =>
      (Math.ceil(T0 / 1000) + pollSlotDelaySeconds(T0, facility)) % (POLL_SLOT_MS / 1000);
    const offsets = new Set(["W185", "Y258", "E425", "Y257", "WAC8"].map(at));
    expect(offsets.size).toBeGreaterThan(1);
  });

  it("does not hold polls on the simulator's fast clock (slots under 10 s)", () => {
    expect(pollSlotDelaySeconds(T0 + 1234, "W185", 1440)).toBe(0);
    expect(pollSlotDelaySeconds(T0 + 1234, "W185", 30)).toBeGreaterThanOrEqual(0);
    expect(pollSlotDelaySeconds(T0 + 1234, "W185", 30)).toBeLessThan(10);
  });
});
