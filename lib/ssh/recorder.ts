import { StringDecoder } from "node:string_decoder";
import type { Db } from "../db";
import { errorText } from "../errors";
import { log } from "../log";
import { appendFrames, type Frame, maxFramesPerBatch } from "../services/sessions";

const flushEveryMs = 500;
const flushAtFrames = 1_000;
// Past this many frames waiting for a slow database, the oldest are dropped: the session never waits.
const maxPendingFrames = 50_000;

/**
 * Records a session's terminal output as frames, written in batches (every 500 ms or 1,000
 * frames) with at most one write in flight. `write` never waits for the database.
 */
export class Recorder {
  private pending: Frame[] = [];
  private isWriting = false;
  private readonly decoder = new StringDecoder("utf8");
  private readonly timer: NodeJS.Timeout;
  private dropped = 0;

  constructor(
    private readonly db: Db,
    private readonly tenantId: string,
    private readonly sessionUid: string,
    private size: { width: number; height: number },
  ) {
    this.timer = setInterval(() => this.flush(), flushEveryMs);
    this.timer.unref();
  }

  resize(width: number, height: number) {
    this.size = { width, height };
  }

  write(chunk: Buffer) {
    const message = this.decoder.write(chunk);
    if (message === "") return;
    if (this.pending.length >= maxPendingFrames) {
      this.pending.shift();
      this.dropped += 1;
    }
    this.pending.push({ time: new Date(), message, ...this.size });
    if (this.pending.length >= flushAtFrames) this.flush();
  }

  private flush(): Promise<void> {
    if (this.isWriting || this.pending.length === 0) return Promise.resolve();
    const batch = this.pending.splice(0, Math.min(maxFramesPerBatch, flushAtFrames));
    this.isWriting = true;
    return appendFrames(this.db, this.tenantId, this.sessionUid, batch)
      .then(() => undefined)
      .catch((error: unknown) =>
        log.warn("recording frames failed", {
          session: this.sessionUid,
          frames: batch.length,
          error: errorText(error),
        }),
      )
      .finally(() => {
        this.isWriting = false;
      });
  }

  /** Writes what is left; called once, when the session ends. */
  async close() {
    clearInterval(this.timer);
    const rest = this.decoder.end();
    if (rest !== "") this.pending.push({ time: new Date(), message: rest, ...this.size });
    while (this.isWriting) await new Promise((resolve) => setTimeout(resolve, 20));
    while (this.pending.length > 0) await this.flush();
    if (this.dropped > 0) log.warn("recording dropped frames", { session: this.sessionUid, dropped: this.dropped });
  }
}
