import { RE2JS } from "re2js";
import { maxPatternLength } from "./schemas/common";

/**
 * The rules of users' regular expressions (public-key filters and usernames, firewall rules),
 * shared by the server (lib/services/regex.ts) and the console's live previews, so a pattern the
 * console accepts is one the server accepts and matches the same names. Imports only re2js.
 *
 * RE2JS is a linear-time engine: no backtracking, so no pattern can hang the server on any
 * input. RE2 syntax has no backreferences and no lookaround; such patterns are refused.
 * Matching is a search, as in Go's `regexp.MatchString` that ShellHub uses: `web` matches
 * `web-01` and `myweb`; anchor with `^...$` for an exact match.
 */
// Matching costs time per input character per instruction: counted repeats inflate the program
// (`.{1000}` is 1,000 instructions), so their total is capped too. Real patterns use under 200.
const maxProgramSize = 2000;

/** Compiles a user's pattern; throws an Error saying why it is refused. */
export function compileUserRegex(pattern: string): RE2JS {
  if (pattern.length > maxPatternLength) throw new Error(`at most ${maxPatternLength} characters`);
  const compiled = RE2JS.compile(pattern);
  if (compiled.programSize() > maxProgramSize) throw new Error("too complex: use fewer or smaller counted repeats");
  return compiled;
}

/** Why a pattern is refused, in the words of the API's 400; undefined when it compiles. */
export function userRegexProblem(pattern: string): string | undefined {
  try {
    compileUserRegex(pattern);
    return undefined;
  } catch (error) {
    return `not a supported regular expression: ${(error as Error).message}`;
  }
}
