import { operations } from "@/lib/api";
import { openApiDocument as operation } from "@/lib/api/service";
import { openApiDocument } from "@/lib/http/openapi";
import { route } from "@/lib/http/route";
import { version } from "@/lib/version";

// GET /api/openapi.json - generated from the operations' zod schemas
export const GET = route(operation, () => openApiDocument(operations, version));
