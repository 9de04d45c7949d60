import { DurableObject } from "cloudflare:workers";
import { createDatabase } from "../../db/client";
import { type RecordPositionsResult, recordPositions } from "../position-store";
import { AISSTREAM_URL, type AisCounters, AisStreamSource, noAisCounters } from "./aisstream";
import { PositionBuffer } from "./buffer";
import type { TrackedVessel } from "./source";

/** Buffered reports are written to D1 at least this often (ms), by the alarm. */
export const FLUSH_INTERVAL_MS = 30_000;
/** A buffer holding this many reports is written at once rather than at the next alarm. */
export const FLUSH_AT_REPORTS = 500;
/** The one AisFeed object's name: one feed per deployment, whatever the number of accounts. */
export const AIS_FEED_NAME = "aisstream";

/** Where the feed connects and with which key; tests point it at their local fake server (setAisFeedConfig). */
export interface AisFeedConfig {
  apiKey: string | undefined;
  url: string;
}

let configOverride: Partial<AisFeedConfig> | null = null;

/**
 * Test seam: replaces the key and endpoint the AisFeed object reads from its env (`AISSTREAM_API_KEY`,
 * `AISSTREAM_URL`). Tests and the Worker share module state in the Workers Vitest pool, so a test points the feed at
 * its local fake AIS server here; `null` restores the env.
 */
export function setAisFeedConfig(config: Partial<AisFeedConfig> | null): void {
  configOverride = config;
}

/** The key and endpoint of the feed: the env's, unless a test set {@link setAisFeedConfig}. */
export function aisFeedConfig(env: Pick<Env, "AISSTREAM_API_KEY" | "AISSTREAM_URL">): AisFeedConfig {
  return {
    apiKey: configOverride?.apiKey ?? (env.AISSTREAM_API_KEY || undefined),
    url: configOverride?.url ?? (env.AISSTREAM_URL || AISSTREAM_URL),
  };
}

/** What the feed is doing (RPC `status`), for tests, the bench and operators. */
export interface AisFeedStatus {
  enabled: boolean;
  followed: number;
  subscriptions: { mmsis: string[] | null }[];
  openSockets: number;
  buffered: number;
  counters: AisCounters & { untracked: number; stored: number; dropped: number; flushErrors: number };
}

/**
 * The AIS feed (docs/architecture.md §Vessel positions): the one Durable Object (name {@link AIS_FEED_NAME}) that
 * holds aisstream.io's WebSocket(s) open, subscribed only to the vessels that carry a tracked box. The every-minute
 * cron tells it that set (`follow`, src/vessels/positions/feed-sync.ts); it re-subscribes when the set changes. Reports
 * of followed vessels are buffered (thinned, src/vessels/positions/buffer.ts) and written to D1 in batches every
 * {@link FLUSH_INTERVAL_MS} or every {@link FLUSH_AT_REPORTS} reports through `recordPositions`. A socket that drops
 * is reopened after a jittered, capped backoff, driven by the alarm. Malformed messages are counted and skipped. The
 * API key is read from the env, sent only in the subscription frame, and never logged.
 *
 * An outbound WebSocket cannot hibernate, so the object stays in memory while it follows vessels; its alarm (at most
 * every 30 s while following) also brings it back, reconnected, after an eviction. The followed set is kept in its
 * storage for that.
 */
