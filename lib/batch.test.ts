import { describe, expect, it } from "vitest";
import { Batcher, inChunks } from "./batch";

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

describe("inChunks", () => {
  it("runs the chunks in order, each after the previous one has finished", async () => {
    const seen: string[] = [];
    await inChunks([1, 2, 3, 4, 5], 2, async (chunk) => {
      seen.push(`start ${chunk.join(",")}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(`end ${chunk.join(",")}`);
    });
    expect(seen).toEqual(["start 1,2", "end 1,2", "start 3,4", "end 3,4", "start 5", "end 5"]);
  });

  it("lets what became ready meanwhile run between chunks", async () => {
    const seen: string[] = [];
    await inChunks([1, 2], 1, async (chunk) => {
      seen.push(`chunk ${chunk[0]}`);
      if (chunk[0] === 1) setImmediate(() => seen.push("ready"));
    });
    expect(seen).toEqual(["chunk 1", "ready", "chunk 2"]);
  });
});
