CREATE TABLE `alert_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text,
	`condition` text NOT NULL,
	`threshold_days` integer,
	`threshold_hours` integer,
	`scope` text DEFAULT '{}' NOT NULL,
	`channel_type` text NOT NULL,
	`channel_address` text,
	`channel_url` text,
	`secret` text,
	`delivery` text DEFAULT 'immediate' NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`last_delivery_status` text,
	`last_delivery_at` text,
	`last_error` text,
	`failing_since` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `alert_rules_account_created_idx` ON `alert_rules` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `alert_rules_account_active_idx` ON `alert_rules` (`account_id`,`active`);--> statement-breakpoint
CREATE INDEX `alert_rules_condition_active_idx` ON `alert_rules` (`condition`,`active`);--> statement-breakpoint
CREATE TABLE `alert_settings` (
	`account_id` text PRIMARY KEY NOT NULL,
	`time_zone` text NOT NULL,
	`digest_hour` integer NOT NULL,
	`quiet_hours_start` integer,
	`quiet_hours_end` integer,
	`last_digest_on` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`kind` text DEFAULT 'alert' NOT NULL,
	`rule_id` text,
	`container_id` text,
	`condition` text,
	`episode_key` text NOT NULL,
	`facts` text NOT NULL,
	`channel_type` text NOT NULL,
	`channel_target` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text,
	`digest_id` text,
	`last_error` text,
	`delivered_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `alerts_status_next_idx` ON `alerts` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `alerts_account_status_idx` ON `alerts` (`account_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `alerts_rule_container_idx` ON `alerts` (`rule_id`,`container_id`,`episode_key`);--> statement-breakpoint
CREATE INDEX `alerts_account_created_idx` ON `alerts` (`account_id`,`created_at`,`id`);