import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { utils, write } from "@e965/xlsx";
import { describe, expect, it } from "vitest";
import { withCheckDigit } from "../../src/infer/iso6346";
import { FakeClock } from "../../src/lib/clock";
import { MAX_IMPORT_BYTES, parseCsv } from "../../src/tracking-request-imports/parse";
import { importDepsFromEnv } from "../../src/tracking-request-imports/queue";
import { XLSX_MEDIA_TYPE } from "../../src/tracking-request-imports/routes";
import {
  createImport,
  type ImportDeps,
  requeueStalledImports,
  runImportStep,
  type TrackingRequestImportMessage,
} from "../../src/tracking-request-imports/service";
import { api, apiJson, BASE, createAccount } from "../helpers/api";

// docs/api.md §Tracking request imports: POST a file or rows → every row validated before anything is created → the
// valid rows created in the background within the create bucket; per-row results and a results CSV.

interface ImportDoc {
  data: {
    id: string;
    type: string;
    attributes: {
      status: string;
      format: string;
      file_name: string | null;
      counts: Record<string, number>;
      progress: number;
    };
    links: Record<string, string>;
  };
}

interface RowsDoc {
  data: {
    attributes: {
      row_number: number;
      scac_source: string | null;
      outcome: string;
      reasons: { code: string; detail: string }[];
      scac: string | null;
      suggested_scac: string | null;
    };
    relationships: { tracking_request: { data: { id: string } | null } };
  }[];
  meta: { total: number };
}

/** A container number with a valid ISO 6346 check digit, unique to the test run. */
function boxNumber(owner = "TSTU"): string {
  return withCheckDigit(`${owner}${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`);
}

/** The same box with its check digit changed (so it fails ISO 6346). */
function badCheckDigit(number: string): string {
  const last = Number(number.slice(-1));
  return `${number.slice(0, -1)}${(last + 1) % 10}`;
}

function upload(key: string | null, body: BodyInit, contentType: string, query = ""): Promise<Response> {
  const headers = new Headers({ "Content-Type": contentType });
  if (key) headers.set("Authorization", `Token ${key}`);
  return exports.default.fetch(
    new Request(`${BASE}/tracking_request_imports${query}`, { method: "POST", headers, body }),
  );
}

function multipart(
  key: string,
  csv: string,
  name = "boxes.csv",
  type = "text/csv",
  extra: Record<string, string> = {},
) {
  const form = new FormData();
  form.set("file", new File([csv], name, { type }));
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  return exports.default.fetch(
    new Request(`${BASE}/tracking_request_imports`, {
      method: "POST",
      headers: { Authorization: `Token ${key}` },
      body: form,
    }),
  );
}

