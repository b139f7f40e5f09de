import { describe, expect, it } from "vitest";
import { ApiError } from "../errors";
import { findUnstorableText, parseJsonBody } from "./body";

const refusalOf = (text: string) => {
  try {
    parseJsonBody(text);
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? `${error.status} ${error.message}` : String(error);
  }
};

describe("parseJsonBody", () => {
  it("refuses a NUL character at any depth, without overflowing the stack", () => {
    const depth = 500_000;
    expect(refusalOf(`${"[".repeat(depth)}"\\u0000"${"]".repeat(depth)}`)).toBe(
      "400 request body contains a NUL character",
    );
    expect(refusalOf(`${'{"a":'.repeat(depth)}1,"b\\u0000":2${"}".repeat(depth)}`)).toBe(
      "400 request body contains a NUL character",
    );
  });

  it("refuses lone surrogates in strings and keys, and takes pairs", () => {
    expect(refusalOf('{"name":"\\ud800"}')).toBe("400 request body contains a lone UTF-16 surrogate");
    expect(refusalOf('{"\\udc00":1}')).toBe("400 request body contains a lone UTF-16 surrogate");
    expect(refusalOf('{"name":"\\ude00\\ud83d"}')).toBe("400 request body contains a lone UTF-16 surrogate");
    expect(parseJsonBody('{"name":"\\ud83d\\ude00"}')).toEqual({ name: "\u{1f600}" });
  });

  it("takes an escaped backslash before u0000 as text", () => {
    expect(parseJsonBody('{"path":"C:\\\\u0000"}')).toEqual({ path: "C:\\u0000" });
  });
});

describe("findUnstorableText", () => {
  it("finds nothing in ordinary values", () => {
    expect(findUnstorableText({ a: ["x", 1, null, true, { b: "é" }] })).toBeUndefined();
  });
});
