CREATE TABLE `search_accounts` (
	`account_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_accounts_seq_unique` ON `search_accounts` (`seq`);--> statement-breakpoint
CREATE TABLE `search_docs` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_docs_entity_idx` ON `search_docs` (`entity_type`,`entity_id`);--> statement-breakpoint
-- Search index (docs/api.md §Search, docs/architecture.md §Search index). What follows is hand-written: drizzle-kit
-- knows the two tables above, not the FTS5 table, the views and the triggers that keep the index right on every
-- write of shipments, containers and tracking requests, whatever code path makes it.
-- A term is framed as U+0002 term U+0003, spaces and dashes dropped (as filter[number] normalises numbers); the FTS5
-- trigram tokenizer folds case and diacritics.
CREATE VIRTUAL TABLE `search_fts` USING fts5(body, content='search_docs', content_rowid='id', tokenize='trigram case_sensitive 0 remove_diacritics 1');
--> statement-breakpoint
-- Merge segments as soon as two share a level (FTS5's default waits for four): a query seeks once per segment, and at
-- 1 M containers fewer segments measured up to 1.4× faster (bench/search); writes pay a little more merging.
INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 2);
--> statement-breakpoint
-- The searchable terms of each entity, computed from its row: one view per kind (triggers read them by id).
CREATE VIEW `search_shipment_source` AS
SELECT s.id AS entity_id, s.account_id, s.created_at,
  COALESCE(char(2) || replace(replace(s.bill_of_lading_number, ' ', ''), '-', '') || char(3), '') || COALESCE((SELECT group_concat(char(2) || replace(replace(j.value, ' ', ''), '-', '') || char(3), '') FROM json_each(s.ref_numbers) j), '') || COALESCE(char(2) || replace(replace(s.pod_vessel_name, ' ', ''), '-', '') || char(3), '') || COALESCE(char(2) || replace(replace(s.port_of_lading_locode, ' ', ''), '-', '') || char(3), '') || COALESCE(char(2) || replace(replace(s.port_of_lading_name, ' ', ''), '-', '') || char(3), '') || COALESCE(char(2) || replace(replace(s.port_of_discharge_locode, ' ', ''), '-', '') || char(3), '') || COALESCE(char(2) || replace(replace(s.port_of_discharge_name, ' ', ''), '-', '') || char(3), '') AS body
FROM shipments s;
--> statement-breakpoint
-- A container is found by its number, its reference numbers, and its shipment's vessel and POL/POD (name, UN/LOCODE).
CREATE VIEW `search_container_source` AS
SELECT c.id AS entity_id, c.account_id, c.created_at,
  COALESCE(char(2) || replace(replace(c.number, ' ', ''), '-', '') || char(3), '') || COALESCE((SELECT group_concat(char(2) || replace(replace(j.value, ' ', ''), '-', '') || char(3), '') FROM json_each(c.ref_numbers) j), '') || COALESCE((SELECT COALESCE(char(2) || replace(replace(s.pod_vessel_name, ' ', ''), '-', '') || char(3), '') || COALESCE(char(2) || replace(replace(s.port_of_lading_locode, ' ', ''), '-', '') || char(3), '') || COALESCE(char(2) || replace(replace(s.port_of_lading_name, ' ', ''), '-', '') || char(3), '') || COALESCE(char(2) || replace(replace(s.port_of_discharge_locode, ' ', ''), '-', '') || char(3), '') || COALESCE(char(2) || replace(replace(s.port_of_discharge_name, ' ', ''), '-', '') || char(3), '') FROM shipments s WHERE s.id = c.shipment_id), '') AS body
FROM containers c;
--> statement-breakpoint
CREATE VIEW `search_tracking_request_source` AS
SELECT t.id AS entity_id, t.account_id, t.created_at, COALESCE(char(2) || replace(replace(t.request_number, ' ', ''), '-', '') || char(3), '') || COALESCE((SELECT group_concat(char(2) || replace(replace(j.value, ' ', ''), '-', '') || char(3), '') FROM json_each(t.ref_numbers) j), '') AS body
FROM tracking_requests t;
--> statement-breakpoint
-- The FTS5 table follows search_docs (external content): the standard sync triggers.
CREATE TRIGGER `search_docs_fts_insert` AFTER INSERT ON `search_docs` BEGIN
  INSERT INTO search_fts (rowid, body) VALUES (NEW.id, NEW.body);
END;
--> statement-breakpoint
CREATE TRIGGER `search_docs_fts_delete` AFTER DELETE ON `search_docs` BEGIN
  INSERT INTO search_fts (search_fts, rowid, body) VALUES ('delete', OLD.id, OLD.body);
END;
--> statement-breakpoint
CREATE TRIGGER `search_docs_fts_update` AFTER UPDATE OF body ON `search_docs` WHEN OLD.body IS NOT NEW.body BEGIN
  INSERT INTO search_fts (search_fts, rowid, body) VALUES ('delete', OLD.id, OLD.body);
  INSERT INTO search_fts (rowid, body) VALUES (NEW.id, NEW.body);
END;
--> statement-breakpoint
-- shipments: a new row gets its document, before the others of its account's shipment range (newest = lowest id: counter = first - 1).
CREATE TRIGGER `shipments_search_insert` AFTER INSERT ON `shipments` BEGIN
  INSERT INTO search_accounts (account_id, seq)
    SELECT NEW.account_id, next.seq FROM (SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM search_accounts) next
    WHERE NOT EXISTS (SELECT 1 FROM search_accounts WHERE account_id = NEW.account_id);
  INSERT INTO search_docs (id, account_id, entity_type, entity_id, body)
    SELECT COALESCE((SELECT MIN(d.id) FROM search_docs d WHERE d.id BETWEEN r.base AND r.base + 137438953471), r.base + 137438953472) - 1,
      NEW.account_id, 'shipment', NEW.id, v.body
    FROM (SELECT (seq << 39) | (0 << 37) AS base FROM search_accounts WHERE account_id = NEW.account_id) r, search_shipment_source v
    WHERE v.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER `shipments_search_update` AFTER UPDATE OF bill_of_lading_number, ref_numbers, pod_vessel_name, port_of_lading_locode, port_of_lading_name, port_of_discharge_locode, port_of_discharge_name ON `shipments`
WHEN OLD.bill_of_lading_number IS NOT NEW.bill_of_lading_number OR OLD.ref_numbers IS NOT NEW.ref_numbers OR OLD.pod_vessel_name IS NOT NEW.pod_vessel_name OR OLD.port_of_lading_locode IS NOT NEW.port_of_lading_locode OR OLD.port_of_lading_name IS NOT NEW.port_of_lading_name OR OLD.port_of_discharge_locode IS NOT NEW.port_of_discharge_locode OR OLD.port_of_discharge_name IS NOT NEW.port_of_discharge_name BEGIN
  UPDATE search_docs SET body = (SELECT body FROM search_shipment_source WHERE entity_id = NEW.id)
    WHERE entity_type = 'shipment' AND entity_id = NEW.id;
  UPDATE search_docs SET body = (SELECT v.body FROM search_container_source v WHERE v.entity_id = search_docs.entity_id)
    WHERE entity_type = 'cargo' AND entity_id IN (SELECT id FROM containers WHERE shipment_id = NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER `shipments_search_delete` AFTER DELETE ON `shipments` BEGIN
  DELETE FROM search_docs WHERE entity_type = 'shipment' AND entity_id = OLD.id;
END;
--> statement-breakpoint
-- containers: a new row gets its document, before the others of its account's cargo range (newest = lowest id: counter = first - 1).
CREATE TRIGGER `containers_search_insert` AFTER INSERT ON `containers` BEGIN
  INSERT INTO search_accounts (account_id, seq)
    SELECT NEW.account_id, next.seq FROM (SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM search_accounts) next
    WHERE NOT EXISTS (SELECT 1 FROM search_accounts WHERE account_id = NEW.account_id);
  INSERT INTO search_docs (id, account_id, entity_type, entity_id, body)
    SELECT COALESCE((SELECT MIN(d.id) FROM search_docs d WHERE d.id BETWEEN r.base AND r.base + 137438953471), r.base + 137438953472) - 1,
      NEW.account_id, 'cargo', NEW.id, v.body
    FROM (SELECT (seq << 39) | (1 << 37) AS base FROM search_accounts WHERE account_id = NEW.account_id) r, search_container_source v
    WHERE v.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER `containers_search_update` AFTER UPDATE OF number, ref_numbers, shipment_id ON `containers`
WHEN OLD.number IS NOT NEW.number OR OLD.ref_numbers IS NOT NEW.ref_numbers OR OLD.shipment_id IS NOT NEW.shipment_id BEGIN
  UPDATE search_docs SET body = (SELECT body FROM search_container_source WHERE entity_id = NEW.id)
    WHERE entity_type = 'cargo' AND entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER `containers_search_delete` AFTER DELETE ON `containers` BEGIN
  DELETE FROM search_docs WHERE entity_type = 'cargo' AND entity_id = OLD.id;
END;
--> statement-breakpoint
-- tracking_requests: a new row gets its document, before the others of its account's tracking_request range (newest = lowest id: counter = first - 1).
CREATE TRIGGER `tracking_requests_search_insert` AFTER INSERT ON `tracking_requests` BEGIN
  INSERT INTO search_accounts (account_id, seq)
    SELECT NEW.account_id, next.seq FROM (SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM search_accounts) next
    WHERE NOT EXISTS (SELECT 1 FROM search_accounts WHERE account_id = NEW.account_id);
  INSERT INTO search_docs (id, account_id, entity_type, entity_id, body)
    SELECT COALESCE((SELECT MIN(d.id) FROM search_docs d WHERE d.id BETWEEN r.base AND r.base + 137438953471), r.base + 137438953472) - 1,
      NEW.account_id, 'tracking_request', NEW.id, v.body
    FROM (SELECT (seq << 39) | (2 << 37) AS base FROM search_accounts WHERE account_id = NEW.account_id) r, search_tracking_request_source v
    WHERE v.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER `tracking_requests_search_update` AFTER UPDATE OF request_number, ref_numbers ON `tracking_requests`
WHEN OLD.request_number IS NOT NEW.request_number OR OLD.ref_numbers IS NOT NEW.ref_numbers BEGIN
  UPDATE search_docs SET body = (SELECT body FROM search_tracking_request_source WHERE entity_id = NEW.id)
    WHERE entity_type = 'tracking_request' AND entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER `tracking_requests_search_delete` AFTER DELETE ON `tracking_requests` BEGIN
  DELETE FROM search_docs WHERE entity_type = 'tracking_request' AND entity_id = OLD.id;
END;
--> statement-breakpoint
-- Rows written before this migration: accounts numbered in creation order, documents per kind newest first (lowest id).
INSERT INTO search_accounts (account_id, seq)
SELECT account_id, row_number() OVER (ORDER BY first_at, account_id) FROM (
  SELECT account_id, MIN(created_at) AS first_at FROM (
    SELECT account_id, created_at FROM shipments UNION ALL SELECT account_id, created_at FROM containers
    UNION ALL SELECT account_id, created_at FROM tracking_requests
  ) GROUP BY account_id
);
--> statement-breakpoint
INSERT INTO search_docs (id, account_id, entity_type, entity_id, body)
SELECT ((a.seq << 39) | (0 << 37)) + 137438953472 - row_number() OVER (PARTITION BY v.account_id ORDER BY v.created_at, v.entity_id),
  v.account_id, 'shipment', v.entity_id, v.body
FROM search_shipment_source v JOIN search_accounts a ON a.account_id = v.account_id
ORDER BY v.account_id, v.created_at, v.entity_id;
--> statement-breakpoint
INSERT INTO search_docs (id, account_id, entity_type, entity_id, body)
SELECT ((a.seq << 39) | (1 << 37)) + 137438953472 - row_number() OVER (PARTITION BY v.account_id ORDER BY v.created_at, v.entity_id),
  v.account_id, 'cargo', v.entity_id, v.body
FROM search_container_source v JOIN search_accounts a ON a.account_id = v.account_id
ORDER BY v.account_id, v.created_at, v.entity_id;
--> statement-breakpoint
INSERT INTO search_docs (id, account_id, entity_type, entity_id, body)
SELECT ((a.seq << 39) | (2 << 37)) + 137438953472 - row_number() OVER (PARTITION BY v.account_id ORDER BY v.created_at, v.entity_id),
  v.account_id, 'tracking_request', v.entity_id, v.body
FROM search_tracking_request_source v JOIN search_accounts a ON a.account_id = v.account_id
ORDER BY v.account_id, v.created_at, v.entity_id;
