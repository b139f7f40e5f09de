DROP INDEX "session_records_session_idx";--> statement-breakpoint
CREATE INDEX "session_records_play_idx" ON "session_records" USING btree ("session_uid","time","id");