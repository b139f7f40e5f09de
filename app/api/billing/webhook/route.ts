import { Readable } from "node:stream";
import * as api from "@/lib/api/billing";
import { getDb } from "@/lib/db";
import { readTextBody } from "@/lib/http/body";
import { route } from "@/lib/http/route";
import { receiveWebhook } from "@/lib/services/billing";

// POST /api/billing/webhook - the signature covers the exact bytes, so the body is read as text
export const POST = route(api.receiveWebhook, async ({ request }) =>
  receiveWebhook(
    getDb(),
    await readTextBody(request.body && Readable.from(request.body), request.headers.get("content-length")),
    request.headers.get("stripe-signature"),
  ),
);
