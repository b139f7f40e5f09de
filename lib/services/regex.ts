import type { RE2JS } from "re2js";
import { type FieldIssue, ValidationError } from "../errors";
import { setInCache } from "../process-state";
import { compileUserRegex, userRegexProblem } from "../user-regex";

/** Refuses (400, naming each field) every pattern the engine cannot run: `{ field: pattern }`. */
export function assertUserRegexes(patterns: Record<string, string>) {
  const issues: FieldIssue[] = [];
  for (const [field, pattern] of Object.entries(patterns)) {
    const message = userRegexProblem(pattern);
    if (message) issues.push({ field, message });
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

// Compiled patterns, by source: rules are evaluated on every connection. `null`: does not compile.
const cache = new Map<string, RE2JS | null>();
const maxCached = 1000;

function cached(pattern: string): RE2JS | null {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = compileUserRegex(pattern);
    } catch {
      compiled = null;
    }
    setInCache(cache, pattern, compiled, maxCached);
  }
  return compiled;
}

/**
 * Whether `pattern` matches somewhere in `input` (the rules of lib/user-regex.ts); undefined when
 * the pattern does not compile (stored before a rule changed, or by hand), so that callers can
 * fail closed.
 */
export function searchUserRegex(pattern: string, input: string): boolean | undefined {
  return cached(pattern)?.test(input);
}
