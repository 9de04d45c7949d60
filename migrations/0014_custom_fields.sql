CREATE TABLE `custom_field_definitions` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`entity_type` text NOT NULL,
	`api_slug` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text,
	`data_type` text NOT NULL,
	`reference_type` text,
	`validation` text,
	`default_format` text,
	`default_value` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_field_definitions_account_slug_idx` ON `custom_field_definitions` (`account_id`,`api_slug`);--> statement-breakpoint
CREATE INDEX `custom_field_definitions_account_created_idx` ON `custom_field_definitions` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `custom_field_options` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`definition_id` text NOT NULL,
	`label` text NOT NULL,
	`value` text NOT NULL,
	`position` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`definition_id`) REFERENCES `custom_field_definitions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_field_options_definition_value_idx` ON `custom_field_options` (`definition_id`,`value`);--> statement-breakpoint
CREATE TABLE `custom_fields` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`definition_id` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text NOT NULL,
	`value` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`definition_id`) REFERENCES `custom_field_definitions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_fields_entity_definition_idx` ON `custom_fields` (`entity_type`,`entity_id`,`definition_id`);--> statement-breakpoint
CREATE INDEX `custom_fields_definition_idx` ON `custom_fields` (`definition_id`);--> statement-breakpoint
CREATE INDEX `custom_fields_account_created_idx` ON `custom_fields` (`account_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `custom_field_limit` integer;--> statement-breakpoint
ALTER TABLE `tracking_requests` ADD `initial_custom_fields` text;