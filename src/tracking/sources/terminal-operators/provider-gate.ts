import { DurableObject } from "cloudflare:workers";
import {
  memoryBackoffStore,
  nextBackoff,
  type ProviderBackoffState,
  type ProviderBackoffStore,
  type ProviderBackoffs,
} from "./backoff";

/** The storage key of a gate's state. */
const STATE_KEY = "backoff";

/**
 * One terminal provider's backoff (backoff.ts), shared by every isolate: one object per
 * provider key of `TERMINAL_SOURCES` (`apmt`, `lbct`, `port_of_virginia`), named by it. It keeps the consecutive
 * failed answers and until when (ms, the callers' clock) the provider is left alone, in memory and in its own storage
 * (written only when the state changes), so a backoff outlives both the isolate that saw the failure and the object's
 * eviction. It makes no request itself.
 */
export class ProviderGate extends DurableObject<Env> {
  private state: ProviderBackoffState | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.state = ctx.storage.kv.get<ProviderBackoffState>(STATE_KEY);
  }

  /** The state on record, or null when the provider has no failure on record. */
  current(): ProviderBackoffState | null {
    return this.state ?? null;
  }

  /** Records a failed answer at `nowMs` (`nextBackoff`: no longer while a backoff is in force); returns the state. */
  failed(retryAfter: string | null, nowMs: number): ProviderBackoffState {
    const next = nextBackoff(this.state, retryAfter, nowMs);
    if (next !== this.state) {
      this.state = next;
      this.ctx.storage.kv.put(STATE_KEY, next);
    }
    return next;
  }

  /** Records a good answer: the failures are forgotten. */
  succeeded(): void {
    if (this.state === undefined) return;
    this.state = undefined;
    this.ctx.storage.kv.delete(STATE_KEY);
  }
}

/**
 * The backoff store of every isolate: each provider's `ProviderGate` in `namespace`, with this isolate's copy of the
 * last state it saw in front of it, so a provider known to be backing off is refused without a call. When the gate
 * cannot be reached, the isolate's copy decides (a backoff never blocks on the gate's availability, and a failure is
 * still recorded locally).
 */
export function sharedBackoffStore(
  namespace: DurableObjectNamespace<ProviderGate>,
  local: ProviderBackoffs = new Map(),
): ProviderBackoffStore {
  const fallback = memoryBackoffStore(local);
  const gate = (provider: string) => namespace.get(namespace.idFromName(provider));
  const remember = (provider: string, state: ProviderBackoffState | null | undefined) => {
    if (state) local.set(provider, state);
    else local.delete(provider);
    return state ?? undefined;
  };
  return {
    current: async (provider, nowMs) => {
      const known = local.get(provider);
      if (known && nowMs < known.untilMs) return known;
      try {
        return remember(provider, await gate(provider).current());
      } catch {
        return fallback.current(provider, nowMs);
      }
    },
    failed: async (provider, retryAfter, nowMs) => {
      try {
        return remember(provider, await gate(provider).failed(retryAfter, nowMs)) as ProviderBackoffState;
      } catch {
        return fallback.failed(provider, retryAfter, nowMs);
      }
    },
    succeeded: async (provider) => {
      local.delete(provider);
      try {
        await gate(provider).succeeded();
      } catch {
        // The gate keeps a stale failure count; the next failure or success on record corrects it.
      }
    },
  };
}
