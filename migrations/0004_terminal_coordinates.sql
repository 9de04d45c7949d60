ALTER TABLE `terminals` ADD `latitude` text;--> statement-breakpoint
ALTER TABLE `terminals` ADD `longitude` text;--> statement-breakpoint
ALTER TABLE `terminals` ADD `valid_to` text;