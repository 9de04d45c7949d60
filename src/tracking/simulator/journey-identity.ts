/**
 * Which journey a tracked number belongs to: one of {@link JOURNEYS_PER_SCAC} per SCAC, and a box's place in it, so a
 * terminal poll of a box a BL lookup produced replays the BL's journey.
 */
import { CONTAINER_NUMBER_PATTERN } from "../../infer/iso6346";
import { fnv1a32 } from "./random";

/**
 * Journeys per SCAC. A box's serial is `index * JOURNEYS_PER_SCAC + seed` (index 0–3), so a container number alone
 * names its journey and its place in it: a terminal poll of a box a BL lookup produced replays the BL's journey.
 */
export const JOURNEYS_PER_SCAC = 250_000;
/** Most boxes a simulated shipment has. */
export const MAX_CONTAINERS = 3;

/**
 * The journey seed (0 to 249 999) and, for a container request, the box's index in it. A container number in ISO
 * 6346 shape decodes from its serial; any other number hashes (FNV-1a of `SCAC|number`).
 */
export function journeyIdentity(
  scac: string,
  requestType: string,
  number: string,
): { seed: number; containerIndex: number | null } {
  if (requestType === "container") {
    if (CONTAINER_NUMBER_PATTERN.test(number)) {
      const serial = Number(number.slice(4, 10));
      return { seed: serial % JOURNEYS_PER_SCAC, containerIndex: Math.floor(serial / JOURNEYS_PER_SCAC) };
    }
    return { seed: fnv1a32(`${scac}|${number}`) % JOURNEYS_PER_SCAC, containerIndex: 0 };
  }
  return { seed: fnv1a32(`${scac}|${number}`) % JOURNEYS_PER_SCAC, containerIndex: null };
}
