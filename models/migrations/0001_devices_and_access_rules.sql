CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE TABLE "announcements" (
	"uuid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"date" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "firewall_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"action" text NOT NULL,
	"active" boolean NOT NULL,
	"priority" integer NOT NULL,
	"source_ip" text NOT NULL,
	"username" text NOT NULL,
	"filter" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "session_records" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"session_uid" text NOT NULL,
	"tenant_id" uuid NOT NULL,
	"time" timestamp with time zone DEFAULT now() NOT NULL,
	"message" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "firewall_rules" ADD CONSTRAINT "firewall_rules_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_records" ADD CONSTRAINT "session_records_session_uid_sessions_uid_fk" FOREIGN KEY ("session_uid") REFERENCES "public"."sessions"("uid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_records" ADD CONSTRAINT "session_records_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "announcements_date_idx" ON "announcements" USING btree ("date");--> statement-breakpoint
CREATE INDEX "firewall_rules_tenant_priority_idx" ON "firewall_rules" USING btree ("tenant_id","priority");--> statement-breakpoint
CREATE INDEX "session_records_session_idx" ON "session_records" USING btree ("session_uid","id");--> statement-breakpoint
CREATE INDEX "devices_tenant_last_seen_idx" ON "devices" USING btree ("tenant_id","last_seen");--> statement-breakpoint
CREATE INDEX "devices_name_trgm_idx" ON "devices" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "devices_online_last_seen_idx" ON "devices" USING btree ("last_seen") WHERE "devices"."online";