import type { MiddlewareHandler } from "hono";
import { createDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { systemClock } from "../lib/clock";

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane, else a new UUID), echoes it in
 * the `X-Request-Id` response header, and sets the per-request database handles (both the primary until authentication picks the account's
 * shard, src/db/shards.ts) and clock.
 */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && INCOMING_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", id);
  const primary = createDatabase(c.env.DB);
  c.set("db", primary);
  c.set("primaryDb", primary);
  c.set("clock", systemClock);
  c.header("X-Request-Id", id);
  await next();
  c.header("X-Request-Id", id);
};
