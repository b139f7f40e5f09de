CREATE TABLE "device_counts" (
	"tenant_id" uuid NOT NULL,
	"status" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "device_counts_tenant_id_status_pk" PRIMARY KEY("tenant_id","status")
);
--> statement-breakpoint
ALTER TABLE "device_counts" ADD CONSTRAINT "device_counts_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- New devices, counted by the statement that inserts them, rows locked in key order.
CREATE FUNCTION device_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO device_counts (tenant_id, status, count)
  SELECT tenant_id, status, count(*) FROM inserted GROUP BY tenant_id, status ORDER BY tenant_id, status
  ON CONFLICT (tenant_id, status) DO UPDATE SET count = device_counts.count + excluded.count;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Removed devices: an update only, as a namespace's deletion removes its counts and devices together.
CREATE FUNCTION device_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM FROM device_counts
  WHERE (tenant_id, status) IN (SELECT tenant_id, status FROM deleted)
  ORDER BY tenant_id, status FOR UPDATE;
  UPDATE device_counts SET count = device_counts.count - removed.count
  FROM (SELECT tenant_id, status, count(*) AS count FROM deleted GROUP BY tenant_id, status) AS removed
  WHERE device_counts.tenant_id = removed.tenant_id AND device_counts.status = removed.status;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A device that changes status moves from one count to the other, both locked in key order.
CREATE FUNCTION device_counts_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO device_counts (tenant_id, status, count)
  SELECT * FROM (VALUES (OLD.tenant_id, OLD.status, -1), (NEW.tenant_id, NEW.status, 1)) AS change(tenant_id, status, count)
  ORDER BY tenant_id, status
  ON CONFLICT (tenant_id, status) DO UPDATE SET count = device_counts.count + excluded.count;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER devices_counted_inserts AFTER INSERT ON devices
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION device_counts_inserted();
--> statement-breakpoint
CREATE TRIGGER devices_counted_deletes AFTER DELETE ON devices
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION device_counts_deleted();
--> statement-breakpoint
-- Fires only for statements that set the status or the namespace: never for heartbeats.
CREATE TRIGGER devices_counted_moves AFTER UPDATE OF status, tenant_id ON devices FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id)
  EXECUTE FUNCTION device_counts_moved();
--> statement-breakpoint
LOCK TABLE devices IN SHARE MODE;
--> statement-breakpoint
INSERT INTO device_counts (tenant_id, status, count)
SELECT tenant_id, status, count(*) FROM devices GROUP BY tenant_id, status;
