import { once } from "node:events";
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

const chunk = "a".repeat(64 * 1024);

/**
 * A raw HTTP/1.1 client that sends a chunked POST body whatever comes back, as fetch does: the
 * server's end does not end its sending (half-open). It keeps every byte received and every
 * socket error, so a test sees a reset the way such a client meets it.
 */
export async function chunkedSender(baseUrl: string, target: string) {
  const url = new URL(baseUrl);
  const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
  await once(socket, "connect");
  const failures: Error[] = [];
  socket.on("error", (error) => failures.push(error));
  let received = "";
  socket.setEncoding("utf8");
  socket.on("data", (text: string) => {
    received += text;
  });
  socket.write(
    `POST ${target} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
      "transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
  );
  const sendChunk = () => socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  return {
    socket,
    failures,
    received: () => received,
    /** Sends 64 KiB chunks until more than `bytes` went. */
    send(bytes: number) {
      for (let sent = 0; sent <= bytes; sent += chunk.length) sendChunk();
    },
    /** Sends `count` more chunks 100 ms apart, as a client busy with its body does after the answer came. */
    async sendOn(count: number) {
      for (let sent = 0; sent < count; sent++) {
        await sleep(100);
        sendChunk();
      }
    },
    /** Ends the body and waits for the connection's close (a reset may have closed it already). */
    async finish() {
      socket.end("0\r\n\r\n");
      if (!socket.destroyed) await once(socket, "close");
    },
  };
}
