import { describe, expect, it } from "vitest";
import { Batcher } from "./batch";

describe("Batcher", () => {
  it("runs what is submitted in one step as one batch, and what arrives while it runs as the next", async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const batcher = new Batcher(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return items.map((item) => item * 10);
    });
    const first = [1, 2, 3].map((item) => batcher.submit(item));
    await new Promise((resolve) => setImmediate(resolve));
    const later = [4, 5].map((item) => batcher.submit(item));
    expect(batcher.backlog).toBe(5);
    release();
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(batcher.backlog).toBe(0);
  });

  it("puts at most maxBatch items in a batch, in the order they came", async () => {
    const batches: number[][] = [];
    const batcher = new Batcher(async (items: number[]) => {
      batches.push(items);
      return items;
    }, 2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((item) => batcher.submit(item)))).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("rejects the items of a failed batch only, and goes on with the next", async () => {
    const batcher = new Batcher(async (items: string[]) => {
      if (items.includes("bad")) throw new Error("refused");
      return items;
    });
    const failed = [batcher.submit("a"), batcher.submit("bad")];
    await expect(Promise.all(failed)).rejects.toThrow("refused");
    await Promise.allSettled(failed);
    expect(await batcher.submit("c")).toBe("c");
    await batcher.settled();
  });
});
