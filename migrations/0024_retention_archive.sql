CREATE TABLE `archive_objects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`month` text NOT NULL,
	`key` text NOT NULL,
	`rows` integer NOT NULL,
	`bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL,
	`purged_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `archive_objects_key_unique` ON `archive_objects` (`key`);--> statement-breakpoint
CREATE INDEX `archive_objects_account_kind_month_idx` ON `archive_objects` (`account_id`,`kind`,`month`);--> statement-breakpoint
CREATE INDEX `archive_objects_unpurged_idx` ON `archive_objects` (`purged_at`) WHERE purged_at IS NULL;--> statement-breakpoint
CREATE TABLE `archived_raw_events` (
	`object_id` integer NOT NULL,
	`container_id` text NOT NULL,
	`events` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `archived_raw_events_container_idx` ON `archived_raw_events` (`container_id`);--> statement-breakpoint
CREATE INDEX `archived_raw_events_object_idx` ON `archived_raw_events` (`object_id`);--> statement-breakpoint
CREATE TABLE `archived_rows` (
	`id` text PRIMARY KEY NOT NULL,
	`object_id` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `archived_rows_object_idx` ON `archived_rows` (`object_id`);--> statement-breakpoint
CREATE INDEX `shipments_tracking_stopped_idx` ON `shipments` (`line_tracking_stopped_at`) WHERE line_tracking_stopped_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_notifications_finished_idx` ON `webhook_notifications` (`delivery_status`,`updated_at`);