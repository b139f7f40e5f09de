/** The closed set of failures services may raise; the route wrapper turns each into its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): unknown {
    return { message: this.message };
  }
}

/** A failure whose body also names its kind, `{message, code}` (billing, docs/billing.md). */
export class CodedError extends ApiError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
  ) {
    super(status, message);
  }

  override body() {
    return { message: this.message, code: this.code };
  }
}

export type FieldIssue = { field: string; message: string };

/** 400 with `{message, fields}`; on user register/update the body is the array of field names. */
export class ValidationError extends ApiError {
  constructor(
    readonly issues: FieldIssue[],
    readonly asFieldNames = false,
  ) {
    super(400, `invalid ${issues.map((issue) => `${issue.field || "body"}: ${issue.message}`).join("; ")}`);
  }

  override body() {
    if (this.asFieldNames) return [...new Set(this.issues.map((issue) => issue.field))];
    return { message: this.message, fields: this.issues };
  }
}

/** 409 whose body is the array of conflicting field names (user register/update). */
export class FieldConflictError extends ApiError {
  constructor(readonly fields: string[]) {
    super(409, `already in use: ${fields.join(", ")}`);
  }

  override body() {
    return this.fields;
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message: string, headers?: Record<string, string>) => new ApiError(401, message, headers);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const conflict = (message: string) => new ApiError(409, message);
export const tooManyRequests = (message: string, headers?: Record<string, string>) =>
  new ApiError(429, message, headers);

/** True when PostgreSQL refused a write because of a unique index (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const cause = findPgError(error);
  return cause?.code === "23505" && (constraint === undefined || cause.constraint === constraint);
}

/** True when PostgreSQL aborted the statement to break a deadlock (SQLSTATE 40P01). */
export const isDeadlock = (error: unknown) => findPgError(error)?.code === "40P01";

function findPgError(error: unknown): { code?: string; constraint?: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === "object" && depth < 5; depth++) {
    const candidate = current as { code?: unknown; constraint?: string; cause?: unknown };
    if (typeof candidate.code === "string" && /^[0-9A-Z]{5}$/.test(candidate.code)) {
      return { code: candidate.code, constraint: candidate.constraint };
    }
    current = candidate.cause;
  }
  return undefined;
}

/** Readable text for anything thrown (some libraries throw plain objects). */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
