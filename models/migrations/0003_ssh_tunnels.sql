CREATE TABLE "tunnels" (
	"device_uid" text PRIMARY KEY NOT NULL,
	"instance" text NOT NULL,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "reason" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "tunnels" ADD CONSTRAINT "tunnels_device_uid_devices_uid_fk" FOREIGN KEY ("device_uid") REFERENCES "public"."devices"("uid") ON DELETE cascade ON UPDATE no action;