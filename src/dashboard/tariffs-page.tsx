import { type Context, Hono } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { roleAllows } from "../sessions/session";
import { CreateTariffBody, UpdateTariffBody } from "../tariffs/schemas";
import type { TariffRow } from "../tariffs/serializer";
import { createTariff, deleteTariff, getTariff, listTariffs, updateTariff } from "../tariffs/service";
import {
  FormErrors,
  type FormValues,
  formChecked,
  formErrorsOf,
  formInteger,
  formString,
  isFormError,
  parseWithSchema,
  readForm,
} from "./forms";
import { htmlErrors, type PageStatus, renderPage } from "./page-response";
import {
  MAX_TIER_ROWS,
  MIN_TIER_ROWS,
  newTariffForm,
  TARIFFS_PATH,
  type TariffFormValues,
  TariffPage,
  TariffsPage,
  type TierFormValues,
} from "./tariffs-views";

/** Least role that may create, change or delete tariffs (docs/dashboard.md §Roles): they set what invoices say. */
export const TARIFF_WRITE_ROLE = "admin" as const;

/** Tariffs listed: an account keeps tens (src/tariffs/service.ts `allTariffs`); the list shows the newest 100. */
const TARIFFS_SHOWN = 100;

function canWrite(c: Context<AppEnv>): boolean {
  return roleAllows(c.var.user.role, TARIFF_WRITE_ROLE);
}

function requireWrite(c: Context<AppEnv>): void {
  if (!canWrite(c)) throw new ApiError(403, [{ detail: `Changing tariffs needs the ${TARIFF_WRITE_ROLE} role.` }]);
}

/** The form as typed; `extraRow` adds an empty tier row ("Add a tier row"). */
function tariffFormValues(form: FormValues, extraRow = false): TariffFormValues {
  const declared = Number(formString(form, "tier_rows"));
  const rows = Number.isInteger(declared) ? Math.min(MAX_TIER_ROWS, Math.max(MIN_TIER_ROWS, declared)) : MIN_TIER_ROWS;
  const tiers: TierFormValues[] = Array.from({ length: rows }, (_, i) => ({
    from: formString(form, `tier_from_${i}`),
    to: formString(form, `tier_to_${i}`),
    rate: formString(form, `tier_rate_${i}`),
  }));
  if (extraRow && tiers.length < MAX_TIER_ROWS) tiers.push({ from: "", to: "", rate: "" });
  return {
    name: formString(form, "name"),
    kind: formString(form, "kind"),
    scac: formString(form, "scac"),
    portCode: formString(form, "port_code"),
    terminalId: formString(form, "terminal_id"),
    equipmentLength: formString(form, "equipment_length"),
    equipmentType: formString(form, "equipment_type"),
    freeDays: formString(form, "free_days"),
    freeDaysBasis: formString(form, "free_days_basis"),
    clockStartsAt: formString(form, "clock_starts_at"),
    currency: formString(form, "currency"),
    tiers,
  };
}

/**
 * The REST attributes of the form, and which editor row each sent tier came from. Empty rows are skipped; an empty
 * "From day" follows the tier before (1 for the first); the one currency goes on every tier.
 */
function tariffAttributes(v: TariffFormValues) {
  const rowOf: number[] = [];
  const tiers: Array<Record<string, unknown>> = [];
  const asInt = (s: string) => (s === "" ? null : /^\d{1,9}$/.test(s) ? Number(s) : s);
  v.tiers.forEach((t, row) => {
    if (t.from === "" && t.to === "" && t.rate === "") return;
    const previous = tiers.at(-1);
    const from =
      t.from !== ""
        ? asInt(t.from)
        : previous === undefined
          ? 1
          : typeof previous.to_day === "number"
            ? previous.to_day + 1
            : null;
    tiers.push({ from_day: from, to_day: asInt(t.to), rate_per_day: t.rate, currency_code: v.currency.toUpperCase() });
    rowOf.push(row);
  });
  const orNull = (s: string) => (s === "" ? null : s);
  const attributes = {
    name: orNull(v.name),
    kind: v.kind,
    scac: orNull(v.scac),
    port_code: orNull(v.portCode),
    terminal_id: orNull(v.terminalId),
    equipment_length: asInt(v.equipmentLength),
    equipment_type: orNull(v.equipmentType),
    free_days: formInteger({ free_days: v.freeDays }, "free_days"),
    free_days_basis: v.freeDaysBasis || "calendar",
    clock_starts_at: v.clockStartsAt,
    tiers,
  };
  return { attributes, rowOf };
}

/**
 * The field errors of a refused tariff with each tier's pointer moved to its editor row (`tiers/<sent index>/…` →
 * `tiers/<row>/…`) and every tier's currency error on the one currency field.
 */
