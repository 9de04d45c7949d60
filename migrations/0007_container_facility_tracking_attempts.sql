ALTER TABLE `containers` ADD `terminal_tracking_last_attempted_at` text;--> statement-breakpoint
ALTER TABLE `containers` ADD `terminal_tracking_failed_reason` text;--> statement-breakpoint
ALTER TABLE `containers` ADD `rail_tracking_last_attempted_at` text;--> statement-breakpoint
ALTER TABLE `containers` ADD `rail_tracking_failed_reason` text;