ALTER TABLE "devices" ADD COLUMN "key_digest" text;--> statement-breakpoint
-- The digest keyDigestOf computes: SHA-256 of the PEM's payload (keys were checked when stored).
UPDATE "devices" SET "key_digest" = encode(sha256(decode(regexp_replace("public_key", '-----[^-]*-----|\s', '', 'g'), 'base64')), 'hex');--> statement-breakpoint
ALTER TABLE "devices" ALTER COLUMN "key_digest" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "key_proven_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "namespaces" ADD COLUMN "allow_unsigned_agents" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "devices_tenant_key_idx" ON "devices" USING btree ("tenant_id","key_digest");
