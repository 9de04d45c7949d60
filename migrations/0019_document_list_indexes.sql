CREATE INDEX `document_blobs_created_idx` ON `document_blobs` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `documents_account_effective_type_idx` ON `documents` (`account_id`,coalesce(`document_type_manual`, `document_type`),`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `documents_account_source_idx` ON `documents` (`account_id`,`source`,`created_at`,`id`);