import type { Socket } from "node:net";
import { Duplex } from "node:stream";
import ssh2, { type Client, type PseudoTtyInfo, type ServerChannel, type Session } from "ssh2";
import { type ContainerTarget, type EngineContainerHandle, openContainerHandle } from "../services/connectors";
import { Refusal } from "../services/ssh-access";
import { hostKey } from "./host-key";

/**
 * Two ends of an in-process byte stream: what one writes, the other reads. SSH's own channel
 * windows bound what waits in between.
 */
function streamPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const end = (other: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk, _encoding, callback) {
        other().push(chunk);
        callback();
      },
      final(callback) {
        other().push(null);
        callback();
      },
      destroy(error, callback) {
        other().destroy();
        callback(error);
      },
    });
  ends.push(
    end(() => ends[1] as Duplex),
    end(() => ends[0] as Duplex),
  );
  return [ends[0] as Duplex, ends[1] as Duplex];
}

// Where the login shell or sftp-server of the container's image usually is.
const sftpServers = [
  "/usr/lib/openssh/sftp-server",
  "/usr/libexec/openssh/sftp-server",
  "/usr/lib/ssh/sftp-server",
  "/usr/libexec/sftp-server",
  "/usr/lib/sftp-server",
];
const sftpCommand = [
  "/bin/sh",
  "-c",
  `for s in ${sftpServers.join(" ")}; do [ -x "$s" ] && exec "$s"; done; echo "no sftp-server in the container" >&2; exit 127`,
];

/**
 * One `session` channel of the user, run in the container through the engine's exec API: the
 * shell (`/bin/sh`), a command (`/bin/sh -c`), or sftp-server; with a terminal when the user asked
 * for one (resized with the window), the exit status at the end, and the user's EOF closing stdin.
 */
function serveSession(session: Session, container: EngineContainerHandle, user: string) {
  let pty: (PseudoTtyInfo & { term?: string }) | undefined;
  const env: string[] = [];
  let resize: ((rows: number, cols: number) => Promise<void>) | undefined;
  session.on("pty", (accept, _reject, info) => {
    pty = info;
    accept?.();
  });
  // The relay passes on only the locale.
  session.on("env", (accept, _reject, info) => {
    env.push(`${info.key}=${info.val}`);
    accept?.();
  });
  session.on("window-change", (accept, _reject, info) => {
    if (pty) Object.assign(pty, { rows: info.rows, cols: info.cols });
    void resize?.(info.rows, info.cols);
    accept?.();
  });
  const run = (channel: ServerChannel | undefined, command: string[], withTerminal: boolean) => {
    if (!channel) return;
    const terminal = withTerminal ? pty : undefined;
    container
      .exec({
        command,
        user,
        env: [...env, ...(terminal ? [`TERM=${terminal.term ?? "xterm"}`] : [])],
        size: terminal ? { rows: terminal.rows, cols: terminal.cols } : undefined,
        stdin: channel,
        stdout: channel,
        stderr: channel.stderr,
      })
      .then((started) => {
        resize = started.resize;
        return started.exitCode;
      })
      .then(
        (code) => channel.exit(code),
        (error: Error) => {
          channel.stderr.write(`the container refused the request: ${error.message}\r\n`);
          channel.exit(126);
        },
      )
      .finally(() => channel.end());
  };
  session.on("shell", (accept) => run(accept(), ["/bin/sh"], true));
  session.on("exec", (accept, _reject, info) => run(accept(), ["/bin/sh", "-c", info.command], true));
  session.on("subsystem", (accept, reject, info) => {
    if (info.name !== "sftp") return reject();
    run(accept(), sftpCommand, false);
  });
}

/**
 * The container as a device link: an SSH connection made in process, whose server side runs each
 * channel in the container through its engine, so the gateway relays, records and closes it as
 * it does a device's. The gateway has checked the user, the key and the firewall before; this
 * connection only carries what they allowed. Forwarding is refused (no channel but `session`).
 */
export async function dialContainer(target: ContainerTarget, user: string): Promise<Client> {
  const container = openContainerHandle(target);
  const [serverEnd, clientEnd] = streamPair();
  const server = new ssh2.Server({ hostKeys: [hostKey()] }, (connection) => {
    connection.on("authentication", (context) => context.accept());
    connection.on("ready", () => connection.on("session", (accept) => serveSession(accept(), container, user)));
    connection.on("error", () => connection.end());
  });
  // ssh2 reads a socket's address fields only to report them: an in-process stream has none.
  server.injectSocket(serverEnd as Socket);
  const client = new ssh2.Client();
  return new Promise((resolve, reject) => {
    client.once("ready", () => {
      client.removeAllListeners("error");
      client.on("error", () => client.end());
      resolve(client);
    });
    client.once("error", (error) => reject(new Refusal(`the container link failed: ${error.message}`)));
    client.connect({ sock: clientEnd, username: user });
  });
}
