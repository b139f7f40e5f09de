import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

/** How long a connection closed before its request's body was read goes on reading it. */
export const lingerMs = 2_000;

type ResponseFinished = { request: IncomingMessage; socket: Socket; server: Server };

/**
 * Lingering close, as nginx and Apache do it. An answer sent before the request's body was read
 * (a 413 over 1 MB, a refusal) on a connection that then closes: Node closes the socket at once,
 * the kernel answers the body still arriving with a reset, and a client still sending it often
 * loses the answer too (its write fails before it reads). Such a connection sends its answer and
 * its end, and Node's parser reads and drops the rest of the body, until the client closes (the
 * socket then ends itself) or `lingerMs` pass. Node tells of each finished answer on this channel
 * before it closes the socket with `destroySoon`.
 */
export function lingerOnEarlyClose(server: Server): void {
  subscribe("http.server.response.finish", (message) => {
    const { request, socket, server: finishedOn } = message as ResponseFinished;
    if (finishedOn !== server || request.complete || socket.destroyed) return;
    socket.destroySoon = () => linger(socket);
  });
}

function linger(socket: Socket): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  socket.once("close", () => clearTimeout(timer));
}
