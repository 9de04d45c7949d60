import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import { createTrackingRequest, type Doc, type Many, type One, trackSandboxShipment } from "../helpers/tracking";

// PATCH /shipments/{id}/stop_tracking and /resume_tracking (docs/api.md §Shipment endpoints,
// docs/decisions.md §Tracking requests). The sandbox boxes are shared by every account of this file (one Tracker per
// box), so Tracker assertions look only at this account's container ids.

const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

async function tracked() {
  const account = await createAccount();
  const sandbox = await trackSandboxShipment(account);
  const { json } = await apiJson<Many>(`/containers?filter[shipment_id]=${sandbox.shipment.id}`, { key: account.key });
  const boxes = json.data.map((c) => ({ id: c.id, number: String(c.attributes.number) }));
  return { account, ...sandbox, boxes };
}

/** How many times each of `containerIds` is listed among the subscriptions of its box's Tracker. */
async function subscriptionCounts(boxes: { id: string; number: string }[]): Promise<number[]> {
  const counts: number[] = [];
  for (const box of boxes) {
    const state = await env.TRACKER.get(env.TRACKER.idFromName(`TEST:${box.number}`)).currentState();
    counts.push((state?.subscriptions ?? []).filter((s) => s.containerId === box.id).length);
  }
  return counts;
}

function action(
  account: TestAccount | null,
  shipmentId: string,
  name: "stop_tracking" | "resume_tracking",
  body?: unknown,
) {
  return apiJson<One & Doc>(`/shipments/${shipmentId}/${name}`, { method: "PATCH", key: account?.key ?? null, body });
}

async function requestStatus(account: TestAccount, id: string): Promise<unknown> {
  const { json } = await apiJson<One>(`/tracking_requests/${id}`, { key: account.key });
  return json.data.attributes.status;
}

describe("bodiless actions", () => {
  it("stop and resume accept an empty body sent with a JSON Content-Type", async () => {
    const { account, shipment } = await tracked();
    for (const name of ["stop_tracking", "resume_tracking"] as const) {
      const res = await api(`/shipments/${shipment.id}/${name}`, {
        method: "PATCH",
        key: account.key,
        headers: { "Content-Type": "application/json" },
        body: "",
      });
      expect(res.status, name).toBe(200);
    }
    const { json } = await apiJson<One>(`/shipments/${shipment.id}`, { key: account.key });
    expect(json.data.attributes.line_tracking_stopped_at).toBeNull();
  });
});

describe("PATCH /shipments/{id}/stop_tracking", () => {
  it("stops the shipment: stop fields set, request tracking_stopped, filter finds it, Trackers let go", async () => {
    const { account, shipment, request, boxes } = await tracked();
    expect(await subscriptionCounts(boxes)).toEqual([1, 1]);
    const { res, json } = await action(account, shipment.id, "stop_tracking");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.data).toMatchObject({ id: shipment.id, type: "shipment" });
    expect(json.data.attributes.line_tracking_stopped_at).toMatch(ISO_SECONDS);
    expect(json.data.attributes.line_tracking_stopped_reason).toBe("cancelled_by_user");
    expect(await requestStatus(account, request.id)).toBe("tracking_stopped");
    const stopped = await apiJson<Many>("/shipments?filter[tracking_stopped]=true", { key: account.key });
    expect(stopped.json.data.map((s) => s.id)).toEqual([shipment.id]);
    const running = await apiJson<Many>("/shipments?filter[tracking_stopped]=false", { key: account.key });
    expect(running.json.data).toEqual([]);
    expect(await subscriptionCounts(boxes)).toEqual([0, 0]);
    // Data collected so far stays readable.
    const container = await apiJson<One>(`/containers/${boxes[0]?.id}`, { key: account.key });
    expect(container.res.status).toBe(200);
  });

  it("is idempotent: a second stop keeps the first stop time and reason", async () => {
    const { account, shipment } = await tracked();
    const first = await action(account, shipment.id, "stop_tracking");
    const second = await action(account, shipment.id, "stop_tracking");
    expect(second.res.status).toBe(200);
    expect(second.json.data.attributes.line_tracking_stopped_at).toBe(
      first.json.data.attributes.line_tracking_stopped_at,
    );
    expect(second.json.data.attributes.line_tracking_stopped_reason).toBe("cancelled_by_user");
  });

  it("accepts the SDK's body {data:{type:'shipment', id}}", async () => {
    const { account, shipment } = await tracked();
    const { res, json } = await action(account, shipment.id, "stop_tracking", {
      data: { type: "shipment", id: shipment.id },
    });
    expect(res.status).toBe(200);
    expect(json.data.attributes.line_tracking_stopped_reason).toBe("cancelled_by_user");
  });
});

