import { describe, expect, it } from "vitest";
import { terminalGreeting, terminalSafe } from "./text";

describe("terminalSafe", () => {
  it("keeps printable text, newlines and tabs", () => {
    expect(terminalSafe("Grüße ✓\n\tline two")).toBe("Grüße ✓\n\tline two");
  });

  it("drops C0, DEL and C1 control characters", () => {
    expect(terminalSafe("\u001b]52;c;ZXZpbA==\u0007a\u0000b\u007fc\u0085d\u009b2Je\r")).toBe("]52;c;ZXZpbA==abcd2Je");
  });
});

describe("terminalGreeting", () => {
  it("ends every line with CR LF, also for an announcement stored with raw escapes", () => {
    expect(terminalGreeting("Welcome\r\nto \u001b[2Jthe lab\n")).toBe("Welcome\r\nto [2Jthe lab\r\n\r\n");
  });

  it("is nothing without an announcement", () => {
    expect(terminalGreeting("")).toBe("");
  });
});
