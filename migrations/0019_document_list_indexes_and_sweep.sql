CREATE TABLE `maintenance_cursors` (
	`name` text PRIMARY KEY NOT NULL,
	`cursor` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `document_blobs_created_idx` ON `document_blobs` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `document_blobs_storage_key_idx` ON `document_blobs` (`storage_key`);--> statement-breakpoint
CREATE INDEX `documents_account_effective_type_idx` ON `documents` (`account_id`,coalesce(`document_type_manual`, `document_type`),`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `documents_account_source_idx` ON `documents` (`account_id`,`source`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `documents_storage_key_idx` ON `documents` (`storage_key`);