describe("PATCH /shipments/{id}/resume_tracking", () => {
  it("resumes: stop cleared, request back to created, the subscription is back (once)", async () => {
    const { account, shipment, request, boxes } = await tracked();
    await action(account, shipment.id, "stop_tracking");
    const { res, json } = await action(account, shipment.id, "resume_tracking", {
      data: { type: "shipment", id: shipment.id },
    });
    expect(res.status).toBe(200);
    expect(json.data.attributes.line_tracking_stopped_at).toBeNull();
    expect(json.data.attributes.line_tracking_stopped_reason).toBeNull();
    expect(await requestStatus(account, request.id)).toBe("created");
    expect(await subscriptionCounts(boxes)).toEqual([1, 1]);
    const stopped = await apiJson<Many>("/shipments?filter[tracking_stopped]=true", { key: account.key });
    expect(stopped.json.data).toEqual([]);
    for (const box of boxes) {
      const state = await env.TRACKER.get(env.TRACKER.idFromName(`TEST:${box.number}`)).currentState();
      expect(state?.stopped).toBe(false);
      expect(state?.nextPollAt).toMatch(ISO_SECONDS);
    }
    // The container rows are kept current again.
    const container = await apiJson<One>(`/containers/${boxes[0]?.id}`, { key: account.key });
    expect(container.json.data.attributes.current_status).toBe("on_ship");
  });

  it("is idempotent, and resuming a shipment that never stopped changes nothing", async () => {
    const { account, shipment, request, boxes } = await tracked();
    const never = await action(account, shipment.id, "resume_tracking");
    expect(never.res.status).toBe(200);
    expect(never.json.data.attributes.line_tracking_stopped_at).toBeNull();
    expect(await subscriptionCounts(boxes)).toEqual([1, 1]);
    await action(account, shipment.id, "stop_tracking");
    await action(account, shipment.id, "resume_tracking");
    const again = await action(account, shipment.id, "resume_tracking");
    expect(again.res.status).toBe(200);
    expect(await requestStatus(account, request.id)).toBe("created");
    expect(await subscriptionCounts(boxes)).toEqual([1, 1]);
  });

  it("leaves a request stopped when the number was tracked anew meanwhile (one active request per number)", async () => {
    const { account, shipment, request } = await tracked();
    await action(account, shipment.id, "stop_tracking");
    const fresh = await createTrackingRequest(account, { request_number: "TEST-TR-SUCCEEDED" });
    const { res } = await action(account, shipment.id, "resume_tracking");
    expect(res.status).toBe(200);
    expect(await requestStatus(account, request.id)).toBe("tracking_stopped");
    expect(["pending", "created"]).toContain(await requestStatus(account, fresh.id));
  });
});

describe("stop/resume: errors", () => {
  for (const name of ["stop_tracking", "resume_tracking"] as const) {
    it(`${name}: a body naming another shipment is a 422 on /data/id, and nothing changes`, async () => {
      const { account, shipment, request } = await tracked();
      if (name === "resume_tracking") await action(account, shipment.id, "stop_tracking");
      const before = await apiJson<One>(`/shipments/${shipment.id}`, { key: account.key });
      const { res, json } = await action(account, shipment.id, name, {
        data: { type: "shipment", id: crypto.randomUUID() },
      });
      expect(res.status).toBe(422);
      expect(json.errors?.[0]).toMatchObject({ status: "422", source: { pointer: "/data/id" }, code: "invalid" });
      const after = await apiJson<One>(`/shipments/${shipment.id}`, { key: account.key });
      expect(after.json.data.attributes).toEqual(before.json.data.attributes);
      expect(await requestStatus(account, request.id)).toBe(
        name === "resume_tracking" ? "tracking_stopped" : "created",
      );
    });

    it(`${name}: a body of another type or with unknown members is a 422`, async () => {
      const { account, shipment } = await tracked();
      const wrongType = await action(account, shipment.id, name, { data: { type: "container", id: shipment.id } });
      expect(wrongType.res.status).toBe(422);
      expect(wrongType.json.errors?.[0]?.source).toEqual({ pointer: "/data/type" });
      const extra = await action(account, shipment.id, name, { data: { type: "shipment" }, force: true });
      expect(extra.res.status).toBe(422);
      expect(extra.json.errors?.[0]).toMatchObject({ source: { pointer: "/force" }, code: "unknown_attribute" });
    });

    it(`${name}: an unknown shipment is a 404`, async () => {
      const account = await createAccount();
      const { res, json } = await action(account, crypto.randomUUID(), name);
      expect(res.status).toBe(404);
      expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    });
  }
});

describe("stop/resume: security", () => {
  it("no key → 401", async () => {
    const { shipment } = await tracked();
    expect((await api(`/shipments/${shipment.id}/stop_tracking`, { method: "PATCH" })).status).toBe(401);
    expect((await api(`/shipments/${shipment.id}/resume_tracking`, { method: "PATCH" })).status).toBe(401);
  });

  it("another account's shipment → 404, and the owner's shipment, request and subscriptions are untouched", async () => {
    const a = await tracked();
    const b = await createAccount();
    await trackSandboxShipment(b);
    const stop = await action(b, a.shipment.id, "stop_tracking", { data: { type: "shipment", id: a.shipment.id } });
    expect(stop.res.status).toBe(404);
    expect(JSON.stringify(stop.json)).not.toContain("TEST-TR-SUCCEEDED");
    const { json } = await apiJson<One>(`/shipments/${a.shipment.id}`, { key: a.account.key });
    expect(json.data.attributes.line_tracking_stopped_at).toBeNull();
    expect(await requestStatus(a.account, a.request.id)).toBe("created");
    expect(await subscriptionCounts(a.boxes)).toEqual([1, 1]);

    // And B cannot resume what A stopped.
    await action(a.account, a.shipment.id, "stop_tracking");
    const resume = await action(b, a.shipment.id, "resume_tracking");
    expect(resume.res.status).toBe(404);
    expect(await requestStatus(a.account, a.request.id)).toBe("tracking_stopped");
    expect(await subscriptionCounts(a.boxes)).toEqual([0, 0]);
  });
});

describe("OpenAPI", () => {
  it("documents both actions with the id parameter, an optional body and their errors", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string }[]; requestBody?: { required?: boolean }; responses: Record<string, unknown> }
        >
      >;
    };
    for (const name of ["stop_tracking", "resume_tracking"]) {
      const op = doc.paths[`/shipments/{id}/${name}`]?.patch;
      expect(op, name).toBeDefined();
      expect(op?.parameters?.map((p) => p.name)).toEqual(["id"]);
      expect(op?.requestBody?.required).toBeFalsy();
      expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(["200", "401", "404", "422", "429"]));
    }
  });
});