describe("POST /tracking_request_imports", () => {
  it("validates every row, stores a dry run, and creates nothing until started", async () => {
    const { key, accountId } = await createAccount();
    const a = boxNumber();
    const b = boxNumber();
    const csv = [
      "Container Number,SCAC,Ref Numbers",
      `${a},TEST,PO-1;PO-2`,
      `${badCheckDigit(b)},TEST,`,
      `${a},TEST,dup`,
      `${boxNumber()},ZZZZ,`,
      "",
      `${b},TEST,"PO-3, PO-4"`,
    ].join("\r\n");
    const res = await upload(key, csv, "text/csv", "?dry_run=true&file_name=boxes.csv");
    expect(res.status).toBe(201);
    const doc = (await res.json()) as ImportDoc;
    expect(doc.data.type).toBe("tracking_request_import");
    expect(doc.data.attributes.status).toBe("validated");
    expect(doc.data.attributes.counts).toEqual({ total: 5, valid: 2, invalid: 3, created: 0, failed: 0, pending: 2 });

    const { json: rows } = await apiJson<RowsDoc>(`/tracking_request_imports/${doc.data.id}/rows`, { key });
    const byRow = new Map(rows.data.map((r) => [r.attributes.row_number, r.attributes]));
    expect(byRow.get(2)?.outcome).toBe("valid");
    expect(byRow.get(3)?.reasons.map((r) => r.code)).toEqual(["check_digit"]);
    expect(byRow.get(3)?.reasons[0]?.detail).toContain("ISO 6346");
    expect(byRow.get(4)?.reasons).toEqual([{ code: "duplicate", detail: "Same number and line as row 2." }]);
    expect(byRow.get(5)?.reasons.map((r) => r.code)).toEqual(["not_recognized"]);
    // The blank line 6 is skipped; row numbers stay the file's.
    expect(byRow.get(7)?.outcome).toBe("valid");
    expect(rows.meta.total).toBe(5);
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_requests WHERE account_id = ?1")
      .bind(accountId)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
  });

  it("reports every rule a row fails: blank, type, container shape, lists, customers by id or unique name", async () => {
    const { key, accountId } = await createAccount();
    const acme = crypto.randomUUID();
    await env.DB.batch(
      [
        [acme, "Acme Imports"],
        [crypto.randomUUID(), "Twin Co"],
        [crypto.randomUUID(), "twin co"],
      ].map(([id, name]) =>
        env.DB.prepare(
          "INSERT INTO parties (id, account_id, company_name, created_at) VALUES (?1, ?2, ?3, '2026-11-01T00:00:00Z')",
        ).bind(id, accountId, name),
      ),
    );
    const tooMany = Array.from({ length: 51 }, (_, i) => `R${i}`).join(";");
    const csv = [
      "number,type,scac,customer,ref_numbers",
      ",container,TEST,,",
      `${boxNumber()},pallet,TEST,,`,
      "ABC123,container,TEST,,",
      `${boxNumber()},container,TEST,acme imports,`,
      `${boxNumber()},container,TEST,${acme},`,
      `${boxNumber()},container,TEST,Twin Co,`,
      `${boxNumber()},container,TEST,Nobody,${tooMany}`,
      `MEDUAB123456,BL,MSCU,,`,
    ].join("\n");
    const doc = (await (await upload(key, csv, "text/csv", "?dry_run=true")).json()) as ImportDoc;
    const { json } = await apiJson<RowsDoc>(`/tracking_request_imports/${doc.data.id}/rows`, { key });
    const codes = json.data.map((r) => [r.attributes.row_number, r.attributes.reasons.map((x) => x.code)]);
    expect(codes).toEqual([
      [2, ["blank"]],
      [3, ["invalid_type"]],
      [4, ["invalid_container_number"]],
      [5, []],
      [6, []],
      [7, ["customer_ambiguous"]],
      [8, ["invalid_ref_numbers", "customer_not_found"]],
      // MSCU is a known line without a source in tests.
      [9, ["not_supported"]],
    ]);
    expect(doc.data.attributes.counts).toMatchObject({ total: 8, valid: 2, invalid: 6 });
  });

  it("marks a number the account already tracks, and fills or suggests a missing line with infer_number", async () => {
    const { key, accountId } = await createAccount();
    const tracked = boxNumber();
    const created = await api("/tracking_requests", {
      key,
      body: {
        data: {
          type: "tracking_request",
          attributes: { request_type: "container", request_number: tracked, scac: "TEST" },
        },
      },
    });
    expect(created.status).toBe(201);
    const maersk = withCheckDigit(
      "MSKU123456".replace("123456", String(Math.floor(Math.random() * 1e6)).padStart(6, "0")),
    );
    const res = await upload(key, `number,scac\n${tracked},TEST\n${maersk},\n`, "text/csv", "?dry_run=true");
    const doc = (await res.json()) as ImportDoc;
    const { json: rows } = await apiJson<RowsDoc>(`/tracking_request_imports/${doc.data.id}/rows`, { key });
    expect(rows.data[0]?.attributes.reasons[0]?.code).toBe("already_tracked");
    // MSKU is Maersk's own prefix (0.96: needs_confirmation), and Maersk has no source in tests: a suggestion only.
    expect(rows.data[1]?.attributes.reasons[0]?.code).toBe("scac_missing");
    expect(rows.data[1]?.attributes.suggested_scac).toBe("MAEU");
    expect(accountId).toBeTruthy();
  });

  it("fills a missing line when infer_number is confident (this number succeeded at the line before)", async () => {
    const { key } = await createAccount();
    const other = await createAccount();
    const box = boxNumber();
    // Another account's request for the box that reached `created` at TEST: history counts per SCAC only.
    await env.DB.prepare(
      "INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, compact_number, scac, line_scac, status, created_at, updated_at) VALUES (?1, ?2, 'container', ?3, ?3, ?3, 'TEST', 'TEST', 'created', '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z')",
    )
      .bind(crypto.randomUUID(), other.accountId, box)
      .run();
    const doc = (await (await upload(key, `number\n${box}\n`, "text/csv", "?dry_run=true")).json()) as ImportDoc;
    const { json: rows } = await apiJson<RowsDoc>(`/tracking_request_imports/${doc.data.id}/rows`, { key });
    expect(rows.data[0]?.attributes).toMatchObject({
      outcome: "valid",
      scac: "TEST",
      scac_source: "inferred",
      reasons: [],
    });
  });

  it("accepts multipart and JSON rows, and starts right away without dry_run", async () => {
    const { key } = await createAccount();
    const res = await multipart(key, `request_number,scac,type\n${boxNumber()},TEST,container\n`);
    expect(res.status).toBe(201);
    const doc = (await res.json()) as ImportDoc;
    expect(doc.data.attributes.status).toBe("running");

    const json = await apiJson<ImportDoc>("/tracking_request_imports", {
      key,
      body: {
        data: {
          type: "tracking_request_import",
          attributes: {
            rows: [{ container_number: boxNumber(), scac: "TEST", ref_numbers: ["A", "B"] }],
            dry_run: true,
          },
        },
      },
    });
    expect(json.res.status).toBe(201);
    expect(json.json.data.attributes.counts.valid).toBe(1);
    expect(json.json.data.attributes.status).toBe("validated");
  });

  it("reads an XLSX workbook, as a raw body or a multipart file", async () => {
    const { key } = await createAccount();
    const book = utils.book_new();
    utils.book_append_sheet(
      book,
      utils.aoa_to_sheet([
        ["Container", "SCAC"],
        [boxNumber(), "TEST"],
        [badCheckDigit(boxNumber()), "TEST"],
      ]),
      "Boxes",
    );
    const file = new Uint8Array(write(book, { type: "array", bookType: "xlsx" }) as ArrayBuffer);
    const raw = await upload(key, file, XLSX_MEDIA_TYPE, "?dry_run=true");
    expect(raw.status).toBe(201);
    const doc = (await raw.json()) as ImportDoc;
    expect(doc.data.attributes).toMatchObject({ format: "xlsx", counts: { total: 2, valid: 1, invalid: 1 } });
    const form = new FormData();
    form.set("file", new File([file], "boxes.xlsx", { type: "application/octet-stream" }));
    form.set("dry_run", "true");
    const res = await exports.default.fetch(
      new Request(`${BASE}/tracking_request_imports`, {
        method: "POST",
        headers: { Authorization: `Token ${key}` },
        body: form,
      }),
    );
    expect(res.status).toBe(201);
    expect(((await res.json()) as ImportDoc).data.attributes).toMatchObject({
      status: "validated",
      file_name: "boxes.xlsx",
    });
  });

  it("refuses bad input with a clear 4xx and stores nothing", async () => {
    const { key, accountId } = await createAccount();
    const missing = await upload(key, "foo,bar\n1,2\n", "text/csv");
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe("missing_column");
    const big = await upload(key, `number\n${"A".repeat(MAX_IMPORT_BYTES)}\n`, "text/csv");
    expect(big.status).toBe(413);
    const notXlsx = await upload(
      key,
      "not a workbook",
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    );
    expect(notXlsx.status).toBe(422);
    expect((await upload(key, "<x/>", "application/xml")).status).toBe(415);
    const rows = Array.from({ length: 1001 }, (_, i) => `N${i}`).join("\n");
    expect((await upload(key, `number\n${rows}\n`, "text/csv")).status).toBe(422);
    expect((await upload(key, "number\n\n\n", "text/csv")).status).toBe(422);
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_request_imports WHERE account_id = ?1")
      .bind(accountId)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
  });

  it("needs a key, and another account's import is 404", async () => {
    expect((await upload(null, "number\nX\n", "text/csv")).status).toBe(401);
    expect((await upload("bad-key", "number\nX\n", "text/csv")).status).toBe(401);
    const { key } = await createAccount();
    const other = await createAccount();
    const doc = (await (
      await upload(key, `number,scac\n${boxNumber()},TEST\n`, "text/csv", "?dry_run=true")
    ).json()) as ImportDoc;
    for (const path of ["", "/rows", "/results.csv"]) {
      expect((await api(`/tracking_request_imports/${doc.data.id}${path}`, { key: other.key })).status).toBe(404);
    }
    expect(
      (await api(`/tracking_request_imports/${doc.data.id}/start`, { key: other.key, method: "POST" })).status,
    ).toBe(404);
    expect((await api(`/tracking_request_imports/${doc.data.id}`)).status).toBe(401);
  });
});

