import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import type { AppEnv, SignedInUser } from "../env";
import { InvalidReferenceNumber } from "../infer/classify";
import { serializeInferResult } from "../infer/serializer";
import { inferNumber } from "../infer/service";
import { ApiError } from "../lib/errors";
import { executionContextOf } from "../lib/http";
import { BUCKET_MESSAGES } from "../ratelimit/buckets";
import { checkRateLimit } from "../ratelimit/client";
import { findShippingLine } from "../reference/shipping-lines";
import { roleAllows } from "../sessions/session";
import { sourcesFor } from "../tracking/sources";
import { REQUEST_TYPES } from "../tracking-requests/schemas";
import { createTrackingRequest, getTrackingRequest } from "../tracking-requests/service";
import { CsrfField, Layout } from "./layout";
import { importPageRoutes } from "./track-import-page";

/** What the one-number form sends back when it is re-rendered, and the messages by field. */
interface TrackFormState {
  number?: string;
  scac?: string;
  requestType?: string;
  errors?: Partial<Record<"number" | "scac" | "request_type" | "form", string>>;
}

const TYPE_LABELS: Record<string, string> = {
  container: "Container number",
  bill_of_lading: "Bill of lading",
  booking: "Booking number",
};

/** The lines the service can track here (docs/decisions.md §Tracking requests "supported"), by name. */
function supportedLines(env: Env): { scac: string; name: string }[] {
  return [...sourcesFor(env).supportedScacs]
    .map((scac) => ({ scac, name: findShippingLine(scac)?.name ?? scac }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A readable HTML page for a refused or failed dashboard request, keeping its status (issue 28 page conventions). */
export function errorPage(c: Context<AppEnv>, status: 400 | 403 | 404 | 413 | 415 | 422 | 429, message: string) {
  return c.html(
    <Layout
      title={status === 404 ? "Not found" : status === 403 ? "Not allowed" : "Cannot do that"}
      user={c.get("user")}
    >
      <p role="alert">{message}</p>
      <p>
        <a href="/app/track">Back to Track</a>
      </p>
    </Layout>,
    status,
  );
}

/** Members and admins only (viewers read): a viewer gets a 403 page. */
export const memberOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = c.get("user");
  if (!user || !roleAllows(user.role, "member")) {
    return errorPage(c, 403, "Tracking boxes needs the member role; ask an admin of your account.");
  }
  await next();
};

/** The Track page (GET /app/track): one number with a suggested line, and the bulk upload form. */
function TrackPage({
  user,
  lines,
  state,
  started,
}: {
  user: SignedInUser;
  lines: { scac: string; name: string }[];
  state: TrackFormState;
  started?: { number: string; scac: string | null } | null;
}) {
  const e = state.errors ?? {};
  return (
    <Layout title="Track" user={user} current="/app/track" scripts={["track.js"]} styles={["track.css"]}>
      {started ? (
        <p class="notice" role="status">
          {`Tracking started for ${started.number}${started.scac ? ` (${started.scac})` : ""}. The box appears under `}
          <a href="/app/containers">Containers</a> once the line answers.
        </p>
      ) : null}
      <section aria-labelledby="track-one-heading" class="track-section">
        <h2 id="track-one-heading">Track one number</h2>
        <form method="post" action="/app/track" class="track-one" data-infer-url="/app/track/infer" novalidate>
          <CsrfField user={user} />
          {e.form ? (
            <p class="field-error" role="alert" id="form-error">
              {e.form}
            </p>
          ) : null}
          <div class="field">
            <label for="track-number">Container, bill of lading or booking number</label>
            <input
              id="track-number"
              name="number"
              required
              autocomplete="off"
              spellcheck={false}
              maxlength={64}
              value={state.number ?? ""}
              aria-invalid={e.number ? "true" : undefined}
              aria-describedby={e.number ? "track-number-error track-number-hint" : "track-number-hint"}
            />
            <p id="track-number-hint" class="hint" aria-live="polite">
              The line is suggested as you type; leave it on “Detect” to let the service choose.
            </p>
            {e.number ? (
              <p id="track-number-error" class="field-error">
                {e.number}
              </p>
            ) : null}
          </div>
          <div class="field">
            <label for="track-scac">Shipping line</label>
            <select
              id="track-scac"
              name="scac"
              aria-invalid={e.scac ? "true" : undefined}
              aria-describedby={e.scac ? "track-scac-error" : undefined}
            >
              <option value="">Detect</option>
              {lines.map((l) => (
                <option value={l.scac} selected={state.scac === l.scac}>
                  {`${l.name} (${l.scac})`}
                </option>
              ))}
            </select>
            {e.scac ? (
              <p id="track-scac-error" class="field-error">
                {e.scac}
              </p>
            ) : null}
          </div>
          <div class="field">
            <label for="track-type">Number type</label>
            <select
              id="track-type"
              name="request_type"
              aria-invalid={e.request_type ? "true" : undefined}
              aria-describedby={e.request_type ? "track-type-error" : undefined}
            >
              <option value="">Detect</option>
              {Object.entries(TYPE_LABELS).map(([value, label]) => (
                <option value={value} selected={state.requestType === value}>
                  {label}
                </option>
              ))}
            </select>
            {e.request_type ? (
              <p id="track-type-error" class="field-error">
                {e.request_type}
              </p>
            ) : null}
          </div>
          <button type="submit">Track</button>
        </form>
      </section>
      <section aria-labelledby="track-bulk-heading" class="track-section">
        <h2 id="track-bulk-heading">Import many from a file</h2>
        <p id="track-file-hint">
          A CSV or XLSX file (at most 1000 rows, 1 MiB) with a header row: <code>number</code> (or{" "}
          <code>container_number</code>, <code>bill_of_lading</code>, <code>booking_number</code>), <code>scac</code>,
          and optionally <code>type</code>, <code>ref_numbers</code>, <code>shipment_tags</code>, <code>customer</code>.
          Every row is checked first; nothing is created until you confirm.
        </p>
        <form method="post" action="/app/track/imports" enctype="multipart/form-data">
          <CsrfField user={user} />
          <div class="field">
            <label for="track-file">CSV or XLSX file</label>
            <input
              id="track-file"
              type="file"
              name="file"
              required
              accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
              aria-describedby="track-file-hint"
            />
          </div>
          <button type="submit">Upload and check</button>
        </form>
      </section>
    </Layout>
  );
}

/** The field of the one-number form an API error's pointer names. */
function fieldOf(pointer: string | undefined): "number" | "scac" | "request_type" | "form" {
  if (pointer?.endsWith("/request_number")) return "number";
  if (pointer?.endsWith("/scac")) return "scac";
  if (pointer?.endsWith("/request_type")) return "request_type";
  return "form";
}

/**
 * The Track page's routes under /app (issue 28 §Track; docs/dashboard.md §Track), members and admins only. They call
 * the services REST calls: `inferNumber` (POST /v2/tracking_requests/infer_number), `createTrackingRequest`
 * (POST /v2/tracking_requests) within the same rate buckets, and the import service of
 * POST /v2/tracking_request_imports (src/dashboard/track-import-page.tsx).
 */
export const trackRoutes = new Hono<AppEnv>();

trackRoutes.use("/track", memberOnly);
trackRoutes.use("/track/*", memberOnly);

trackRoutes.get("/track", async (c) => {
  const startedId = c.req.query("started");
  let started: { number: string; scac: string | null } | null = null;
  if (startedId) {
    try {
      const row = await getTrackingRequest(c.var.db, c.var.user.accountId, startedId);
      started = { number: row.requestNumber, scac: row.scac };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return c.html(<TrackPage user={c.var.user} lines={supportedLines(c.env)} state={{}} started={started} />);
});

// Same-origin JSON for the island: the infer_number result of one number (its own rate bucket, as over REST).
trackRoutes.get("/track/infer", async (c) => {
  const number = (c.req.query("number") ?? "").slice(0, 100);
  const decision = await checkRateLimit(
    c.env,
    c.var.user.accountId,
    "infer_number",
    c.var.clock.now(),
    executionContextOf(c),
  );
  if (!decision.allowed) {
    return c.json({ error: BUCKET_MESSAGES.infer_number }, 429, { "Retry-After": String(decision.retryAfterSeconds) });
  }
  try {
    const result = await inferNumber(c.var.db, number);
    const supported = sourcesFor(c.env).supportedScacs;
    return c.json({ ...serializeInferResult(result), supported: [...supported].filter((s) => s !== "TEST") });
  } catch (err) {
    if (err instanceof InvalidReferenceNumber) return c.json({ error: "This reference number is not valid." }, 422);
    throw err;
  }
});

trackRoutes.post("/track", async (c) => {
  const form = await c.req.parseBody();
  const text = (name: string) => (typeof form[name] === "string" ? (form[name] as string).trim() : "");
  const state: TrackFormState = { number: text("number"), scac: text("scac"), requestType: text("request_type") };
  const lines = supportedLines(c.env);
  const rerender = (errors: TrackFormState["errors"], status: 422 | 429) =>
    c.html(<TrackPage user={c.var.user} lines={lines} state={{ ...state, errors }} />, status);
  const number = state.number ?? "";
  if (number === "") return rerender({ number: "Enter a number." }, 422);
  if (state.requestType && !(REQUEST_TYPES as readonly string[]).includes(state.requestType)) {
    return rerender({ request_type: "Choose a number type from the list." }, 422);
  }

  let scac = state.scac ?? "";
  let requestType = state.requestType ?? "";
  if (scac === "" || requestType === "") {
    // Without JavaScript (or with "Detect"): the server infers, as the island would have suggested.
    try {
      const { classification, prediction } = await inferNumber(c.var.db, number);
      if (requestType === "") requestType = classification.numberType;
      if (classification.validation.isValid === false) {
        return rerender({ number: classification.validation.reason ?? "This number is not valid." }, 422);
      }
      const supported = sourcesFor(c.env).supportedScacs;
      const pick = prediction.selected;
      if (scac === "") {
        if (pick && prediction.decision !== "no_prediction" && supported.has(pick.scac)) {
          scac = pick.scac;
        } else {
          state.scac = pick?.scac ?? prediction.candidates[0]?.scac ?? "";
          return rerender({ scac: "The line could not be detected with confidence: choose it from the list." }, 422);
        }
      }
    } catch (err) {
      if (err instanceof InvalidReferenceNumber) return rerender({ number: "This is not a tracking number." }, 422);
      throw err;
    }
  }

  const bucket = await checkRateLimit(
    c.env,
    c.var.user.accountId,
    "create_tracking_request",
    c.var.clock.now(),
    executionContextOf(c),
  );
  if (!bucket.allowed) return rerender({ form: BUCKET_MESSAGES.create_tracking_request }, 429);
  try {
    const row = await createTrackingRequest(
      {
        db: c.var.db,
        clock: c.var.clock,
        queue: c.env.TRACKING_REQUESTS_QUEUE,
        supportedScacs: sourcesFor(c.env).supportedScacs,
      },
      c.var.user.accountId,
      { requestType: requestType as (typeof REQUEST_TYPES)[number], requestNumber: number, scac },
    );
    return c.redirect(`/app/track?started=${encodeURIComponent(row.id)}`, 303);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    const errors: NonNullable<TrackFormState["errors"]> = {};
    for (const e of err.errors) {
      const field = fieldOf(e.source?.pointer);
      errors[field] = errors[field] ? `${errors[field]} ${e.detail ?? ""}` : (e.detail ?? "Refused.");
    }
    return rerender(errors, 422);
  }
});

trackRoutes.route("/track/imports", importPageRoutes);
