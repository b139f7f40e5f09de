import * as api from "@/lib/api/announcements";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { listAnnouncements } from "@/lib/services/announcements";

// GET /api/announcements - title and date, newest first unless order_by=asc
export const GET = route(api.listAnnouncements, ({ query }) => listAnnouncements(getDb(), query));
