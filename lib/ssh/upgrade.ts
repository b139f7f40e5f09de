import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

/** Answers an HTTP upgrade request with an error status instead of switching protocols. */
export function refuseUpgrade(socket: Duplex, status: number, message: string) {
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
