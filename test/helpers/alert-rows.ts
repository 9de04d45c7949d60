import { env } from "cloudflare:test";
import { newId } from "../../src/lib/ids";

/** Options of {@link insertAlert}. */
export interface AlertRowOptions {
  containerId?: string;
  condition?: string;
  episodeKey?: string;
  status?: string;
  attempts?: number;
  lastError?: string | null;
  deliveredAt?: string | null;
  createdAt?: string;
}

/** Writes one alert of `ruleId` straight into D1 (as the box update or the cron would) and returns its id. */
export async function insertAlert(accountId: string, ruleId: string, options: AlertRowOptions = {}): Promise<string> {
  const id = newId();
  const createdAt = options.createdAt ?? "2030-01-01T00:00:00Z";
  await env.DB.prepare(
    `INSERT INTO alerts (id, account_id, kind, rule_id, container_id, condition, episode_key, facts, channel_type,
       channel_target, status, attempts, last_error, delivered_at, created_at, updated_at)
     VALUES (?1, ?2, 'alert', ?3, ?4, ?5, ?6, '{}', 'email', 'ops@acme-logistics.com', ?7, ?8, ?9, ?10, ?11, ?11)`,
  )
    .bind(
      id,
      accountId,
      ruleId,
      options.containerId ?? newId(),
      options.condition ?? "hold_changed",
      options.episodeKey ?? `hold:CUSTOMS:placed:${createdAt}`,
      options.status ?? "succeeded",
      options.attempts ?? 1,
      options.lastError ?? null,
      options.deliveredAt ?? null,
      createdAt,
    )
    .run();
  return id;
}
