CREATE TABLE "device_transitions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"device_uid" text NOT NULL,
	"tenant_id" uuid NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"online" boolean NOT NULL,
	"cause" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "device_transitions_device_uid_idx" ON "device_transitions" USING btree ("device_uid","id");