CREATE TABLE `account_resource_counts` (
	`account_id` text NOT NULL,
	`resource` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `account_resource_counts_pk` ON `account_resource_counts` (`account_id`,`resource`);--> statement-breakpoint
CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`entitlements` text DEFAULT '[]' NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	`last_used_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_idx` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `parties` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`company_name` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `parties_account_created_idx` ON `parties` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `ports` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`city` text,
	`state_abbr` text,
	`country_code` text NOT NULL,
	`latitude` text,
	`longitude` text,
	`time_zone` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ports_code_idx` ON `ports` (`code`);--> statement-breakpoint
CREATE TABLE `terminals` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`nickname` text,
	`firms_code` text,
	`smdg_code` text,
	`bic_facility_code` text,
	`port_id` text,
	`street` text,
	`city` text,
	`state` text,
	`state_abbr` text,
	`zip` text,
	`country` text,
	`country_code` text,
	`time_zone` text,
	`facility_type` text,
	`provided_data` text,
	FOREIGN KEY (`port_id`) REFERENCES `ports`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `terminals_firms_idx` ON `terminals` (`firms_code`);--> statement-breakpoint
CREATE INDEX `terminals_port_idx` ON `terminals` (`port_id`);--> statement-breakpoint
CREATE TABLE `container_updated_events` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`container_id` text NOT NULL,
	`shipment_id` text NOT NULL,
	`terminal_id` text,
	`changeset` text NOT NULL,
	`timestamp` text NOT NULL,
	`timezone` text,
	`data_source` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`container_id`) REFERENCES `containers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `container_updated_events_container_idx` ON `container_updated_events` (`container_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `containers` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`shipment_id` text NOT NULL,
	`tracked_equipment_id` text,
	`number` text NOT NULL,
	`ref_numbers` text DEFAULT '[]' NOT NULL,
	`seal_number` text,
	`equipment_type` text,
	`equipment_length` integer,
	`equipment_height` text,
	`weight_in_lbs` real,
	`current_status` text DEFAULT 'new' NOT NULL,
	`availability_known` integer DEFAULT false NOT NULL,
	`available_for_pickup` integer,
	`holds_at_pod_terminal` text DEFAULT '[]' NOT NULL,
	`fees_at_pod_terminal` text DEFAULT '[]' NOT NULL,
	`pickup_lfd_terminal` text,
	`pickup_lfd_rail` text,
	`pickup_lfd_line` text,
	`pickup_lfd` text,
	`pickup_appointment_at` text,
	`empty_out_at` text,
	`pol_full_in_at` text,
	`pol_vessel_loaded_at` text,
	`pol_vessel_departed_at` text,
	`pod_arrived_at` text,
	`pod_discharged_at` text,
	`pod_full_out_at` text,
	`pod_full_out_chassis_number` text,
	`location_at_pod_terminal` text,
	`terminal_checked_at` text,
	`final_destination_full_out_at` text,
	`empty_terminated_at` text,
	`delivered_at` text,
	`pod_timezone` text,
	`final_destination_timezone` text,
	`empty_terminated_timezone` text,
	`pod_rail_carrier_scac` text,
	`ind_rail_carrier_scac` text,
	`pod_last_tracking_request_at` text,
	`shipment_last_tracking_request_at` text,
	`rail_last_tracking_request_at` text,
	`pod_rail_loaded_at` text,
	`pod_rail_departed_at` text,
	`ind_eta_at` text,
	`ind_ata_at` text,
	`ind_rail_unloaded_at` text,
	`pod_terminal_id` text,
	`pickup_facility_id` text,
	`pod_locode` text,
	`scac` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`shipment_id`) REFERENCES `shipments`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`pod_terminal_id`) REFERENCES `terminals`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`pickup_facility_id`) REFERENCES `terminals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `containers_account_created_idx` ON `containers` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `containers_account_number_idx` ON `containers` (`account_id`,`number`);--> statement-breakpoint
CREATE INDEX `containers_number_idx` ON `containers` (`number`);--> statement-breakpoint
CREATE INDEX `containers_account_status_idx` ON `containers` (`account_id`,`current_status`,`created_at`);--> statement-breakpoint
CREATE INDEX `containers_shipment_idx` ON `containers` (`shipment_id`);--> statement-breakpoint
CREATE INDEX `containers_tracked_equipment_idx` ON `containers` (`tracked_equipment_id`);--> statement-breakpoint
CREATE TABLE `estimated_events` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`shipment_id` text NOT NULL,
	`event` text NOT NULL,
	`estimated_timestamp` text NOT NULL,
	`location_locode` text,
	`location_id` text,
	`voyage_number` text,
	`timezone` text,
	`data_source` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`shipment_id`) REFERENCES `shipments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `estimated_events_shipment_idx` ON `estimated_events` (`shipment_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `raw_events` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`container_id` text NOT NULL,
	`index` integer NOT NULL,
	`event` text NOT NULL,
	`original_event` text,
	`timestamp` text,
	`estimated` integer DEFAULT false NOT NULL,
	`actual_on` text,
	`estimated_on` text,
	`location` text,
	`location_locode` text,
	`vessel_name` text,
	`vessel_imo` text,
	`voyage_number` text,
	`timezone` text,
	`data_source` text NOT NULL,
	`invalidated_at` text,
	`payload` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`container_id`) REFERENCES `containers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `raw_events_container_idx` ON `raw_events` (`container_id`,`index`);--> statement-breakpoint
CREATE TABLE `shipments` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`bill_of_lading_number` text NOT NULL,
	`normalized_number` text NOT NULL,
	`ref_numbers` text DEFAULT '[]' NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`shipping_line_scac` text NOT NULL,
	`customer_id` text,
	`port_of_lading_id` text,
	`port_of_lading_locode` text,
	`port_of_lading_name` text,
	`port_of_discharge_id` text,
	`port_of_discharge_locode` text,
	`port_of_discharge_name` text,
	`pod_terminal_id` text,
	`destination_id` text,
	`destination_locode` text,
	`destination_name` text,
	`destination_terminal_id` text,
	`pod_vessel_name` text,
	`pod_vessel_imo` text,
	`pod_voyage_number` text,
	`pol_etd_at` text,
	`pol_atd_at` text,
	`pol_original_etd_at` text,
	`pod_eta_at` text,
	`pod_original_eta_at` text,
	`pod_ata_at` text,
	`destination_eta_at` text,
	`destination_ata_at` text,
	`destination_original_eta_at` text,
	`pol_timezone` text,
	`pod_timezone` text,
	`destination_timezone` text,
	`line_tracking_last_attempted_at` text,
	`line_tracking_last_succeeded_at` text,
	`line_tracking_stopped_at` text,
	`line_tracking_stopped_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `parties`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`pod_terminal_id`) REFERENCES `terminals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `shipments_account_created_idx` ON `shipments` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `shipments_account_number_idx` ON `shipments` (`account_id`,`normalized_number`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`tracked_equipment_id` text NOT NULL,
	`container_id` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`tracked_equipment_id`) REFERENCES `tracked_equipment`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`container_id`) REFERENCES `containers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_container_idx` ON `subscriptions` (`container_id`);--> statement-breakpoint
CREATE INDEX `subscriptions_tracked_equipment_idx` ON `subscriptions` (`tracked_equipment_id`);--> statement-breakpoint
CREATE TABLE `tracked_equipment` (
	`id` text PRIMARY KEY NOT NULL,
	`scac` text NOT NULL,
	`number` text NOT NULL,
	`shipment_number` text,
	`request_type` text,
	`last_polled_at` text,
	`next_poll_at` text,
	`stopped_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tracked_equipment_scac_number_idx` ON `tracked_equipment` (`scac`,`number`);--> statement-breakpoint
CREATE INDEX `tracked_equipment_next_poll_idx` ON `tracked_equipment` (`next_poll_at`);--> statement-breakpoint
CREATE TABLE `tracking_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`request_type` text NOT NULL,
	`request_number` text NOT NULL,
	`normalized_number` text NOT NULL,
	`compact_number` text DEFAULT '' NOT NULL,
	`scac` text,
	`line_scac` text,
	`auto_detect_scac` integer DEFAULT false NOT NULL,
	`ref_numbers` text DEFAULT '[]' NOT NULL,
	`shipment_tags` text DEFAULT '[]' NOT NULL,
	`status` text NOT NULL,
	`failed_reason` text,
	`is_retrying` integer DEFAULT false NOT NULL,
	`retry_count` integer,
	`customer_id` text,
	`shipment_id` text,
	`next_attempt_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `parties`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tracking_requests_account_created_idx` ON `tracking_requests` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `tracking_requests_active_number_idx` ON `tracking_requests` (`account_id`,`normalized_number`,`line_scac`) WHERE status IN ('pending', 'created');--> statement-breakpoint
