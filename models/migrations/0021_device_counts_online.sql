ALTER TABLE "device_counts" ADD COLUMN "online" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The online devices among each count, kept by the same triggers: the stats read them instead of
-- counting the namespace's rows (docs/performance.md).
CREATE OR REPLACE FUNCTION device_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO device_counts (tenant_id, status, count, online)
  SELECT tenant_id, status, count(*), count(*) FILTER (WHERE online) FROM inserted
  GROUP BY tenant_id, status ORDER BY tenant_id, status
  ON CONFLICT (tenant_id, status) DO UPDATE
    SET count = device_counts.count + excluded.count, online = device_counts.online + excluded.online;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION device_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM FROM device_counts
  WHERE (tenant_id, status) IN (SELECT tenant_id, status FROM deleted)
  ORDER BY tenant_id, status FOR UPDATE;
  UPDATE device_counts SET count = device_counts.count - removed.count, online = device_counts.online - removed.online
  FROM (
    SELECT tenant_id, status, count(*) AS count, count(*) FILTER (WHERE online) AS online FROM deleted GROUP BY tenant_id, status
  ) AS removed
  WHERE device_counts.tenant_id = removed.tenant_id AND device_counts.status = removed.status;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A device that changes status or namespace moves from one count to the other, one that comes
-- online or goes offline changes its count's `online`: one row upserted per count, in key order.
CREATE OR REPLACE FUNCTION device_counts_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO device_counts (tenant_id, status, count, online)
  SELECT tenant_id, status, sum(count), sum(online)
  FROM (VALUES (OLD.tenant_id, OLD.status, -1, -OLD.online::int), (NEW.tenant_id, NEW.status, 1, NEW.online::int))
    AS change(tenant_id, status, count, online)
  GROUP BY tenant_id, status ORDER BY tenant_id, status
  ON CONFLICT (tenant_id, status) DO UPDATE
    SET count = device_counts.count + excluded.count, online = device_counts.online + excluded.online;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER devices_counted_moves ON devices;
--> statement-breakpoint
-- Fires only for rows whose status, namespace or `online` changed: never for a heartbeat of a
-- device online already, nor for the tunnels' liveness.
CREATE TRIGGER devices_counted_moves AFTER UPDATE OF status, tenant_id, online ON devices FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.tenant_id IS DISTINCT FROM NEW.tenant_id
    OR OLD.online IS DISTINCT FROM NEW.online)
  EXECUTE FUNCTION device_counts_moved();
--> statement-breakpoint
LOCK TABLE devices IN SHARE MODE;
--> statement-breakpoint
UPDATE device_counts SET online = counted.online
FROM (SELECT tenant_id, status, count(*) FILTER (WHERE online) AS online FROM devices GROUP BY tenant_id, status) AS counted
WHERE device_counts.tenant_id = counted.tenant_id AND device_counts.status = counted.status;
