// The Worker's `Env` is generated from wrangler.toml by `npm run types` (wrangler types → worker-configuration.d.ts,
// committed; `npm run types:check` in CI fails when it is stale). This file adds, by declaration merging, what
// wrangler.toml cannot tell it:
//
// - Secrets, and the one variable only ever passed with `--var`. Each is optional: the Worker runs without it (a
//   carrier or terminal that is not configured is not served; no push subscription is made), and the code checks
//   for it. wrangler types would take secret names from whoever's .dev.vars happens to exist and type them as
//   required, so `npm run types` reads the empty worker-configuration.env instead and they are declared here.
// - The message type of each queue: wrangler types a queue as `Queue` (of unknown), which would let a producer send
//   anything. The message types live beside their producers and consumers.
//
// `[vars]` of wrangler.toml are generated as `string`, present: wrangler always binds them (the hand-written Env
// before issue 24 called them optional; code that falls back when one is empty still does).
//
// The generated file declares two interfaces: `Cloudflare.Env` (the `env` of `cloudflare:workers` and of the tests)
// and the global `Env` the code names. Both extend the generated bindings, so a queue's narrower type has to be
// declared in each (TypeScript refuses a merge that would inherit two different types for one member).

/** Worker secrets and `--var`-only variables: not in wrangler.toml, all optional. */
interface WorkerSecrets {
  /**
   * Shards past the primary (src/db/shards.ts; docs/SCALING.md §Shards): D1 bindings `DB_1`, `DB_2`, … (consecutive;
   * the list ends at the first gap), each with the same migrations as `DB`. A deployment with only `DB` has one shard.
   * The test pool binds `DB_1` (vitest.config.ts); `npm start` binds `DB_1` too.
   */
  DB_1?: D1Database;
  DB_2?: D1Database;
  DB_3?: D1Database;
  /**
   * The shard new accounts are created on (src/db/shards.ts `shardForNewAccount`); unset: the shard with the fewest
   * accounts.
   */
  NEW_ACCOUNT_SHARD?: string;
  /**
   * Worker secret: JSON object of DCSA Track & Trace sources per SCAC, `{"MAEU":{"baseUrl":"https://…","auth":{…}}}`
   * (src/tracking/sources/dcsa/config.ts `parseDcsaSources`; docs/carriers.md §Connecting a carrier).
   */
  DCSA_SOURCES?: string;
  /**
   * Worker secret: base64 of 32 random bytes, the AES-GCM key the signing secrets of upstream push subscriptions are
   * stored under (src/callbacks/secrets.ts). Unset: no subscription is created.
   */
  UPSTREAM_SUBSCRIPTION_KEY?: string;
  /**
   * Worker secret: JSON object of terminal operators' APIs by provider (`apmt`, `lbct`, `port_of_virginia`),
   * `{"apmt":{"baseUrl":"https://…","auth":{…},"facilities":{"W185":"USLAX"}}}`
   * (src/tracking/sources/terminal-operators/index.ts `parseTerminalSources`;
   * docs/terminals.md §Connecting a terminal). A terminal configured here is polled by its provider's adapter; an
   * unconfigured one by nothing (the simulator never answers for a configured terminal).
   */
  TERMINAL_SOURCES?: string;
  /**
   * Worker secret: the aisstream.io API key the AisFeed object subscribes with (src/vessels/positions/ais-feed.ts;
   * docs/configuration.md §AIS positions). Unset: no AIS connection, vessels show no live position.
   */
  AISSTREAM_API_KEY?: string;
  /**
   * Worker secret: at least 32 random characters, the HMAC key of the document upload flow's `signed_id`, upload URLs
   * and download URLs (src/documents/signing.ts; docs/configuration.md §Documents). Unset: the document upload and
   * download routes answer 503 and store nothing.
   */
  DOCUMENT_SIGNING_KEY?: string;
  /**
   * Worker secrets: the SMTP relay alert e-mails go through (src/lib/mail.ts `smtpSettingsFromEnv`;
   * docs/configuration.md §Alert e-mail). Unset `SMTP_HOST`: e-mail alerts are not sent (their rule shows why).
   */
  SMTP_HOST?: string;
  SMTP_PORT?: string;
  /** `starttls` (default), `tls` or `none`. */
  SMTP_SECURITY?: string;
  SMTP_USERNAME?: string;
  SMTP_PASSWORD?: string;
  ALERT_EMAIL_FROM?: string;
  /**
   * Bench instrumentation of the poll path (`trace` or `noop`, src/tracking/bench-trace.ts), set only by
   * `npm run bench -- engine` (`--var`); unset everywhere else, where it changes nothing. Never in wrangler.toml.
   */
  BENCH_ENGINE?: string;
  /**
   * `1`: the capacity bench's meters (src/tracking/bench-capacity.ts) count every binding call, queue batch and
   * outbound fetch, answered at `GET /__bench/capacity`; set only by `npm run bench -- capacity` (`--var`), never in
   * wrangler.toml.
   */
  BENCH_CAPACITY?: string;
  /**
   * `noop`: the AisFeed object counts what the AIS stream sends and ingests nothing (src/vessels/positions/ais-feed.ts),
   * the baseline of `npm run bench -- ais` (`--var`); unset everywhere else. Never in wrangler.toml.
   */
  BENCH_AIS_SINK?: string;
}

declare namespace Cloudflare {
  interface Env extends WorkerSecrets {
    TRACKING_REQUESTS_QUEUE: Queue<import("./tracking-requests/queue-message").TrackingRequestMessage>;
    TERMINAL_POLLS_QUEUE: Queue<import("./tracking/terminal-poll-message").TerminalPollMessage>;
    WEBHOOK_DELIVERIES_QUEUE: Queue<import("./webhooks/outbox").WebhookDeliveryMessage>;
    DOCUMENT_EXTRACTIONS_QUEUE: Queue<import("./documents/extraction-job").DocumentQueueMessage>;
    TRACKING_REQUEST_IMPORTS_QUEUE: Queue<import("./tracking-request-imports/service").TrackingRequestImportMessage>;
  }
}

interface Env extends WorkerSecrets {
  TRACKING_REQUESTS_QUEUE: Queue<import("./tracking-requests/queue-message").TrackingRequestMessage>;
  TERMINAL_POLLS_QUEUE: Queue<import("./tracking/terminal-poll-message").TerminalPollMessage>;
  WEBHOOK_DELIVERIES_QUEUE: Queue<import("./webhooks/outbox").WebhookDeliveryMessage>;
  DOCUMENT_EXTRACTIONS_QUEUE: Queue<import("./documents/extraction-job").DocumentQueueMessage>;
  TRACKING_REQUEST_IMPORTS_QUEUE: Queue<import("./tracking-request-imports/service").TrackingRequestImportMessage>;
}
