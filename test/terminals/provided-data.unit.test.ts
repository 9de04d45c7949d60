import { describe, expect, it } from "vitest";
import { isServedTerminal } from "../../src/terminals/provided-data";

/**
 * Paths that serialise a terminal without passing through the /v2 app (queue consumers building webhook payloads,
 * the Tracker, the MCP agent) must read the same `provided_data` as REST: this file's isolate makes no request
 * first, so the answer comes from the Worker's own configuration alone.
 */
describe("terminal provided_data outside the /v2 app", () => {
  it("reads the Worker's own sources when no request has set them", () => {
    const fms = { firmsCode: "Y257", smdgCode: null, bicFacilityCode: null, facilityType: "ocean_terminal" };
    const unserved = { firmsCode: "ZZZZ", smdgCode: null, bicFacilityCode: null, facilityType: "ocean_terminal" };
    expect(isServedTerminal(fms)).toBe(true);
    expect(isServedTerminal(unserved)).toBe(false);
  });
});
