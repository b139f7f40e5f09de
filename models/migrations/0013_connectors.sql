CREATE TABLE "connector_containers" (
	"device_uid" text PRIMARY KEY NOT NULL,
	"connector_uid" uuid NOT NULL,
	"container_id" text NOT NULL,
	"image" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "connectors" (
	"uid" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"enable" boolean NOT NULL,
	"address" text NOT NULL,
	"port" integer NOT NULL,
	"secure" boolean NOT NULL,
	"tls" jsonb,
	"state" text DEFAULT 'pending' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"lease_instance" text,
	"lease_until" timestamp with time zone,
	"failures" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "connector_containers" ADD CONSTRAINT "connector_containers_device_uid_devices_uid_fk" FOREIGN KEY ("device_uid") REFERENCES "public"."devices"("uid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connector_containers" ADD CONSTRAINT "connector_containers_connector_uid_connectors_uid_fk" FOREIGN KEY ("connector_uid") REFERENCES "public"."connectors"("uid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connectors" ADD CONSTRAINT "connectors_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "connector_containers_connector_idx" ON "connector_containers" USING btree ("connector_uid");--> statement-breakpoint
CREATE INDEX "connectors_tenant_idx" ON "connectors" USING btree ("tenant_id","created_at");