CREATE TABLE `tracking_request_import_rows` (
	`import_id` text NOT NULL,
	`row_number` integer NOT NULL,
	`account_id` text NOT NULL,
	`request_number` text NOT NULL,
	`request_type` text,
	`scac` text,
	`scac_source` text,
	`suggested_scac` text,
	`ref_numbers` text DEFAULT '[]' NOT NULL,
	`shipment_tags` text DEFAULT '[]' NOT NULL,
	`customer_id` text,
	`outcome` text NOT NULL,
	`reasons` text DEFAULT '[]' NOT NULL,
	`tracking_request_id` text,
	PRIMARY KEY(`import_id`, `row_number`),
	FOREIGN KEY (`import_id`) REFERENCES `tracking_request_imports`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tracking_request_import_rows_outcome_idx` ON `tracking_request_import_rows` (`import_id`,`outcome`,`row_number`);--> statement-breakpoint
CREATE TABLE `tracking_request_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`status` text NOT NULL,
	`format` text NOT NULL,
	`file_name` text,
	`total_rows` integer NOT NULL,
	`valid_rows` integer NOT NULL,
	`invalid_rows` integer NOT NULL,
	`created_rows` integer DEFAULT 0 NOT NULL,
	`failed_rows` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`started_at` text,
	`completed_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tracking_request_imports_account_idx` ON `tracking_request_imports` (`account_id`,`created_at`);