function tariffFormErrors(err: ApiError, rowOf: readonly number[]): FormErrors {
  const errors = formErrorsOf(err);
  return new FormErrors(
    errors.items.map((e) => {
      const match = e.field ? /^tiers\/(\d+)\/(.+)$/.exec(e.field) : null;
      if (!match) return e;
      if (match[2] === "currency_code") return { ...e, field: "currency" };
      return { ...e, field: `tiers/${rowOf[Number(match[1])] ?? match[1]}/${match[2]}` };
    }),
  );
}

async function listPage(c: Context<AppEnv>, form: TariffFormValues, errors: FormErrors, status: PageStatus = 200) {
  const { rows, total } = await listTariffs(c.var.db, c.var.user.accountId, {
    number: 1,
    size: TARIFFS_SHOWN,
    sizeGiven: true,
    offset: 0,
  });
  return renderPage(
    c,
    <TariffsPage user={c.var.user} canWrite={canWrite(c)} rows={rows} total={total} form={form} errors={errors} />,
    status,
  );
}

function tariffPage(
  c: Context<AppEnv>,
  tariff: TariffRow,
  extras: Omit<Parameters<typeof TariffPage>[0], "user" | "canWrite" | "tariff"> = {},
  status: PageStatus = 200,
) {
  return renderPage(c, <TariffPage user={c.var.user} canWrite={canWrite(c)} tariff={tariff} {...extras} />, status);
}

/**
 * The tariffs pages under /app/settings/tariffs (issue 28 §Settings; docs/dashboard.md §Tariffs): the list, and
 * create, edit and delete through `POST /tariffs`, `PATCH /tariffs/{id}` and `DELETE /tariffs/{id}`'s body schema and
 * service (src/tariffs/service.ts), refusals next to their field (a tier's next to its row) with nothing stored. The
 * tiers editor works without JavaScript: a fixed number of rows, and "Add a tier row" re-renders the form with one
 * more (nothing saved). Everybody signed in reads; writing needs {@link TARIFF_WRITE_ROLE}.
 */
export const tariffPages = new Hono<AppEnv>();
tariffPages.use("*", htmlErrors);

tariffPages.get("/", (c) => listPage(c, newTariffForm(), FormErrors.none));

tariffPages.post("/", async (c) => {
  requireWrite(c);
  const form = await readForm(c);
  if (formChecked(form, "add_tier")) return listPage(c, tariffFormValues(form, true), FormErrors.none);
  const values = tariffFormValues(form);
  const { attributes, rowOf } = tariffAttributes(values);
  try {
    const body = parseWithSchema(CreateTariffBody, { data: { type: "tariff", attributes } });
    const row = await createTariff({ db: c.var.db, clock: c.var.clock }, c.var.user.accountId, body.data.attributes);
    return tariffPage(c, row, { notice: "Tariff created." }, 201);
  } catch (err) {
    if (isFormError(err)) return listPage(c, values, tariffFormErrors(err, rowOf), err.status);
    throw err;
  }
});

// An action's URL opened with GET (the address bar after a form post, a bookmark) goes to its page instead of a 405.
tariffPages.get("/:id/:action{delete}", (c) =>
  c.redirect(`${TARIFFS_PATH}/${encodeURIComponent(c.req.param("id"))}`, 303),
);

tariffPages.get("/:id", async (c) => {
  const row = await getTariff(c.var.db, c.var.user.accountId, c.req.param("id"));
  return tariffPage(c, row);
});

tariffPages.post("/:id", async (c) => {
  requireWrite(c);
  const id = c.req.param("id");
  const current = await getTariff(c.var.db, c.var.user.accountId, id);
  const form = await readForm(c);
  if (formChecked(form, "add_tier")) return tariffPage(c, current, { form: tariffFormValues(form, true) });
  const values = tariffFormValues(form);
  const { attributes, rowOf } = tariffAttributes(values);
  try {
    const body = parseWithSchema(UpdateTariffBody, { data: { type: "tariff", id, attributes } });
    const row = await updateTariff(
      { db: c.var.db, clock: c.var.clock },
      c.var.user.accountId,
      id,
      body.data.attributes,
    );
    return tariffPage(c, row, { notice: "Saved." });
  } catch (err) {
    if (isFormError(err))
      return tariffPage(c, current, { form: values, errors: tariffFormErrors(err, rowOf) }, err.status);
    throw err;
  }
});

tariffPages.post("/:id/delete", async (c) => {
  requireWrite(c);
  const id = c.req.param("id");
  const row = await getTariff(c.var.db, c.var.user.accountId, id);
  if (!formChecked(await readForm(c), "confirm")) {
    const actionErrors = new FormErrors([{ field: "confirm", detail: "Tick the box to confirm the deletion." }]);
    return tariffPage(c, row, { actionErrors }, 422);
  }
  await deleteTariff(c.var.db, c.var.user.accountId, id);
  return c.redirect(TARIFFS_PATH, 303);
});
