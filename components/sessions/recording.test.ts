import { describe, expect, it } from "vitest";
import { advance, CastReader, clock, idleGaps, isOutput, TextIndex } from "./recording";

describe("CastReader", () => {
  it("reads the header, output and resizes, with lines cut anywhere between chunks", () => {
    const file = [
      JSON.stringify({ version: 2, width: 100, height: 30, timestamp: 1700000000 }),
      JSON.stringify([0.5, "o", "hello\r\n"]),
      JSON.stringify([1, "r", "120x40"]),
      JSON.stringify([1.25, "i", "typed input is not shown"]),
      JSON.stringify([2, "o", "bye"]),
      "",
    ].join("\n");
    for (const cut of [1, 7, 40, file.length - 3]) {
      const reader = new CastReader();
      const events = [...reader.push(file.slice(0, cut)), ...reader.push(file.slice(cut))];
      expect(reader.header).toEqual({ width: 100, height: 30, timestamp: 1700000000 });
      expect(events).toEqual([
        { time: 0.5, text: "hello\r\n" },
        { time: 1, cols: 120, rows: 40 },
        { time: 2, text: "bye" },
      ]);
      expect(events.filter(isOutput)).toHaveLength(2);
    }
  });
});

describe("TextIndex", () => {
  it("finds typed text without its colours, at the time its line was complete", () => {
    const index = new TextIndex();
    index.add(1, "\u001b[1;32muser@box\u001b[0m:~$ ");
    index.add(2, "e");
    index.add(2.5, "cho neex\bdle-123");
    index.add(3, "\r\n");
    index.add(3.1, "\u001b]0;title\u0007needle-123\r\n");
    index.add(9, "$ partial NEEDLE");
    expect(index.search("Needle-123")).toEqual([
      { time: 3, text: "user@box:~$ echo needle-123" },
      { time: 3.1, text: "needle-123" },
    ]);
    expect(index.search("needle")).toHaveLength(3);
    expect(index.search("needle").at(-1)).toEqual({ time: 9, text: "$ partial NEEDLE" });
    expect(index.search("  ")).toEqual([]);
    expect(index.search("needle", 1)).toHaveLength(1);
  });
});

describe("idleGaps and advance", () => {
  const events = [
    { time: 0.5, text: "a" },
    { time: 1, text: "b" },
    { time: 30, text: "c" },
    { time: 31, cols: 80, rows: 24 },
  ];

  it("marks the silences over the threshold", () => {
    expect(idleGaps(events, 2)).toEqual([{ from: 1, to: 30 }]);
    expect(idleGaps(events, 0.4)).toEqual([
      { from: 0, to: 0.5 },
      { from: 0.5, to: 1 },
      { from: 1, to: 30 },
      { from: 30, to: 31 },
    ]);
  });

  it("moves at the speed, and cuts a long silence to the idle limit", () => {
    expect(advance(1, 0.1, 2)).toBeCloseTo(1.2);
    expect(advance(1, 0.1, 2, 30)).toBeCloseTo(1.2);
    expect(advance(1, 0.1, 2, 30, 2)).toBeCloseTo(28.2);
    expect(advance(28.2, 0.1, 2, 30, 2)).toBeCloseTo(28.4);
    expect(advance(29.5, 0.5, 1, 30, 2)).toBeCloseTo(30);
  });
});

describe("clock", () => {
  it("reads minutes and seconds, and hours when there are some", () => {
    expect(clock(0)).toBe("0:00");
    expect(clock(65.9)).toBe("1:05");
    expect(clock(3723)).toBe("1:02:03");
    expect(clock(-4)).toBe("0:00");
  });
});
