import * as api from "@/lib/api/announcements";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { getAnnouncement } from "@/lib/services/announcements";

// GET /api/announcements/{uuid} - with its Markdown content
export const GET = route(api.getAnnouncement, ({ params }) => getAnnouncement(getDb(), params.uuid));
