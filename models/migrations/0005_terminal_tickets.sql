CREATE TABLE "terminal_tickets" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"device_uid" text NOT NULL,
	"username" text NOT NULL,
	"sealed_credential" text NOT NULL,
	"session_uid" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "terminal_tickets" ADD CONSTRAINT "terminal_tickets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "terminal_tickets" ADD CONSTRAINT "terminal_tickets_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "terminal_tickets" ADD CONSTRAINT "terminal_tickets_device_uid_devices_uid_fk" FOREIGN KEY ("device_uid") REFERENCES "public"."devices"("uid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "terminal_tickets_user_idx" ON "terminal_tickets" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "terminal_tickets_expires_at_idx" ON "terminal_tickets" USING btree ("expires_at");