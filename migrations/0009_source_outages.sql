CREATE TABLE `source_outage_accounts` (
	`outage_id` text NOT NULL,
	`account_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`outage_id`, `account_id`),
	FOREIGN KEY (`outage_id`) REFERENCES `source_outages`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `source_outages` (
	`id` text PRIMARY KEY NOT NULL,
	`source_type` text NOT NULL,
	`source_code` text NOT NULL,
	`reason` text NOT NULL,
	`started_at` text NOT NULL,
	`resolved_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `source_outages_open_idx` ON `source_outages` (`source_type`,`source_code`) WHERE resolved_at IS NULL;