CREATE TABLE `vessel_positions` (
	`vessel_id` text NOT NULL,
	`timestamp` text NOT NULL,
	`latitude` real NOT NULL,
	`longitude` real NOT NULL,
	`speed_knots` real,
	`heading_degrees` real,
	`source` text NOT NULL,
	PRIMARY KEY(`vessel_id`, `timestamp`),
	FOREIGN KEY (`vessel_id`) REFERENCES `vessels`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `vessel_positions_timestamp_idx` ON `vessel_positions` (`timestamp`);--> statement-breakpoint
CREATE TABLE `vessels` (
	`id` text PRIMARY KEY NOT NULL,
	`imo` text NOT NULL,
	`mmsi` text,
	`name` text,
	`latitude` real,
	`longitude` real,
	`nautical_speed_knots` real,
	`navigational_heading_degrees` real,
	`position_timestamp` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vessels_imo_idx` ON `vessels` (`imo`);--> statement-breakpoint
CREATE INDEX `vessels_mmsi_idx` ON `vessels` (`mmsi`);