-- Keys whose creator is no longer a member were already refused; they go before the constraint.
DELETE FROM "api_keys" WHERE NOT EXISTS (SELECT 1 FROM "members" WHERE "members"."tenant_id" = "api_keys"."tenant_id" AND "members"."user_id" = "api_keys"."created_by");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_membership_fkey" FOREIGN KEY ("tenant_id","created_by") REFERENCES "public"."members"("tenant_id","user_id") ON DELETE cascade ON UPDATE no action;
