import { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { customFieldDefinitions, customFields, type StagedCustomFields } from "../db/schema";
import { ApiError, type ErrorObject } from "../lib/errors";
import { ValueInput } from "./schemas";
import type { ValueEntityType } from "./value-types";
import { definitionForEntity, insertValueStatement, typedValue } from "./values";

const entry = { api_slug: z.string().max(64), value: ValueInput };

/**
 * `initial_custom_fields` of `POST /tracking_requests` (docs/api.md §Custom fields): `shipment` entries
 * `{api_slug, value}` and `containers` entries `{api_slug, value, number?}` (`number` omitted or `""`: every
 * container), at most 50 of each.
 */
export const InitialCustomFieldsInput = z.strictObject({
  shipment: z.array(z.strictObject(entry)).max(50).optional(),
  containers: z
    .array(z.strictObject({ ...entry, number: z.string().max(64).nullable().optional() }))
    .max(50)
    .optional(),
});

/** The parsed `initial_custom_fields`. */
export type InitialCustomFields = z.infer<typeof InitialCustomFieldsInput>;

const BASE = "/data/attributes/initial_custom_fields";

/**
 * Checks `initial_custom_fields` now, at create, so a tracking request never carries a value its lookup would have to
 * drop: each slug must name a definition of the account of the matching entity type (`Shipment` for `shipment`,
 * `Container` for `containers`), and each value must fit it (docs/api.md §Custom fields). Container numbers are
 * trimmed and upper-cased; a number no container of the shipment has is simply not applied.
 * @returns the staged form stored with the request, or null when nothing was sent; and every error found (pointers
 *   like `/data/attributes/initial_custom_fields/containers/1/api_slug`), for the create's one 422.
 */
export async function stageInitialCustomFields(
  db: Database,
  accountId: string,
  input: InitialCustomFields | undefined,
): Promise<{ staged: StagedCustomFields | null; errors: Omit<ErrorObject, "status" | "title">[] }> {
  const errors: Omit<ErrorObject, "status" | "title">[] = [];
  if (!input) return { staged: null, errors };
  const staged: StagedCustomFields = { shipment: [], containers: [] };
  const check = async (kind: "shipment" | "containers", i: number, slug: string, value: unknown) => {
    const entity: ValueEntityType = kind === "shipment" ? "shipment" : "container";
    try {
      const definition = await definitionForEntity(db, accountId, entity, slug, `${BASE}/${kind}/${i}/api_slug`);
      return {
        definitionId: definition.id,
        value: await typedValue(db, accountId, definition, value, `${BASE}/${kind}/${i}/value`),
      };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      errors.push(...err.errors.map(({ status: _s, title: _t, ...rest }) => rest));
      return null;
    }
  };
  for (const [i, e] of (input.shipment ?? []).entries()) {
    const ok = await check("shipment", i, e.api_slug, e.value);
    if (ok) staged.shipment.push(ok);
  }
  for (const [i, e] of (input.containers ?? []).entries()) {
    const ok = await check("containers", i, e.api_slug, e.value);
    const number = (e.number ?? "").trim().toUpperCase();
    if (ok) staged.containers.push({ ...ok, number: number === "" ? null : number });
  }
  return { staged: staged.shipment.length + staged.containers.length > 0 ? staged : null, errors };
}

/** One value to write on an entity the lookup creates. */
interface Carried {
  definitionId: string;
  entityType: "shipment" | "container";
  entityId: string;
  value: unknown;
}

/**
 * The statements that write a tracking request's custom field values onto the shipment and containers its lookup
 * creates, for the lookup's own D1 batch (src/tracking/persist.ts; docs/api.md §Custom fields). In order of
 * precedence (the first value of a definition on an entity wins): `initial_custom_fields` container entries naming the
 * container's number; the values set on the tracking request itself (`Shipment` fields → the shipment, `Container`
 * fields → every container; `TrackingRequest` fields stay on the request); `initial_custom_fields` shipment entries
 * and container entries without a number (every container). Each insert selects its definition, so a definition
 * deleted since the request was made writes nothing (and never an orphan value). Reads the request's values once.
 */
export async function carriedCustomFieldStatements(
  db: Database,
  request: { id: string; accountId: string; initialCustomFields: StagedCustomFields | null },
  shipmentId: string,
  boxes: { containerId: string; number: string }[],
  now: string,
) {
  const own = await db
    .select({
      definitionId: customFields.definitionId,
      value: customFields.value,
      entityType: customFieldDefinitions.entityType,
    })
    .from(customFields)
    .innerJoin(customFieldDefinitions, eq(customFieldDefinitions.id, customFields.definitionId))
    .where(
      and(
        eq(customFields.accountId, request.accountId),
        eq(customFields.entityType, "tracking_request"),
        eq(customFields.entityId, request.id),
      ),
    );
  const staged = request.initialCustomFields ?? { shipment: [], containers: [] };
  const carried: Carried[] = [];
  const onBoxes = (definitionId: string, value: unknown, number: string | null) => {
    for (const box of boxes) {
      if (number === null || box.number.toUpperCase() === number) {
        carried.push({ definitionId, value, entityType: "container", entityId: box.containerId });
      }
    }
  };
  for (const e of staged.containers) if (e.number !== null) onBoxes(e.definitionId, e.value, e.number);
  for (const v of own) {
    if (v.entityType === "Shipment")
      carried.push({ definitionId: v.definitionId, value: v.value, entityType: "shipment", entityId: shipmentId });
    if (v.entityType === "Container") onBoxes(v.definitionId, v.value, null);
  }
  for (const e of staged.shipment) carried.push({ ...e, entityType: "shipment", entityId: shipmentId });
  for (const e of staged.containers) if (e.number === null) onBoxes(e.definitionId, e.value, null);
  return carried.map((c) => insertValueStatement(db, { ...c, accountId: request.accountId, now }, "keep"));
}
