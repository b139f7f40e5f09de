ALTER TABLE "devices" ADD COLUMN "tunnel_error" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "tunnel_error_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tunnels" ADD COLUMN "clock_skew_ms" integer;