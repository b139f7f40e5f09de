import * as api from "@/lib/api/events";
import { getDb } from "@/lib/db";
import { eventStreamResponse } from "@/lib/http/event-stream";
import { route } from "@/lib/http/route";
import { openEventStream } from "@/lib/services/event-stream";

// GET /api/events - the namespace's live events (Server-Sent Events), replayed after Last-Event-ID
export const GET = route(api.streamEvents, ({ scope, request }) =>
  eventStreamResponse(request, ({ write, end }) =>
    openEventStream(getDb(), scope, request.headers.get("last-event-id"), { send: write, end }),
  ),
);
