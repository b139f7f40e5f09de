import * as api from "@/lib/api/announcements";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { listAnnouncementEntries } from "@/lib/services/announcements";

// GET /api/announcements/entries - whole announcements, newest first (the console)
export const GET = route(api.listAnnouncementEntries, ({ query }) => listAnnouncementEntries(getDb(), query));
