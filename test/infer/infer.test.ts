import { describe, expect, it } from "vitest";
import { withCheckDigit } from "../../src/infer/iso6346";
import { apiJson, createAccount } from "../helpers/api";
import { trackSandboxShipment } from "../helpers/tracking";

interface Candidate {
  scac: string;
  name: string;
  confidence: number;
}
interface InferDoc {
  data: {
    id: string;
    type: string;
    attributes: {
      number_type: string;
      validation: {
        is_valid: boolean | null;
        type: string;
        check_digit_passed: boolean | null;
        parsed_number: null;
        reason: string | null;
      };
      shipping_line: { decision: string; selected: Candidate | null; candidates: Candidate[] };
    };
  };
  errors?: { status: string; title: string; detail: string; source?: { pointer?: string } }[];
}

const PATH = "/tracking_requests/infer_number";

async function infer(key: string, number: unknown) {
  return apiJson<InferDoc>(PATH, { method: "POST", key, body: { number } });
}

describe("POST /tracking_requests/infer_number", () => {
  it("answers the infer_number_results shape for a container", async () => {
    const account = await createAccount();
    const { res, json } = await infer(account.key, "whlu 123456 0");
    expect(res.status).toBe(200);
    expect(json.data.id).toMatch(/^req_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(json.data.type).toBe("infer_number_results");
    expect(json.data.attributes).toEqual({
      number_type: "container",
      validation: { is_valid: true, type: "container", check_digit_passed: true, parsed_number: null, reason: null },
      shipping_line: {
        decision: "auto_select",
        selected: { scac: "WHLC", name: "Wan Hai Lines", confidence: 0.96 },
        candidates: [{ scac: "WHLC", name: "Wan Hai Lines", confidence: 0.96 }],
      },
    });
  });

  it("reports an invalid check digit and still predicts", async () => {
    const account = await createAccount();
    const { json } = await infer(account.key, "MSCU1234567");
    expect(json.data.attributes.validation).toMatchObject({
      is_valid: false,
      check_digit_passed: false,
      reason: "Invalid check digit",
    });
    expect(json.data.attributes.shipping_line.selected?.scac).toBe("MSCU");
  });

  it("classifies bills of lading and bookings", async () => {
    const account = await createAccount();
    const bl = await infer(account.key, "MEDU-AB1234");
    expect(bl.json.data.attributes.number_type).toBe("bill_of_lading");
    expect(bl.json.data.attributes.validation).toMatchObject({ is_valid: true, type: "shipment" });
    expect(bl.json.data.attributes.shipping_line.selected?.scac).toBe("MSCU");
    const booking = await infer(account.key, "987654321");
    expect(booking.json.data.attributes.number_type).toBe("booking");
    expect(booking.json.data.attributes.validation.is_valid).toBeNull();
    expect(booking.json.data.attributes.shipping_line).toEqual({
      decision: "no_prediction",
      selected: null,
      candidates: [],
    });
  });

  it("answers 422 for garbage", async () => {
    const account = await createAccount();
    for (const garbage of ["", "   ", "--", "!!!", "A".repeat(41)]) {
      const { res, json } = await infer(account.key, garbage);
      expect(res.status, JSON.stringify(garbage)).toBe(422);
      expect(json.errors).toEqual([
        {
          status: "422",
          title: "Unprocessable Entity",
          detail: "This reference number is not valid.",
          source: { pointer: "/number" },
        },
      ]);
    }
  });

  it("answers 422 for a missing, non-string or unknown field", async () => {
    const account = await createAccount();
    for (const body of [{}, { number: 12 }, { number: "X".repeat(101) }, { number: "MSCU1234567", extra: 1 }]) {
      const { res } = await apiJson(PATH, { method: "POST", key: account.key, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });

  it("answers 401 without a key", async () => {
    const { res } = await apiJson(PATH, { method: "POST", body: { number: "MSCU1234567" } });
    expect(res.status).toBe(401);
  });

  it("learns from tracking history: TSTU boxes predict TEST after a sandbox shipment", async () => {
    const account = await createAccount();
    const number = withCheckDigit("TSTU987654");
    const before = await infer(account.key, number);
    expect(before.json.data.attributes.shipping_line.candidates.some((c) => c.scac === "TEST")).toBe(false);

    await trackSandboxShipment(account);

    const other = await createAccount("Other");
    const after = await infer(other.key, number);
    const line = after.json.data.attributes.shipping_line;
    expect(line.selected?.scac).toBe("TEST");
    expect(line.selected?.name).toBe("Test Carrier");
    expect(line.selected?.confidence).toBeGreaterThanOrEqual(0.75);
    expect(line.decision).not.toBe("no_prediction");

    const bl = await infer(other.key, "test-tr-succeeded");
    expect(bl.json.data.attributes.shipping_line.selected).toEqual({
      scac: "TEST",
      name: "Test Carrier",
      confidence: 1,
    });
    expect(bl.json.data.attributes.shipping_line.decision).toBe("auto_select");
  });

  it("is listed in the OpenAPI document", async () => {
    const { json } = await apiJson<{ paths: Record<string, Record<string, unknown>> }>("/openapi.json");
    expect(Object.keys(json.paths[PATH] ?? {})).toEqual(["post"]);
  });
});
