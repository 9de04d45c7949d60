import { env } from "cloudflare:test";
import { newId } from "../../src/lib/ids";

/** What a seeded container may set; everything else is the columns' defaults. */
export interface SeedContainer {
  number: string;
  scac?: string | null;
  podLocode?: string | null;
  podTimezone?: string | null;
  status?: string;
  available?: boolean | null;
  pickupLfd?: string | null;
  podDischargedAt?: string | null;
  podEtaAt?: string | null;
  podName?: string | null;
  holds?: { name: string; status: "hold" | "pending"; description: string | null }[];
  refNumbers?: string[];
  customerName?: string | null;
  /** Seconds after 2026-01-01T00:00:00Z for created_at and updated_at (order of creation). */
  second: number;
}

/** A seeded container's ids. */
export interface SeededContainer {
  id: string;
  shipmentId: string;
  number: string;
}

const at = (second: number) => new Date(Date.UTC(2026, 0, 1) + second * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * Writes containers straight to D1, one shipment each (with its POD ETA, POD name and optional customer party), for
 * list tests that need exact values (LFD, holds, ETA) the simulator would take days to reach, and bumps the account's
 * kept counts. Ids are UUIDv7 made in seeding order, so the `id` tiebreak follows the order given. The shipment's
 * SCAC and POD are the container's (`scac` null: the shipment's line is MAEU, the box has none). `d1`: the account's
 * shard (default the primary `DB`; test/helpers/shards.ts makes accounts on `DB_1`).
 */
export async function seedContainers(
  accountId: string,
  boxes: SeedContainer[],
  d1: D1Database = env.DB,
): Promise<SeededContainer[]> {
  const out: SeededContainer[] = [];
  const statements: D1PreparedStatement[] = [];
  for (const b of boxes) {
    const shipmentId = newId();
    const id = newId();
    let customerId: string | null = null;
    if (b.customerName) {
      customerId = newId();
      statements.push(
        d1
          .prepare("INSERT INTO parties (id, account_id, company_name, created_at) VALUES (?1, ?2, ?3, ?4)")
          .bind(customerId, accountId, b.customerName, at(b.second)),
      );
    }
    const bl = `BL${id.slice(-10).toUpperCase()}`;
    statements.push(
      d1
        .prepare(
          `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac, customer_id,
           port_of_discharge_locode, port_of_discharge_name, pod_eta_at, pod_timezone, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)`,
        )
        .bind(
          shipmentId,
          accountId,
          bl,
          b.scac ?? "MAEU",
          customerId,
          b.podLocode ?? null,
          b.podName ?? null,
          b.podEtaAt ?? null,
          b.podTimezone ?? null,
          at(b.second),
        ),
      d1
        .prepare(
          `INSERT INTO containers (id, account_id, shipment_id, number, ref_numbers, scac, pod_locode, pod_timezone,
           current_status, availability_known, available_for_pickup, holds_at_pod_terminal, pickup_lfd, pod_discharged_at,
           created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?15, ?14, ?14)`,
        )
        .bind(
          id,
          accountId,
          shipmentId,
          b.number,
          JSON.stringify(b.refNumbers ?? []),
          b.scac === undefined ? "MAEU" : b.scac,
          b.podLocode ?? null,
          b.podTimezone ?? null,
          b.status ?? "new",
          b.available === undefined || b.available === null ? 0 : 1,
          b.available === undefined || b.available === null ? null : b.available ? 1 : 0,
          JSON.stringify(b.holds ?? []),
          b.pickupLfd ?? null,
          at(b.second),
          b.podDischargedAt ?? null,
        ),
    );
    out.push({ id, shipmentId, number: b.number });
  }
  // The lists' unfiltered totals read the kept counts (src/lib/counts.ts), as every production insert bumps them.
  for (const [resource, by] of [
    ["container", boxes.length],
    ["shipment", boxes.length],
  ] as const) {
    statements.push(
      d1
        .prepare(
          `INSERT INTO account_resource_counts (account_id, resource, count) VALUES (?1, ?2, ?3)
         ON CONFLICT (account_id, resource) DO UPDATE SET count = count + excluded.count`,
        )
        .bind(accountId, resource, by),
    );
  }
  await d1.batch(statements);
  return out;
}

/**
 * Gives `containerId` the value `value` of a container custom field `slug` of the account (the definition is created
 * when missing, as `short_text`, or `dataType`), written straight to D1.
 */
export async function seedContainerCustomField(
  accountId: string,
  containerId: string,
  slug: string,
  value: unknown,
  dataType = "short_text",
): Promise<void> {
  const now = at(0);
  let definition = await env.DB.prepare(
    "SELECT id FROM custom_field_definitions WHERE account_id = ?1 AND api_slug = ?2 AND entity_type = 'Container'",
  )
    .bind(accountId, slug)
    .first<{ id: string }>();
  if (!definition) {
    definition = { id: newId() };
    await env.DB.prepare(
      `INSERT INTO custom_field_definitions (id, account_id, entity_type, api_slug, display_name, data_type, created_at, updated_at)
       VALUES (?1, ?2, 'Container', ?3, ?3, ?4, ?5, ?5)`,
    )
      .bind(definition.id, accountId, slug, dataType, now)
      .run();
  }
  await env.DB.prepare(
    `INSERT INTO custom_fields (id, account_id, definition_id, entity_type, entity_id, value, created_at, updated_at)
     VALUES (?1, ?2, ?3, 'container', ?4, ?5, ?6, ?6)`,
  )
    .bind(newId(), accountId, definition.id, containerId, JSON.stringify(value), now)
    .run();
}
