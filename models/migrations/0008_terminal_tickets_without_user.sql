ALTER TABLE "terminal_tickets" DROP CONSTRAINT "terminal_tickets_device_uid_devices_uid_fk";
--> statement-breakpoint
ALTER TABLE "terminal_tickets" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "terminal_tickets" ALTER COLUMN "tenant_id" DROP NOT NULL;