CREATE TABLE `document_links` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`document_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`matched_value` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_links_document_target_idx` ON `document_links` (`document_id`,`target_type`,`target_id`);--> statement-breakpoint
CREATE INDEX `document_links_account_target_idx` ON `document_links` (`account_id`,`target_type`,`target_id`);--> statement-breakpoint
CREATE TABLE `document_references` (
	`account_id` text NOT NULL,
	`document_id` text NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`normalized_value` text NOT NULL,
	`tracking_request_id` text,
	`auto_track_skipped_reason` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_references_document_kind_value_idx` ON `document_references` (`document_id`,`kind`,`normalized_value`);--> statement-breakpoint
CREATE INDEX `document_references_account_value_idx` ON `document_references` (`account_id`,`normalized_value`);--> statement-breakpoint
CREATE TABLE `document_settings` (
	`account_id` text PRIMARY KEY NOT NULL,
	`auto_track` integer DEFAULT false NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
