import type { AddressInfo } from "node:net";
import ssh2, { type Connection } from "ssh2";
import { afterEach, expect, it } from "vitest";
import { ed25519KeyPair } from "@/testing/ssh-keys";

// ssh2 is patched (patches/) to drop a key exchange's X25519 key pair once the exchange is done
// (the exchange object stays with its connection): a connection must still re-key, again and again.
let server: ssh2.Server | undefined;
afterEach(() => server?.close());

it("re-keys a connection twice after its key exchange, and serves it after each", async () => {
  let serverSide: Connection | undefined;
  const sshServer = new ssh2.Server({ hostKeys: [ed25519KeyPair().private] }, (connection) => {
    serverSide = connection;
    connection.on("authentication", (context) => context.accept());
    connection.on("ready", () =>
      connection.on("session", (accept) =>
        accept().on("exec", (acceptExec, _reject, info) => {
          const channel = acceptExec();
          channel.end(`ran ${info.command}`);
          channel.exit(0);
        }),
      ),
    );
  });
  server = sshServer;
  const port = await new Promise<number>((resolve) =>
    sshServer.listen(0, "127.0.0.1", () => resolve((sshServer.address() as AddressInfo).port)),
  );
  const client = new ssh2.Client();
  await new Promise<void>((resolve, reject) => {
    client.once("ready", () => resolve()).once("error", reject);
    client.connect({ host: "127.0.0.1", port, username: "device", password: "unused" });
  });
  const run = (command: string) =>
    new Promise<string>((resolve, reject) =>
      client.exec(command, (error, channel) => {
        if (error) return reject(error);
        let output = "";
        channel.on("data", (chunk: Buffer) => {
          output += chunk;
        });
        channel.on("close", () => resolve(output));
      }),
    );
  // Its callback runs once the new keys are in use.
  const rekey = () => new Promise<void>((resolve) => serverSide?.rekey(() => resolve()));
  try {
    expect(await run("first")).toBe("ran first");
    await rekey();
    expect(await run("second")).toBe("ran second");
    await rekey();
    expect(await run("third")).toBe("ran third");
  } finally {
    client.end();
  }
});
