import * as api from "@/lib/api/mfa";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { generateMfa } from "@/lib/services/mfa";

// GET /api/user/mfa/generate - new MFA credentials
export const GET = route(api.generateMfa, ({ userId }) => generateMfa(getDb(), userId));
