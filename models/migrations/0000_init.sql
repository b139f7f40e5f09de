CREATE TABLE "api_keys" (
	"key_hash" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"created_by" uuid NOT NULL,
	"expires_in" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"uid" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"identity" jsonb NOT NULL,
	"info" jsonb NOT NULL,
	"public_key" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"status_update_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"online" boolean DEFAULT false NOT NULL,
	"remote_addr" text DEFAULT '' NOT NULL,
	"position" jsonb,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"public_url" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "login_attempts" (
	"source" text NOT NULL,
	"subject" text NOT NULL,
	"failures" integer NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "login_attempts_source_subject_pk" PRIMARY KEY("source","subject")
);
--> statement-breakpoint
CREATE TABLE "members" (
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "members_tenant_id_user_id_pk" PRIMARY KEY("tenant_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "namespaces" (
	"tenant_id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"owner" uuid NOT NULL,
	"session_record" boolean DEFAULT false NOT NULL,
	"connection_announcement" text DEFAULT '' NOT NULL,
	"max_devices" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "public_keys" (
	"tenant_id" uuid NOT NULL,
	"fingerprint" text NOT NULL,
	"data" text NOT NULL,
	"name" text NOT NULL,
	"filter" jsonb NOT NULL,
	"username" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "public_keys_tenant_id_fingerprint_pk" PRIMARY KEY("tenant_id","fingerprint")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"uid" text PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"device_uid" text NOT NULL,
	"username" text NOT NULL,
	"ip_address" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"authenticated" boolean DEFAULT false NOT NULL,
	"recorded" boolean DEFAULT false NOT NULL,
	"type" text DEFAULT '' NOT NULL,
	"term" text DEFAULT '' NOT NULL,
	"position" jsonb
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"username" text NOT NULL,
	"email" text NOT NULL,
	"recovery_email" text,
	"password_hash" text NOT NULL,
	"is_confirmed" boolean DEFAULT true NOT NULL,
	"email_marketing" boolean DEFAULT false NOT NULL,
	"mfa_enabled" boolean DEFAULT false NOT NULL,
	"last_tenant" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_owner_users_id_fk" FOREIGN KEY ("owner") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "public_keys" ADD CONSTRAINT "public_keys_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_tenant_id_namespaces_tenant_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."namespaces"("tenant_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_device_uid_devices_uid_fk" FOREIGN KEY ("device_uid") REFERENCES "public"."devices"("uid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_tenant_name_key" ON "api_keys" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE INDEX "api_keys_created_by_idx" ON "api_keys" USING btree ("created_by");--> statement-breakpoint
CREATE UNIQUE INDEX "devices_tenant_name_key" ON "devices" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE INDEX "devices_tenant_status_idx" ON "devices" USING btree ("tenant_id","status");--> statement-breakpoint
CREATE INDEX "members_user_idx" ON "members" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "namespaces_name_key" ON "namespaces" USING btree ("name");--> statement-breakpoint
CREATE INDEX "namespaces_owner_idx" ON "namespaces" USING btree ("owner");--> statement-breakpoint
CREATE INDEX "sessions_tenant_started_idx" ON "sessions" USING btree ("tenant_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_key" ON "users" USING btree ("username");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree ("email");