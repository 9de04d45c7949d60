CREATE TABLE `document_blobs` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`storage_key` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`byte_size` integer NOT NULL,
	`checksum` text NOT NULL,
	`created_at` text NOT NULL,
	`uploaded_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `document_blobs_account_idx` ON `document_blobs` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `document_mailboxes` (
	`account_id` text PRIMARY KEY NOT NULL,
	`token` text NOT NULL,
	`allowed_senders` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_mailboxes_token_idx` ON `document_mailboxes` (`token`);--> statement-breakpoint
CREATE TABLE `document_representations` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`document_id` text NOT NULL,
	`schema_version` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `document_representations_document_idx` ON `document_representations` (`document_id`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`blob_id` text NOT NULL,
	`name` text NOT NULL,
	`source` text NOT NULL,
	`email_submission_id` text,
	`document_type` text,
	`document_type_manual` text,
	`classification_notes` text,
	`extracted_data_manual` text,
	`file_name` text NOT NULL,
	`file_content_type` text NOT NULL,
	`file_size_bytes` integer NOT NULL,
	`checksum` text NOT NULL,
	`storage_key` text NOT NULL,
	`last_document_representation_id` text,
	`extraction_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`blob_id`) REFERENCES `document_blobs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `documents_account_created_idx` ON `documents` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `documents_account_checksum_idx` ON `documents` (`account_id`,`checksum`);--> statement-breakpoint
CREATE UNIQUE INDEX `documents_blob_idx` ON `documents` (`blob_id`);--> statement-breakpoint
CREATE INDEX `documents_email_submission_idx` ON `documents` (`email_submission_id`);--> statement-breakpoint
CREATE TABLE `email_submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`subject` text NOT NULL,
	`body` text,
	`from` text NOT NULL,
	`to` text NOT NULL,
	`cc` text NOT NULL,
	`sent_at` text,
	`message_id` text,
	`in_reply_to` text,
	`references` text NOT NULL,
	`content_type` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `email_submissions_account_created_idx` ON `email_submissions` (`account_id`,`created_at`,`id`);