CREATE INDEX `tracking_requests_account_number_idx` ON `tracking_requests` (`account_id`,`normalized_number`);--> statement-breakpoint
CREATE INDEX `tracking_requests_compact_number_idx` ON `tracking_requests` (`compact_number`,`status`);--> statement-breakpoint
CREATE INDEX `tracking_requests_status_next_idx` ON `tracking_requests` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `transport_events` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`container_id` text NOT NULL,
	`shipment_id` text NOT NULL,
	`event` text NOT NULL,
	`voyage_number` text,
	`timestamp` text,
	`timezone` text,
	`location_locode` text,
	`location_id` text,
	`terminal_id` text,
	`vessel_name` text,
	`vessel_imo` text,
	`value` text,
	`data_source` text NOT NULL,
	`invalidated_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`container_id`) REFERENCES `containers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `transport_events_container_idx` ON `transport_events` (`container_id`,`timestamp`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`notification_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`latency_ms` integer,
	`error` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`notification_id`) REFERENCES `webhook_notifications`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_notification_idx` ON `webhook_deliveries` (`notification_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`event` text NOT NULL,
	`reference_object_type` text,
	`reference_object_id` text,
	`payload` text NOT NULL,
	`delivery_status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_notifications_account_created_idx` ON `webhook_notifications` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_notifications_status_next_idx` ON `webhook_notifications` (`delivery_status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_notifications_webhook_idx` ON `webhook_notifications` (`webhook_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`url` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`events` text NOT NULL,
	`headers` text DEFAULT '[]' NOT NULL,
	`secret` text NOT NULL,
	`failing_since` text,
	`disabled_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhooks_account_created_idx` ON `webhooks` (`account_id`,`created_at`,`id`);