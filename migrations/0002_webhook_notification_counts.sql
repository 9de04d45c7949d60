-- Keeps account_resource_counts ('webhook_notification') exact, so GET /webhook_notifications reads meta.total in
-- O(1) like every other list (DECISIONS.md §Wire format). The outbox inserts notifications with ON CONFLICT DO
-- NOTHING (a replayed update writes nothing twice, src/webhooks/outbox.ts), so only the database knows which
-- inserts happened: these triggers count exactly those rows.
CREATE TRIGGER `webhook_notifications_count_insert` AFTER INSERT ON `webhook_notifications`
BEGIN
	INSERT OR IGNORE INTO `account_resource_counts` (`account_id`, `resource`, `count`)
		VALUES (NEW.`account_id`, 'webhook_notification', 0);
	UPDATE `account_resource_counts` SET `count` = `count` + 1
		WHERE `account_id` = NEW.`account_id` AND `resource` = 'webhook_notification';
END;
--> statement-breakpoint
CREATE TRIGGER `webhook_notifications_count_delete` AFTER DELETE ON `webhook_notifications`
BEGIN
	UPDATE `account_resource_counts` SET `count` = `count` - 1
		WHERE `account_id` = OLD.`account_id` AND `resource` = 'webhook_notification';
END;
--> statement-breakpoint
-- The rows written before these triggers existed.
INSERT OR REPLACE INTO `account_resource_counts` (`account_id`, `resource`, `count`)
	SELECT `account_id`, 'webhook_notification', count(*) FROM `webhook_notifications` GROUP BY `account_id`;
