import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors";
import { maxPatternLength } from "../schemas/common";
import { assertUserRegexes, searchUserRegex } from "./regex";

function refusedFields(patterns: Record<string, string>): string[] {
  try {
    assertUserRegexes(patterns);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).status).toBe(400);
    return (error as ValidationError).issues.map((issue) => issue.field);
  }
  return [];
}

describe("user regexes: search semantics", () => {
  it.each([
    ["web", "web-01", true],
    ["web", "myweb", true],
    ["^web$", "web-01", false],
    ["^web$", "web", true],
    ["^web-[0-9]+$", "web-42", true],
    ["^web-[0-9]+$", "web-42x", false],
    [".*", "", true],
    ["^10\\.0\\.", "10.0.3.4", true],
    ["^10\\.0\\.", "10.10.3.4", false],
    ["Root", "root", false],
    ["(?i)Root", "root", true],
  ])("%s on %j is %s", (pattern, input, expected) => {
    expect(searchUserRegex(pattern, input)).toBe(expected);
  });

  it("answers undefined, not false, for a pattern that does not compile", () => {
    expect(searchUserRegex("(a)\\1", "aa")).toBeUndefined();
    expect(searchUserRegex("x".repeat(maxPatternLength + 1), "x")).toBeUndefined();
  });
});

describe("user regexes: linear time", () => {
  it.each([
    ["(a+)+$", `${"a".repeat(100_000)}!`],
    ["(x+x+)+y", "x".repeat(100_000)],
    ["^(a|a)*$", `${"a".repeat(100_000)}b`],
    ["(.*a){20}", "a".repeat(50_000)],
  ])("%s finishes fast on an input that makes backtracking engines explode", (pattern, input) => {
    expect(refusedFields({ pattern })).toEqual([]);
    const started = performance.now();
    searchUserRegex(pattern, input);
    // A backtracking engine takes longer than the age of the universe on these.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("user regexes: refused at write", () => {
  it.each([
    ["a backreference", "(a)\\1"],
    ["a lookahead", "foo(?=bar)"],
    ["a negative lookahead", "^(?!root$)"],
    ["a lookbehind", "(?<=a)b"],
    ["a possessive quantifier", "a++"],
    ["an atomic group", "(?>a+)"],
    ["an unbalanced parenthesis", "(abc"],
    ["an unclosed class", "[a-z"],
    ["a repeat count over 1000", "a{1001}"],
    ["too many counted repeats (program too large)", ".{1000}.{1000}"],
    ["a pattern over the length cap", "a".repeat(maxPatternLength + 1)],
  ])("refuses %s with a 400 naming the field", (_label, pattern) => {
    expect(refusedFields({ username: pattern })).toEqual(["username"]);
  });

  it("accepts a pattern at the length cap", () => {
    expect(refusedFields({ username: "a".repeat(maxPatternLength) })).toEqual([]);
  });

  it("names every refused field at once, and only those", () => {
    expect(refusedFields({ source_ip: "(?=x)", username: "^root$", "filter.hostname": "(" })).toEqual([
      "source_ip",
      "filter.hostname",
    ]);
  });
});
