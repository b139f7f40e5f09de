import net from "node:net";
import { performance } from "node:perf_hooks";
import { type Load, percentile } from "./kit";

/** A request still unanswered after this long counts as failed, and its connection is opened again. */
const timeoutMs = 10_000;

const headerEnd = Buffer.from("\r\n\r\n");
/** The end of a chunked body: its last, empty chunk. */
const lastChunk = Buffer.from("\r\n0\r\n\r\n");

/**
 * An open-loop load at a fixed rate: request i is due at start + i / rate, whether or not earlier
 * ones were answered, and its latency counts from that moment (as wrk2 does), so a stall of the
 * server shows in full rather than as fewer requests sent. The requests go over `connections`
 * keep-alive connections; one due while all are busy waits for the next free one, and that wait
 * is part of its latency.
 *
 * The generator shares the machine with the server it measures, and its own pauses count as the
 * server's latency: it writes prepared request bytes to plain sockets and reads only each
 * answer's status and length. Node's HTTP client, which it used before, spent several times the
 * CPU per request, and its garbage collection and the scheduler's delays in reaching it showed as
 * tails of 15-55 ms even against a plain Node server answering a tenth of what it can
 * (docs/performance.md).
 *
 * autocannon's `overallRate` is no such load: it gives each connection a budget per second, which
 * it spends sending back to back from the top of the second, so "3,300/s" was a burst at full
 * speed followed by a pause, every second.
 */
export async function pacedLoad(
  url: string,
  bodies: string[],
  { seconds, connections, rate }: { seconds: number; connections: number; rate: number },
): Promise<Load> {
  const target = new URL(url);
  const requests = bodies.map((body) =>
    Buffer.from(
      `POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    ),
  );
  const total = Math.round(seconds * rate);
  const latencies: number[] = [];
  let [sent, failed, ended] = [0, 0, 0];
  const start = performance.now();
  const dueOf = (index: number) => start + (index * 1000) / rate;
  const idle: PacedConnection[] = [];
  /** Requests due while every connection was busy, by index. */
  const waiting: number[] = [];
  const open = new Set<PacedConnection>();
  let finish = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const record = (due: number, isAnswered: boolean) => {
    if (isAnswered) latencies.push(performance.now() - due);
    else failed += 1;
    ended += 1;
    if (ended === total) finish();
  };
  const sendOrKeep = (connection: PacedConnection) => {
    const next = waiting.shift();
    if (next === undefined) idle.push(connection);
    else connection.send(dueOf(next), requests[next % requests.length] as Buffer);
  };
  const connect = (): PacedConnection => {
    const connection = new PacedConnection(Number(target.port || 80), target.hostname, {
      answered: (due, isAnswered, isKept) => {
        record(due, isAnswered);
        if (isKept) sendOrKeep(connection);
      },
      // Closed by the server (after its answer, or with a request in flight, which failed) or
      // never opened: another takes its place.
      closed: (due, wasOpen) => {
        open.delete(connection);
        const at = idle.indexOf(connection);
        if (at >= 0) idle.splice(at, 1);
        if (due !== undefined) record(due, false);
        if (ended < total) setTimeout(() => sendOrKeep(connect()), wasOpen ? 0 : 50);
      },
    });
    open.add(connection);
    return connection;
  };
  for (let index = 0; index < connections; index++) idle.push(connect());
  const sendDue = () => {
    const now = performance.now();
    while (sent < total && dueOf(sent) <= now) {
      const connection = idle.pop();
      if (connection) connection.send(dueOf(sent), requests[sent % requests.length] as Buffer);
      else waiting.push(sent);
      sent += 1;
    }
    if (sent < total) setTimeout(sendDue, 1);
  };
  // A request unanswered, or still waiting for a connection, after timeoutMs has failed.
  const expiry = setInterval(() => {
    const limit = performance.now() - timeoutMs;
    for (const connection of open) connection.cutIfDueBefore(limit);
    while (waiting.length > 0 && dueOf(waiting[0] as number) < limit) {
      waiting.shift();
      record(0, false);
    }
  }, 1000);
  sendDue();
  await finished;
  clearInterval(expiry);
  for (const connection of open) connection.close();
  const elapsed = (performance.now() - start) / 1000;
  const rounded = (ms: number) => Math.round(ms * 10) / 10;
  return {
    rps: Math.round(latencies.length / elapsed),
    p50: rounded(percentile(latencies, 0.5)),
    p99: rounded(percentile(latencies, 0.99)),
    failed,
    answered: latencies.length,
  };
}

/**
 * One keep-alive connection with at most one request in flight. Of each answer it reads the status
 * line and `Content-Length`, or finds the end of a chunked body, and nothing else.
 */
class PacedConnection {
  private readonly socket: net.Socket;
  private buffered: Buffer = Buffer.alloc(0);
  /** When the request in flight was due, if one is. */
  private due: number | undefined;

  constructor(
    port: number,
    host: string,
    private readonly on: {
      /** `isKept`: the server keeps the connection open for the next request. */
      answered: (due: number, isAnswered: boolean, isKept: boolean) => void;
      /** `due`: of the request it failed, if one was in flight; `wasOpen`: it had connected. */
      closed: (due: number | undefined, wasOpen: boolean) => void;
    },
  ) {
    this.socket = net.connect({ port, host, noDelay: true });
    this.socket.on("data", (chunk: Buffer) => this.read(chunk));
    this.socket.on("error", () => undefined);
    let wasOpen = false;
    this.socket.on("connect", () => {
      wasOpen = true;
    });
    this.socket.on("close", () => {
      const { due } = this;
      this.due = undefined;
      this.on.closed(due, wasOpen);
    });
  }

  send(due: number, request: Buffer) {
    this.due = due;
    this.socket.write(request);
  }

  cutIfDueBefore(limit: number) {
    if (this.due !== undefined && this.due < limit) this.socket.destroy();
  }

  close() {
    this.socket.removeAllListeners("close");
    this.socket.destroy();
  }

  private read(chunk: Buffer) {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const end = this.buffered.indexOf(headerEnd);
    if (end < 0) return;
    const headers = this.buffered.toString("latin1", 0, end);
    const bodyStart = end + headerEnd.length;
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(headers);
    const answerEnd = length
      ? bodyStart + Number(length[1])
      : this.buffered.indexOf(lastChunk, bodyStart - 2) + lastChunk.length;
    if (answerEnd < bodyStart || this.buffered.length < answerEnd) return;
    this.buffered = this.buffered.subarray(answerEnd);
    const { due } = this;
    this.due = undefined;
    if (due !== undefined) {
      this.on.answered(due, headers.startsWith("HTTP/1.1 200"), !/\r\nconnection:\s*close/i.test(headers));
    }
  }
}
