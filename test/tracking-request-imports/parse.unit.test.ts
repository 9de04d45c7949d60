import { utils, write } from "@e965/xlsx";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import {
  formatOf,
  headerKey,
  MAX_IMPORT_ROWS,
  parseCsv,
  parseImportFile,
  parseJsonRows,
  parseXlsx,
} from "../../src/tracking-request-imports/parse";
import { resultsCsv } from "../../src/tracking-request-imports/serializer";
import type { ImportRowRecord } from "../../src/tracking-request-imports/service";
import { splitList } from "../../src/tracking-request-imports/validate";

// docs/api.md §Tracking request imports: columns by header name (case-insensitive, the reference's names and the
// usual spreadsheet ones), CSV by papaparse and XLSX by SheetJS, row numbers as the file shows them.

const bytes = (text: string) => new TextEncoder().encode(text);

function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("no error thrown");
}

describe("CSV", () => {
  it("maps headers case-insensitively, keeps the file's row numbers and skips blank lines", () => {
    const parsed = parseCsv(
      bytes("Container Number,SCAC,Ref Numbers,Notes\r\nMSCU1234566,mscu,PO-1\r\n\r\n,,\r\nTGHU1\r\n"),
    );
    expect(parsed.ignoredColumns).toEqual(["Notes"]);
    expect(parsed.rows).toEqual([
      {
        rowNumber: 2,
        values: { request_number: "MSCU1234566", scac: "mscu", ref_numbers: "PO-1" },
        impliedType: "container",
      },
      { rowNumber: 5, values: { request_number: "TGHU1", scac: "", ref_numbers: "" }, impliedType: "container" },
    ]);
  });

  it("reads a byte-order mark, semicolons, and quoted fields with delimiters, quotes and line breaks", () => {
    const text = '\uFEFFnumber;scac;ref_numbers\n"MAEU 123;456";MAEU;"say ""hi""\nPO-9"\n';
    const parsed = parseCsv(bytes(text));
    expect(parsed.rows).toEqual([
      { rowNumber: 2, values: { request_number: "MAEU 123;456", scac: "MAEU", ref_numbers: 'say "hi"\nPO-9' } },
    ]);
    const short = parseCsv(bytes("number;scac\nMAEU123456789;MAEU\n"));
    expect(short.rows[0]?.values).toEqual({ request_number: "MAEU123456789", scac: "MAEU" });
    const tabs = parseCsv(bytes("bill_of_lading\tshipping_line\nMEDUAB123456\tMSCU\n"));
    expect(tabs.rows[0]).toEqual({
      rowNumber: 2,
      values: { request_number: "MEDUAB123456", scac: "MSCU" },
      impliedType: "bill_of_lading",
    });
  });

  it("refuses text that is not UTF-8, a file without a number column, and too many rows", () => {
    expect(apiErrorOf(() => parseCsv(new Uint8Array([0x6e, 0xff, 0xfe]))).errors[0]?.code).toBe("invalid_file");
    expect(apiErrorOf(() => parseCsv(bytes("scac,type\nMSCU,container\n"))).errors[0]?.code).toBe("missing_column");
    const many = `number\n${Array.from({ length: MAX_IMPORT_ROWS + 1 }, (_, i) => `N${i}`).join("\n")}`;
    expect(apiErrorOf(() => parseCsv(bytes(many))).errors[0]?.code).toBe("too_many_rows");
    expect(
      parseCsv(bytes(`number\n${Array.from({ length: MAX_IMPORT_ROWS }, (_, i) => `N${i}`).join("\n")}`)).rows,
    ).toHaveLength(MAX_IMPORT_ROWS);
    expect(apiErrorOf(() => parseImportFile("csv", new Uint8Array(1024 * 1024 + 1))).status).toBe(413);
  });
});

describe("XLSX", () => {
  it("reads the first worksheet of a workbook written by SheetJS, numbers in full, formulas as values", () => {
    const sheet = utils.aoa_to_sheet([
      ["Booking Number", "Carrier", "Tags"],
      [123456789012, "MAEU", "urgent; reefer"],
      [],
      ["MSCU1234566", "MSCU", { t: "s", v: "=HYPERLINK(1)", f: "1+1" }],
    ]);
    const book = utils.book_new();
    utils.book_append_sheet(book, sheet, "Boxes");
    utils.book_append_sheet(book, utils.aoa_to_sheet([["number"], ["IGNORED"]]), "Other");
    const file = new Uint8Array(write(book, { type: "array", bookType: "xlsx" }) as ArrayBuffer);
    const parsed = parseXlsx(file);
    expect(parsed.rows).toEqual([
      {
        rowNumber: 2,
        values: { request_number: "123456789012", scac: "MAEU", shipment_tags: "urgent; reefer" },
        impliedType: "booking",
      },
      {
        rowNumber: 4,
        values: { request_number: "MSCU1234566", scac: "MSCU", shipment_tags: "=HYPERLINK(1)" },
        impliedType: "booking",
      },
    ]);
  });

  it("refuses bytes that are not a workbook", () => {
    expect(apiErrorOf(() => parseXlsx(bytes("number\nX\n"))).errors[0]?.code).toBe("invalid_file");
    expect(apiErrorOf(() => parseXlsx(new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]))).errors[0]?.code).toBe("invalid_file");
  });
});

describe("JSON rows, names and lists", () => {
  it("reads rows as a file's, lists included", () => {
    const parsed = parseJsonRows([
      { request_number: "X1", ref_numbers: ["A", "B"] },
      { number: "X2", extra: "y" },
    ]);
    expect(parsed.rows.map((r) => r.values)).toEqual([
      { request_number: "X1", ref_numbers: "A;B" },
      { request_number: "", ref_numbers: "" },
    ]);
    expect(parsed.ignoredColumns).toEqual(["number", "extra"]);
  });

  it("normalises headers and splits list cells", () => {
    expect(headerKey("  Bill-of Lading #  ")).toBe("bill_of_lading");
    expect(splitList(" a; b ,c|d\n\n ")).toEqual(["a", "b", "c", "d"]);
    expect(splitList(undefined)).toEqual([]);
  });

  it("knows a file's format by its media type, then its name", () => {
    expect(formatOf("text/csv; charset=utf-8", null)).toBe("csv");
    expect(formatOf("application/octet-stream", "Boxes.XLSX")).toBe("xlsx");
    expect(formatOf("application/vnd.ms-excel", "boxes")).toBe("csv");
    expect(formatOf("application/pdf", "boxes.pdf")).toBeNull();
  });
});

describe("the results CSV", () => {
  it("quotes as RFC 4180 and starts every formula-looking cell with a quote", () => {
    const row: ImportRowRecord = {
      importId: "i",
      rowNumber: 2,
      accountId: "a",
      requestNumber: "=1+1",
      requestType: "container",
      scac: "+CMD",
      scacSource: "file",
      suggestedScac: null,
      refNumbers: ["@SUM(A1)", "x"],
      shipmentTags: ["-2", "\tTAB"],
      customerId: null,
      outcome: "invalid",
      reasons: [{ code: "invalid_number", detail: 'Say "no", twice' }],
      trackingRequestId: null,
    };
    const [, line] = resultsCsv([row]).split("\r\n");
    expect(line).toBe(
      `2,"'=1+1",container,"'+CMD",file,,"'@SUM(A1);x","'-2;\tTAB",,invalid,,"invalid_number: Say ""no"", twice"`,
    );
  });
});
