import * as api from "@/lib/api/sessions";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { streamedResponse } from "@/lib/http/streamed-body";
import { asciicastLines, readRecording } from "@/lib/services/recordings";

// GET /api/sessions/{uid}/cast - the recording as an asciicast v2 file, streamed
export const GET = route(api.downloadSessionCast, async ({ request, scope, params }) =>
  streamedResponse(request, asciicastLines(await readRecording(getDb(), scope, params.uid)), {
    "content-type": "application/x-asciicast",
    "content-disposition": `attachment; filename="session-${params.uid.slice(0, 12)}.cast"`,
  }),
);
