CREATE TABLE `tariffs` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text,
	`kind` text NOT NULL,
	`scac` text,
	`port_code` text,
	`terminal_id` text,
	`equipment_length` integer,
	`equipment_type` text,
	`free_days` integer NOT NULL,
	`free_days_basis` text NOT NULL,
	`clock_starts_at` text NOT NULL,
	`tiers` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`terminal_id`) REFERENCES `terminals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tariffs_account_created_idx` ON `tariffs` (`account_id`,`created_at`,`id`);