import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type Answer, requestLineOf, serverErrorAnswer } from "../http/answer";

function writeUpgradeAnswer(
  socket: Duplex,
  { status, body, headers = {} }: Pick<Answer, "status" | "body" | "headers">,
) {
  const text = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json\r\n${extra}` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** Answers an HTTP upgrade request with an error status (and `headers`) instead of switching protocols. */
export function refuseUpgrade(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}) {
  writeUpgradeAnswer(socket, { status, body: { message }, headers });
}

/** Answers an upgrade the server could not serve: a 5xx with a request id, the cause logged under it. */
export function failUpgrade(socket: Duplex, request: IncomingMessage, fault: Parameters<typeof serverErrorAnswer>[1]) {
  writeUpgradeAnswer(socket, serverErrorAnswer(requestLineOf(request), fault));
}
