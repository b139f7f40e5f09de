/**
 * A recording as the player holds it: the asciicast v2 file of `GET /api/sessions/{uid}/cast`,
 * parsed as it streams in, and a text index of its output for the search. Pure logic, no DOM.
 */

export type CastHeader = { width: number; height: number; timestamp?: number };

/** Output (`text`) or a terminal size change (`cols`, `rows`), at `time` seconds from the start. */
export type CastEvent = { time: number; text: string } | { time: number; cols: number; rows: number };

export const isOutput = (event: CastEvent): event is { time: number; text: string } => "text" in event;

/**
 * Reads the asciicast lines from chunks of text as they arrive: a line cut between two chunks
 * waits for its end. The first line is the header.
 */
export class CastReader {
  header?: CastHeader;
  private rest = "";

  push(chunk: string): CastEvent[] {
    const lines = (this.rest + chunk).split("\n");
    this.rest = lines.pop() ?? "";
    const events: CastEvent[] = [];
    for (const line of lines) {
      if (!line.trim()) continue;
      const parsed: unknown = JSON.parse(line);
      if (!this.header) {
        const header = parsed as CastHeader;
        this.header = { width: header.width, height: header.height, timestamp: header.timestamp };
        continue;
      }
      const [time, kind, data] = parsed as [number, string, string];
      if (kind === "o") events.push({ time, text: data });
      else if (kind === "r") {
        const [cols, rows] = data.split("x").map(Number);
        if (cols && rows) events.push({ time, cols, rows });
      }
    }
    return events;
  }
}

// Terminal control sequences carry no text a person would search for: CSI (colours, cursor
// moves), OSC (window titles) and the two-character escapes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the escape sequences being removed
const controlSequence = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export type TextLine = { time: number; text: string };

/**
 * The recording's output as lines of plain text, each with the time it was complete on the
 * screen (its line feed arrived), so a hit seeks to a moment where the text is visible.
 */
export class TextIndex {
  readonly lines: TextLine[] = [];
  private current = "";
  private currentTime = 0;

  add(time: number, text: string) {
    for (const char of text.replace(controlSequence, "")) {
      if (char === "\n") {
        this.lines.push({ time, text: this.current });
        this.current = "";
      } else if (char === "\b") this.current = this.current.slice(0, -1);
      else if (char >= " " || char === "\t") this.current += char;
    }
    this.currentTime = time;
  }

  /** Lines holding `query` (case ignored), the unfinished last line too, at most `limit`. */
  search(query: string, limit = 200): TextLine[] {
    const needle = query.trim().toLowerCase();
    if (!needle) return [];
    const lines = this.current ? [...this.lines, { time: this.currentTime, text: this.current }] : this.lines;
    const hits: TextLine[] = [];
    for (const line of lines) {
      if (line.text.toLowerCase().includes(needle)) hits.push(line);
      if (hits.length >= limit) break;
    }
    return hits;
  }
}

/** Output silences longer than `threshold` seconds: where skipping idle time saves the viewer's time. */
export function idleGaps(events: CastEvent[], threshold: number): { from: number; to: number }[] {
  const gaps: { from: number; to: number }[] = [];
  let previous = 0;
  for (const event of events) {
    if (event.time - previous > threshold) gaps.push({ from: previous, to: event.time });
    previous = event.time;
  }
  return gaps;
}

/**
 * Where the play head is after `elapsed` seconds of wall time at `speed` from `position`. With
 * `idleLimit`, a silence before the next event (`next`) lasts at most that long.
 */
export function advance(position: number, elapsed: number, speed: number, next?: number, idleLimit?: number) {
  let target = position + elapsed * speed;
  if (idleLimit !== undefined && next !== undefined && next - position > idleLimit)
    target = Math.max(target, next - idleLimit + elapsed * speed);
  return target;
}

/** `1:02:03` or `4:05`. */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}
