import http from "node:http";
import { performance } from "node:perf_hooks";
import { type Load, percentile } from "./kit";

/**
 * An open-loop load at a fixed rate: request i is due at start + i / rate, whether or not earlier
 * ones were answered, and its latency counts from that moment (as wrk2 does), so a stall of the
 * server shows in full rather than as fewer requests sent. The requests go over `connections`
 * keep-alive connections; one due while all are busy waits for the next free one, and that wait
 * is part of its latency.
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
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.round(seconds * rate);
  const latencies: number[] = [];
  let [sent, failed, ended] = [0, 0, 0];
  const start = performance.now();
  const finished = new Promise<void>((resolve) => {
    const record = (due: number, isAnswered: boolean) => {
      if (isAnswered) latencies.push(performance.now() - due);
      else failed += 1;
      ended += 1;
      if (ended === total) resolve();
    };
    const send = (due: number, body: string) => {
      const request = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          timeout: 10_000,
        },
        (response) => {
          response.resume();
          response.on("end", () => record(due, response.statusCode === 200));
        },
      );
      request.on("timeout", () => request.destroy(new Error("timed out")));
      request.on("error", () => record(due, false));
      request.end(body);
    };
    const sendDue = () => {
      const now = performance.now();
      while (sent < total && start + (sent * 1000) / rate <= now) {
        send(start + (sent * 1000) / rate, bodies[sent % bodies.length] as string);
        sent += 1;
      }
      if (sent < total) setTimeout(sendDue, 1);
    };
    sendDue();
  });
  await finished;
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  const rounded = (ms: number) => Math.round(ms * 10) / 10;
  return {
    rps: Math.round(latencies.length / elapsed),
    p50: rounded(percentile(latencies, 0.5)),
    p99: rounded(percentile(latencies, 0.99)),
    failed,
    answered: latencies.length,
  };
}
