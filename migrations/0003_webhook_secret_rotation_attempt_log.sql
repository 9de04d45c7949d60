DROP INDEX `webhook_deliveries_notification_idx`;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Rows written before `seq` existed belong to one delivery round each (no resend existed), so their attempt number is their order.
UPDATE `webhook_deliveries` SET `seq` = `attempt`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_notification_seq_idx` ON `webhook_deliveries` (`notification_id`,`seq`);--> statement-breakpoint
ALTER TABLE `webhooks` ADD `previous_secret` text;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `previous_secret_expires_at` text;--> statement-breakpoint
CREATE INDEX `webhooks_previous_secret_expiry_idx` ON `webhooks` (`previous_secret_expires_at`);