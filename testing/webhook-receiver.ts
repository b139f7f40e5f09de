import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** A request a receiver got: the headers (lower-case names) and the body as sent. */
export type ReceivedHook = { headers: Record<string, string>; body: string; path: string };

/** How the receiver answers one request: a status and body, or `hold` to keep it open without an answer. */
export type ReceiverAnswer = { status: number; body?: string } | "hold";

export type WebhookReceiver = {
  url: string;
  received: ReceivedHook[];
  /** Answers the next requests with these, in order; then 200 `ok`. */
  answerNext: (...answers: ReceiverAnswer[]) => void;
  /** The requests whose body has this `type`. */
  ofType: (type: string) => ReceivedHook[];
  close: () => Promise<void>;
};

/** A real HTTP server on the loopback that records every request it gets, as a webhook receiver does. */
export async function startWebhookReceiver(host = "127.0.0.1"): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const answers: ReceiverAnswer[] = [];
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(",") : (value ?? ""),
        ]),
      );
      received.push({ headers, body: Buffer.concat(chunks).toString("utf8"), path: request.url ?? "" });
      const answer = answers.shift() ?? { status: 200, body: "ok" };
      if (answer === "hold") {
        held.add(response);
        return;
      }
      response.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    received,
    answerNext: (...next) => answers.push(...next),
    ofType: (type) => received.filter((hook) => (JSON.parse(hook.body) as { type: string }).type === type),
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The check docs/webhooks.md tells receivers to make, with the Standard Webhooks library: the
 * signature over id, timestamp and body, and the timestamp within 5 minutes. Answers the parsed
 * body, or throws.
 */
export const verifyHook = (secret: string, hook: ReceivedHook) => new Webhook(secret).verify(hook.body, hook.headers);
