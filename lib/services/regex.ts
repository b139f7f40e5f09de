import { RE2JS } from "re2js";
import { type FieldIssue, ValidationError } from "../errors";

/**
 * Users' regular expressions (public-key filters and usernames, firewall rules) run on RE2JS, a
 * linear-time engine: no backtracking, so no pattern can hang the server on any input. RE2
 * syntax has no backreferences and no lookaround; such patterns are refused when written.
 *
 * Matching is a search, as in Go's `regexp.MatchString` that ShellHub uses, so patterns written
 * for it keep their meaning: `web` matches `web-01` and `myweb`; anchor with `^...$` for an
 * exact match.
 */
export const maxPatternLength = 512;
// Matching costs time per input character per instruction: counted repeats inflate the program
// (`.{1000}` is 1,000 instructions), so their total is capped too. Real patterns use under 200.
const maxProgramSize = 2000;

/** Compiles a user's pattern; throws an Error saying why it is refused. */
function compileUserRegex(pattern: string): RE2JS {
  if (pattern.length > maxPatternLength) throw new Error(`at most ${maxPatternLength} characters`);
  const compiled = RE2JS.compile(pattern);
  if (compiled.programSize() > maxProgramSize) throw new Error("too complex: use fewer or smaller counted repeats");
  return compiled;
}

/** Refuses (400, naming each field) every pattern the engine cannot run: `{ field: pattern }`. */
export function assertUserRegexes(patterns: Record<string, string>) {
  const issues: FieldIssue[] = [];
  for (const [field, pattern] of Object.entries(patterns)) {
    try {
      compileUserRegex(pattern);
    } catch (error) {
      issues.push({ field, message: `not a supported regular expression: ${(error as Error).message}` });
    }
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
    if (cache.size >= maxCached) cache.clear();
    cache.set(pattern, compiled);
  }
  return compiled;
}

/**
 * Whether `pattern` matches somewhere in `input`; undefined when the pattern does not compile
 * (stored before a rule changed, or by hand), so that callers can fail closed.
 */
export function searchUserRegex(pattern: string, input: string): boolean | undefined {
  return cached(pattern)?.test(input);
}