describe("the background creation", () => {
  it("creates the valid rows within the create bucket: spread over windows, never a row refused for the rate", async () => {
    const { key, accountId } = await createAccount();
    const clock = new FakeClock(Date.UTC(2026, 11, 1, 12));
    const sent: TrackingRequestImportMessage[] = [];
    // A bucket of 5 per minute for this test (the RateLimiter reads the limit from the env).
    const deps = {
      ...importDepsFromEnv({ ...env, RATE_LIMIT_CREATE_TRACKING_REQUEST: "5" } as Env, clock),
      importQueue: recordingQueue(sent),
    };
    const numbers = Array.from({ length: 12 }, () => boxNumber());
    const csv = `number,scac\n${numbers.map((n) => `${n},TEST`).join("\n")}\n`;
    const started = await createImport(deps, accountId, {
      format: "csv",
      fileName: null,
      parsed: parseCsv(new TextEncoder().encode(csv)),
      start: true,
    });
    expect(started.status).toBe("running");
    expect(sent).toEqual([{ importId: started.id, accountId }]);
    const message = { importId: started.id, accountId };

    const first = await runImportStep(deps, message);
    expect(first).toEqual({ done: false, delaySeconds: expect.any(Number) });
    if (first.done) throw new Error("unreachable");
    expect(first.delaySeconds).toBeGreaterThanOrEqual(1);
    expect(first.delaySeconds).toBeLessThanOrEqual(60);
    let doc = await getDoc(key, started.id);
    expect(doc.counts).toMatchObject({ created: 5, failed: 0, pending: 7 });
    expect(doc.progress).toBe(0.41);

    clock.advance(61_000);
    expect((await runImportStep(deps, message)).done).toBe(false);
    clock.advance(61_000);
    expect(await runImportStep(deps, message)).toEqual({ done: true });
    doc = await getDoc(key, started.id);
    expect(doc.status).toBe("completed");
    expect(doc.counts).toMatchObject({ total: 12, created: 12, failed: 0, pending: 0 });
    expect(doc.progress).toBe(1);
    const made = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_requests WHERE account_id = ?1")
      .bind(accountId)
      .first<{ n: number }>();
    expect(made?.n).toBe(12);
    // A repeated message finds nothing to do.
    expect(await runImportStep(deps, message)).toEqual({ done: true });
  });

  it("marks a row failed when the create refuses it (tracked meanwhile), and the results CSV says so", async () => {
    const { key, accountId } = await createAccount();
    const box = boxNumber();
    const res = await upload(
      key,
      `number,scac,ref_numbers\n${box},TEST,=HYPERLINK("http://x")\n`,
      "text/csv",
      "?dry_run=true",
    );
    const doc = (await res.json()) as ImportDoc;
    // Tracked through the API after validation.
    await api("/tracking_requests", {
      key,
      body: {
        data: {
          type: "tracking_request",
          attributes: { request_type: "container", request_number: box, scac: "TEST" },
        },
      },
    });
    const clock = new FakeClock(Date.now());
    const deps = { ...importDepsFromEnv(env, clock), importQueue: recordingQueue([]) };
    await api(`/tracking_request_imports/${doc.data.id}/start`, { key, method: "POST" });
    expect(await runImportStep(deps, { importId: doc.data.id, accountId })).toEqual({ done: true });
    const after = await getDoc(key, doc.data.id);
    expect(after.counts).toMatchObject({ created: 0, failed: 1 });
    const csv = await api(`/tracking_request_imports/${doc.data.id}/results.csv`, { key });
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const text = await csv.text();
    expect(text.split("\r\n")[0]).toBe(
      "row,request_number,request_type,scac,scac_source,suggested_scac,ref_numbers,shipment_tags,customer_id,outcome,tracking_request_id,reasons",
    );
    expect(text).toContain(`2,${box},container,TEST,file,,"'=HYPERLINK(""http://x"")",,,failed,,duplicate:`);
  });
});

