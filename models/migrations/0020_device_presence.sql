CREATE TABLE "device_presence" (
	"uid" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_presence" ADD CONSTRAINT "device_presence_uid_devices_uid_fk" FOREIGN KEY ("uid") REFERENCES "public"."devices"("uid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_presence" ADD CONSTRAINT "device_presence_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_presence_tenant_last_seen_idx" ON "device_presence" USING btree ("tenant_id","last_seen","uid");--> statement-breakpoint
-- Every new device gets its row, stamped now, in the statement that inserts it.
CREATE FUNCTION device_presence_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO device_presence (uid, tenant_id) SELECT uid, tenant_id FROM inserted ORDER BY uid;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER devices_presence_inserts AFTER INSERT ON devices
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION device_presence_inserted();
--> statement-breakpoint
LOCK TABLE devices IN SHARE MODE;
--> statement-breakpoint
INSERT INTO device_presence (uid, tenant_id, last_seen) SELECT uid, tenant_id, last_seen FROM devices;
--> statement-breakpoint
ALTER TABLE "devices" DROP COLUMN "last_seen";