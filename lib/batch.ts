/**
 * Lets the event loop run what is ready (I/O included) before going on: what arrives meanwhile
 * gets its turn, or joins the next batch.
 */
export const nextStep = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `work` on `items` `size` at a time, one after the other, with a step of the event loop
 * between: work done for a whole fleet at once, in statements short enough that the embedded
 * database, which runs one statement at a time, serves the requests' statements between them.
 */
export async function inChunks<Item>(items: Item[], size: number, work: (chunk: Item[]) => Promise<void>) {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await nextStep();
    await work(items.slice(start, start + size));
  }
}

/**
 * Runs work submitted one item at a time in batches, one batch at a time: everything submitted
 * while a batch runs goes into the next one, and each item's promise settles with its batch. With
 * no backlog an item runs at once (after the current step, so that what the same step submits
 * joins it): batching adds no delay, only fewer statements under load. For database work done
 * per connection of a fleet (tunnels coming and going), where the embedded database pays a fixed
 * cost per statement. At most `maxBatch` items go into one batch: the embedded database runs one
 * statement at a time, and a fleet's worth in one statement would keep every request waiting.
 */
export class Batcher<Item, Result> {
  private queue: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;
  private running: Promise<void> | undefined;

  /** `run` answers the batch's results in the items' order. */
  constructor(
    private readonly run: (items: Item[]) => Promise<Result[]>,
    private readonly maxBatch = Number.POSITIVE_INFINITY,
  ) {}

  /** Items queued or in the batch being run. */
  get backlog(): number {
    return this.queue.length + this.inFlight;
  }

  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.running ??= this.drain();
    });
  }

  /** Resolves once everything submitted so far has run. */
  async settled() {
    await this.running;
  }

  private async drain() {
    try {
      while (this.queue.length > 0) {
        // Let what arrived in the same step join.
        await nextStep();
        const batch = this.queue.splice(0, this.maxBatch);
        this.inFlight = batch.length;
        try {
          const results = await this.run(batch.map((entry) => entry.item));
          for (const [index, entry] of batch.entries()) entry.resolve(results[index] as Result);
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        } finally {
          this.inFlight = 0;
        }
      }
    } finally {
      // In the same step as the loop's last look at the queue: nothing submitted can be left behind.
      this.running = undefined;
    }
  }
}