export class AisFeed extends DurableObject<Env> {
  private source: AisStreamSource | null = null;
  private followed: TrackedVessel[] = [];
  private readonly buffer = new PositionBuffer();
  private flushing: Promise<RecordPositionsResult> | null = null;
  private resubscribe = false;
  private flushScheduled = false;
  private readonly totals = { stored: 0, dropped: 0, flushErrors: 0 };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.followed = (await ctx.storage.get<TrackedVessel[]>("followed")) ?? [];
      this.buffer.setFollowed(this.followed);
    });
  }

  /**
   * Follows exactly `vessels` from now on (the whole set): subscribes to them, unsubscribes from the rest. Without an
   * API key it follows nothing. An empty set closes the sockets and writes what is buffered.
   */
  async follow(vessels: TrackedVessel[]): Promise<AisFeedStatus> {
    const config = aisFeedConfig(this.env);
    // Keep MMSIs learnt since the caller read the vessels table.
    const known = new Map(this.followed.map((v) => [v.imo, v.mmsi]));
    const next = vessels.map((v) => ({ ...v, mmsi: v.mmsi ?? known.get(v.imo) ?? null }));
    const changed = JSON.stringify(next) !== JSON.stringify(this.followed);
    this.followed = next;
    this.buffer.setFollowed(next);
    if (changed) await this.ctx.storage.put("followed", next);
    if (!config.apiKey || next.length === 0) {
      await this.source?.close();
      this.source = null;
      await this.flush();
      await this.ctx.storage.deleteAlarm();
      return this.status();
    }
    await this.ensureSource(config).follow(next);
    await this.armAlarm();
    // The cron calls this every minute: what arrived meanwhile is written now rather than at the next alarm.
    await this.flush();
    return this.status();
  }

  /** Writes what is buffered to D1 now (the alarm does it every {@link FLUSH_INTERVAL_MS}). */
  async flush(): Promise<RecordPositionsResult> {
    // One write at a time: a flush asked during another waits for it, then writes what arrived meanwhile.
    while (this.flushing) await this.flushing;
    const drained = this.buffer.drain();
    if (drained.positions.length === 0 && drained.identities.length === 0) {
      return { stored: 0, dropped: 0, identities: 0 };
    }
    this.flushing = recordPositions(createDatabase(this.env.DB), drained, Date.now());
    try {
      const result = await this.flushing;
      this.totals.stored += result.stored;
      this.totals.dropped += result.dropped;
      return result;
    } catch (error) {
      // D1 unavailable: these reports are lost (newer ones follow within minutes); the feed keeps running.
      this.totals.flushErrors++;
      console.error(`AIS feed: writing positions failed (${error instanceof Error ? error.message : "unknown"})`);
      return { stored: 0, dropped: drained.positions.length, identities: 0 };
    } finally {
      this.flushing = null;
      if (this.resubscribe && this.source) {
        this.resubscribe = false;
        await this.source.follow(this.followed);
      }
    }
  }

  /** What the feed is doing. */
  async status(): Promise<AisFeedStatus> {
    const source = this.source;
    return {
      enabled: !!aisFeedConfig(this.env).apiKey,
      followed: this.followed.length,
      subscriptions: source?.subscriptions ?? [],
      openSockets: source?.openSockets ?? 0,
      buffered: this.buffer.size,
      counters: {
        ...(source?.counters ?? noAisCounters()),
        untracked: this.buffer.untracked,
        ...this.totals,
      },
    };
  }

  /** Flushes, reopens sockets whose backoff has passed, and re-arms. */
  override async alarm(): Promise<void> {
    await this.flush();
    const config = aisFeedConfig(this.env);
    if (!config.apiKey || this.followed.length === 0) return;
    const source = this.ensureSource(config);
    // A new object (after an eviction) has no sockets yet: follow opens them.
    if (source.subscriptions.length === 0) await source.follow(this.followed);
    else await source.reconnectDue();
    await this.armAlarm();
  }

  private ensureSource(config: AisFeedConfig): AisStreamSource {
    if (this.source) return this.source;
    const apiKey = config.apiKey ?? "";
    // `npm run bench -- ais` compares ingestion with a consumer that only counts (BENCH_AIS_SINK=noop, --var only).
    const noop = this.env.BENCH_AIS_SINK === "noop";
    this.source = new AisStreamSource({
      apiKey,
      url: config.url,
      sink: noop
        ? { position: () => undefined, identity: () => undefined, flush: async () => undefined }
        : {
            position: (report) => {
              if (this.buffer.position(report) && this.buffer.size >= FLUSH_AT_REPORTS && !this.flushScheduled) {
                // One early write at a time, however many reports arrive while it waits.
                this.flushScheduled = true;
                this.ctx.waitUntil(this.flush().finally(() => (this.flushScheduled = false)));
              }
            },
            identity: (report) => {
              if (this.buffer.identity(report)) {
                const vessel = this.followed.find((v) => v.imo === report.imo);
                if (vessel) vessel.mmsi = report.mmsi;
                this.resubscribe = true;
                this.ctx.waitUntil(this.ctx.storage.put("followed", this.followed).then(() => this.flush()));
              }
            },
            flush: async () => {
              await this.flush();
            },
          },
      onReconnectDue: (atMs) => {
        this.ctx.waitUntil(this.armAlarm(atMs));
      },
    });
    return this.source;
  }

  /** Sets the alarm to the next flush, or to `atMs` when that is sooner. */
  private async armAlarm(atMs?: number): Promise<void> {
    const next = Math.min(Date.now() + FLUSH_INTERVAL_MS, atMs ?? Number.POSITIVE_INFINITY);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next || current < Date.now() - 1000) await this.ctx.storage.setAlarm(next);
  }
}
