ALTER TABLE `transport_events` ADD `raw_event_id` text;--> statement-breakpoint
-- Backfill: the raw event each existing transport event was recorded from, found as every read found it until now
-- (src/transport-events/serializer.ts): the account's raw row of the same container with the same milestone name
-- (without `container.transport.` and `estimated.`), estimated or not as the event, at the same time; the latest
-- report (highest `index`) wins. Rows without such a raw event stay null.
UPDATE `transport_events` SET `raw_event_id` = (
  SELECT r.`id` FROM `raw_events` r
  WHERE r.`container_id` = `transport_events`.`container_id`
    AND r.`account_id` = `transport_events`.`account_id`
    AND r.`timestamp` = `transport_events`.`timestamp`
    AND r.`estimated` = (substr(`transport_events`.`event`, 1, 30) = 'container.transport.estimated.')
    AND r.`event` = CASE
      WHEN substr(`transport_events`.`event`, 1, 30) = 'container.transport.estimated.'
        THEN substr(`transport_events`.`event`, 31)
      ELSE substr(`transport_events`.`event`, 21)
    END
  ORDER BY r.`index` DESC
  LIMIT 1
)
WHERE `raw_event_id` IS NULL
  AND `timestamp` IS NOT NULL
  AND substr(`event`, 1, 20) = 'container.transport.';
