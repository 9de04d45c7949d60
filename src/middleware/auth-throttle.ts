import ipaddr from "ipaddr.js";
import type { LRUCache } from "lru-cache";
import { boundedLru } from "../lib/lru";

/** Failed authentications a client address may make per rolling window before it is answered 429 (default). */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 20;
/** The throttle's rolling window (ms). */
export const AUTH_FAILURE_WINDOW_MS = 60_000;
/** Largest accepted `AUTH_FAILURES_PER_MINUTE` (each address keeps at most this many failure times). */
export const MAX_AUTH_FAILURES_PER_MINUTE = 10_000;
/** Client addresses the throttle remembers at once per isolate (least recently failing dropped first). */
export const THROTTLE_MAX_ADDRESSES = 10_000;
/** The one bucket of requests that carry no usable `CF-Connecting-IP` (local development, tests). */
export const UNKNOWN_CLIENT = "unknown";

/**
 * `AUTH_FAILURES_PER_MINUTE` as a number: a whole number up to `MAX_AUTH_FAILURES_PER_MINUTE` (0 turns the throttle
 * off), else the default 20.
 */
export function authFailureLimit(raw: string | undefined): number {
  if (raw === undefined || !/^\d+$/.test(raw)) return DEFAULT_AUTH_FAILURES_PER_MINUTE;
  const limit = Number.parseInt(raw, 10);
  return limit <= MAX_AUTH_FAILURES_PER_MINUTE ? limit : DEFAULT_AUTH_FAILURES_PER_MINUTE;
}

/**
 * The client address the throttle counts failures under, from `CF-Connecting-IP` (set by Cloudflare's edge, which
 * overwrites any value a client sends). IPv4 addresses count one by one; IPv6 addresses by their /64 prefix, the
 * smallest block a site is given (RFC 6177), so a host cannot spread its failures over the addresses of its own
 * network; IPv4-mapped IPv6 counts as the IPv4 address. Absent or not an IP address → `UNKNOWN_CLIENT`, one shared
 * bucket (only outside Cloudflare: `wrangler dev`, tests).
 */
export function clientAddress(cfConnectingIp: string | null | undefined): string {
  if (!cfConnectingIp || !ipaddr.isValid(cfConnectingIp)) return UNKNOWN_CLIENT;
  const parsed = ipaddr.parse(cfConnectingIp);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = v6.parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}

/**
 * Counts failed authentications per client address over a rolling `AUTH_FAILURE_WINDOW_MS` and refuses an address
 * that reached the limit until its oldest counted failure leaves the window (issue 11 §3). A cost guard, not a quota:
 * it lives in this isolate's memory (an attacker spread over several isolates gets the limit in each, still a bounded
 * multiple), in an LRU of `THROTTLE_MAX_ADDRESSES` addresses, each keeping at most `limit` failure times. Refusals are
 * not counted, so an address that stops failing is admitted again one window after its failures. Pure: time is passed
 * in (ms since epoch).
 */
export class AuthFailureThrottle {
  /** Failure times per address, ascending (ms since epoch), at most the limit in force when recorded. */
  private readonly failures: LRUCache<string, number[]>;

  /** @param maxAddresses addresses remembered at once (default `THROTTLE_MAX_ADDRESSES`). */
  constructor(
    maxAddresses = THROTTLE_MAX_ADDRESSES,
    private readonly windowMs = AUTH_FAILURE_WINDOW_MS,
  ) {
    this.failures = boundedLru(maxAddresses);
  }

  /**
   * Whole seconds (≥ 1) until `address` may try again under `limit` failures per window, the value of `Retry-After`;
   * 0 when it may try now (always 0 when `limit` is 0, the throttle off).
   */
  retryAfterSeconds(address: string, nowMs: number, limit: number): number {
    if (limit <= 0) return 0;
    const times = this.failures.get(address);
    if (!times) return 0;
    const recent = this.prune(times, nowMs);
    if (recent.length < limit) return 0;
    // The failure that must leave the window before one more is allowed: with `limit` counted, the oldest of them.
    const leaving = recent[recent.length - limit] ?? nowMs;
    return Math.max(1, Math.ceil((leaving + this.windowMs - nowMs) / 1000));
  }

  /** Counts one failed authentication of `address` at `nowMs` (nothing when `limit` is 0). */
  recordFailure(address: string, nowMs: number, limit: number): void {
    if (limit <= 0) return;
    const recent = this.prune(this.failures.get(address) ?? [], nowMs);
    // Clocks may step back a little between requests; keep the times ascending.
    const last = recent[recent.length - 1];
    recent.push(last !== undefined && last > nowMs ? last : nowMs);
    this.failures.set(address, recent.length > limit ? recent.slice(recent.length - limit) : recent);
  }

  /** The failure times of `times` still inside the window ending at `nowMs`. */
  private prune(times: number[], nowMs: number): number[] {
    const from = nowMs - this.windowMs;
    const first = times.findIndex((t) => t > from);
    return first === -1 ? [] : first === 0 ? times : times.slice(first);
  }
}
