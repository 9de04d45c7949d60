CREATE TABLE `upstream_callback_receipts` (
	`subscription_id` text NOT NULL,
	`body_sha256` text NOT NULL,
	`body` text NOT NULL,
	`event_count` integer NOT NULL,
	`received_at` text NOT NULL,
	PRIMARY KEY(`subscription_id`, `body_sha256`),
	FOREIGN KEY (`subscription_id`) REFERENCES `upstream_subscriptions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `upstream_callback_receipts_received_idx` ON `upstream_callback_receipts` (`received_at`);--> statement-breakpoint
CREATE TABLE `upstream_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`scac` text,
	`reference_type` text NOT NULL,
	`reference_number` text NOT NULL,
	`upstream_id` text,
	`callback_url` text NOT NULL,
	`secret_ciphertext` text NOT NULL,
	`status` text NOT NULL,
	`last_error` text,
	`callback_count` integer DEFAULT 0 NOT NULL,
	`last_callback_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `upstream_subscriptions_reference_idx` ON `upstream_subscriptions` (`provider`,`reference_type`,`reference_number`);--> statement-breakpoint
CREATE INDEX `upstream_subscriptions_status_idx` ON `upstream_subscriptions` (`status`);