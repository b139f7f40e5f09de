import * as api from "@/lib/api/sessions";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { streamedResponse } from "@/lib/http/streamed-body";
import { readRecording, recordJsonChunks } from "@/lib/services/recordings";

// GET /api/sessions/{uid}/play - the recorded frames, in order, as one JSON array written a page at a time
export const GET = route(api.playSession, async ({ request, scope, params }) =>
  streamedResponse(request, recordJsonChunks(await readRecording(getDb(), scope, params.uid)), {
    "content-type": "application/json",
  }),
);