describe("the cron's sweep of stalled imports", () => {
  it("gives back rows a dead step left `creating` and queues a new step, only for imports untouched for 15 minutes", async () => {
    const { key, accountId } = await createAccount();
    const doc = (await (
      await upload(key, `number,scac\n${boxNumber()},TEST\n${boxNumber()},TEST\n`, "text/csv", "?dry_run=true")
    ).json()) as ImportDoc;
    const id = doc.data.id;
    // As if a step had claimed row 2 and died, long ago.
    await env.DB.batch([
      env.DB.prepare(
        "UPDATE tracking_request_imports SET status = 'running', updated_at = '2026-01-01T00:00:00Z' WHERE id = ?1",
      ).bind(id),
      env.DB.prepare(
        "UPDATE tracking_request_import_rows SET outcome = 'creating' WHERE import_id = ?1 AND row_number = 2",
      ).bind(id),
    ]);
    const sent: TrackingRequestImportMessage[] = [];
    const clock = new FakeClock(Date.parse("2026-01-01T00:14:00Z"));
    const deps = { ...importDepsFromEnv(env, clock), importQueue: recordingQueue(sent) };
    expect(await requeueStalledImports(deps)).toBe(0);
    clock.set(Date.parse("2026-01-01T00:16:00Z"));
    expect(await requeueStalledImports(deps)).toBeGreaterThanOrEqual(1);
    expect(sent).toContainEqual({ importId: id, accountId });
    const { json: rows } = await apiJson<RowsDoc>(`/tracking_request_imports/${id}/rows?filter[outcome]=valid`, {
      key,
    });
    expect(rows.data.map((r) => r.attributes.row_number)).toEqual([2, 3]);
    // Touched: the next run leaves it alone.
    sent.length = 0;
    await requeueStalledImports(deps);
    expect(sent.filter((m) => m.importId === id)).toEqual([]);
  });
});

/** A stand-in for the import queue that records what is sent. */
function recordingQueue(sent: TrackingRequestImportMessage[]): ImportDeps["importQueue"] {
  return {
    send: async (m) => {
      sent.push(m);
      return {} as QueueSendResponse;
    },
  };
}

async function getDoc(key: string, id: string) {
  const { res, json } = await apiJson<ImportDoc>(`/tracking_request_imports/${id}`, { key });
  expect(res.status).toBe(200);
  return json.data.attributes;
}
