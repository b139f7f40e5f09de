import { describe, expect, it } from "vitest";
import { setInCache } from "./process-state";

describe("setInCache", () => {
  it("forgets every entry when a new key finds the cache full, and replaces a kept key without forgetting", () => {
    const cache = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    setInCache(cache, "b", 3, 2);
    expect([...cache]).toEqual([
      ["a", 1],
      ["b", 3],
    ]);
    setInCache(cache, "c", 4, 2);
    expect([...cache]).toEqual([["c", 4]]);
    setInCache(cache, "d", 5, 2);
    expect([...cache]).toEqual([
      ["c", 4],
      ["d", 5],
    ]);
  });
});
