CREATE INDEX `webhook_notifications_account_event_idx` ON `webhook_notifications` (`account_id`,`event`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_notifications_account_status_idx` ON `webhook_notifications` (`account_id`,`delivery_status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhooks_account_active_idx` ON `webhooks` (`account_id`,`active`);