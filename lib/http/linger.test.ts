import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { chunkedSender } from "@/testing/chunked-sender";
import { lingerMs, lingerOnEarlyClose } from "./linger";

const megabyte = 1024 * 1024;

/** Answers 413 once a body passes 1 MB, without reading the rest; a short body is read and answered 200. */
async function startServer(): Promise<{ server: Server; port: number; serverSockets: Socket[] }> {
  const server = createServer((request, response) => {
    let read = 0;
    request.on("data", (data: Buffer) => {
      read += data.length;
      if (read <= megabyte || response.headersSent) return;
      request.pause();
      response.writeHead(413, { connection: "close", "content-type": "application/json" });
      response.end('{"message":"too large"}');
    });
    request.on("end", () => {
      if (!response.headersSent) response.end("{}");
    });
  });
  lingerOnEarlyClose(server);
  const serverSockets: Socket[] = [];
  server.on("connection", (socket) => serverSockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  return { server, port: address.port, serverSockets };
}

let running: Server | undefined;
afterEach(() => {
  running?.closeAllConnections();
  running?.close();
});

describe("lingerOnEarlyClose", () => {
  it("reads on what the client sends after an early answer, until the client ends", async () => {
    const { server, port } = await startServer();
    running = server;
    const client = await chunkedSender(`http://127.0.0.1:${port}`, "/");
    client.send(megabyte);
    await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 413 /));
    // A client busy sending its body sends on after the answer came: the server still reads it.
    await client.sendOn(3);
    await client.finish();
    expect(client.failures).toEqual([]);
    expect(client.received()).toContain('{"message":"too large"}');
  });

  it("closes a lingering connection after lingerMs when the client neither sends nor ends", async () => {
    const { server, port, serverSockets } = await startServer();
    running = server;
    const client = await chunkedSender(`http://127.0.0.1:${port}`, "/");
    client.send(megabyte);
    await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 413 /));
    const answered = Date.now();
    const [serverSocket] = serverSockets;
    if (!serverSocket) throw new Error("no connection");
    if (!serverSocket.destroyed) await once(serverSocket, "close");
    expect(Date.now() - answered).toBeGreaterThanOrEqual(lingerMs - 200);
    client.socket.destroy();
  });

  it("closes at once after a request it read whole", async () => {
    const { server, port, serverSockets } = await startServer();
    running = server;
    const client = await chunkedSender(`http://127.0.0.1:${port}`, "/");
    client.socket.write("0\r\n\r\n");
    await vi.waitFor(() => expect(client.received()).toMatch(/^HTTP\/1\.1 200 /));
    const answered = Date.now();
    const [serverSocket] = serverSockets;
    if (serverSocket && !serverSocket.destroyed) await once(serverSocket, "close");
    expect(Date.now() - answered).toBeLessThan(lingerMs / 2);
    client.socket.destroy();
  });
});
