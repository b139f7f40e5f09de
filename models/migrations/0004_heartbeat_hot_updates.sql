DROP INDEX "devices_tenant_last_seen_idx";--> statement-breakpoint
DROP INDEX "devices_online_last_seen_idx";--> statement-breakpoint
ALTER TABLE "devices" SET (fillfactor = 70);
