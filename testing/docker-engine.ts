import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import tls from "node:tls";
import { outputOf, runToExit } from "./processes";
import { freePort } from "./server";
import { waitFor } from "./wait";

const busybox = "/bin/busybox";
/** The image every test container runs: busybox's shell and tools, imported from a root filesystem. */
export const testImage = "busybox-root:test";

export type TlsMaterial = { ca: string; cert: string; key: string };

/** What a test process needs of the run's engine (global-setup.ts provides it). */
export type EngineAddress = {
  /** The engine's unix socket, for the docker CLI. */
  socket: string;
  /** The engine's plain HTTP listener on 127.0.0.1. */
  port: number;
  /** A TLS listener in front of the same engine that asks for a client certificate signed by `client.ca`. */
  tlsPort: number;
  /** What a connector's `tls` holds to reach `tlsPort`. */
  client: TlsMaterial;
  /** TLS material of another CA altogether: it trusts not the engine, nor the engine it. */
  strangerClient: TlsMaterial;
};

export type DockerEngine = EngineAddress & {
  /** Runs the docker CLI against the engine; fails on a non-zero exit. */
  docker: (...args: string[]) => Promise<string>;
  /** Starts a container of the test image that stays up, named `name`; answers its id. */
  runContainer: (name: string) => Promise<string>;
  /** Stops the daemon (its listeners close); `start()` brings it back on the same data. */
  stopDaemon: () => Promise<void>;
  startDaemon: () => Promise<void>;
  stop: () => Promise<void>;
};

/** The docker CLI against the engine at `socket`; fails on a non-zero exit. */
export const dockerCli =
  (socket: string) =>
  async (...command: string[]) => {
    const run = await runToExit("docker", ["-H", `unix://${socket}`, ...command], { seconds: 120 });
    if (run.code !== 0) throw new Error(`docker ${command.join(" ")} failed: ${run.stderr}`);
    return run.stdout.trim();
  };

/** Starts a container of the test image that stays up, named `name`; answers its id. */
export const runTestContainer = (docker: DockerEngine["docker"], name: string) =>
  docker("run", "-d", "--network", "none", "--name", name, testImage, "/bin/sleep", "86400");

const openssl = async (dir: string, ...args: string[]) => {
  const run = await runToExit("openssl", args, { seconds: 30, cwd: dir });
  if (run.code !== 0) throw new Error(`openssl ${args.join(" ")} failed: ${run.stderr}`);
};

/** A CA and a certificate it signs (server or client), as PEM text. */
async function certificates(dir: string, prefix: string) {
  const file = (name: string) => path.join(dir, `${prefix}-${name}`);
  await openssl(
    dir,
    "req",
    ...["-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"],
    ...["-subj", `/CN=${prefix} test CA`, "-keyout", file("ca.key"), "-out", file("ca.pem")],
  );
  const sign = async (name: string, extensions: string) => {
    writeFileSync(file(`${name}.ext`), extensions);
    await openssl(
      dir,
      "req",
      ...["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-subj", `/CN=${name}`, "-keyout", file(`${name}.key`), "-out", file(`${name}.csr`)],
    );
    await openssl(
      dir,
      "x509",
      ...["-req", "-in", file(`${name}.csr`), "-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-CAcreateserial"],
      ...["-days", "2", "-extfile", file(`${name}.ext`), "-out", file(`${name}.pem`)],
    );
    return { cert: readFileSync(file(`${name}.pem`), "utf8"), key: readFileSync(file(`${name}.key`), "utf8") };
  };
  const server = await sign("server", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  const client = await sign("client", "extendedKeyUsage=clientAuth\n");
  return { ca: readFileSync(file("ca.pem"), "utf8"), server, client };
}

/** OpenSSH's sftp-server, which sftp and scp (over sftp) run in a container that has it. */
const sftpServer = "/usr/lib/openssh/sftp-server";

/** The shared libraries a program links, and its loader, as `ldd` lists them. */
async function sharedLibraries(program: string): Promise<string[]> {
  const { stdout } = await runToExit("ldd", [program], { seconds: 60 });
  return [...stdout.matchAll(/(?:=>\s+|^\s*)(\/\S+)\s+\(/gm)].map((match) => match[1] ?? "");
}

/** Copies a host file into the root filesystem at the same path (its target, when a link). */
function copyInto(root: string, file: string) {
  const destination = path.join(root, file);
  mkdirSync(path.dirname(destination), { recursive: true });
  writeFileSync(destination, readFileSync(realpathSync(file)), { mode: 0o755 });
}

/**
 * The test image: a root filesystem of Debian's busybox-static (a shell and the usual tools) and
 * OpenSSH's sftp-server with the libraries it links.
 */
async function importTestImage(dir: string, docker: DockerEngine["docker"]) {
  const root = path.join(dir, "rootfs");
  for (const sub of ["bin", "etc", "tmp", "root"]) mkdirSync(path.join(root, sub), { recursive: true });
  writeFileSync(path.join(root, "bin/busybox"), readFileSync(busybox), { mode: 0o755 });
  for (const file of [sftpServer, ...(await sharedLibraries(sftpServer))]) copyInto(root, file);
  const applets = (await runToExit(busybox, ["--list"], { seconds: 60 })).stdout.split("\n").filter(Boolean);
  for (const applet of applets) {
    if (applet !== "busybox") symlinkSync("busybox", path.join(root, "bin", applet));
  }
  writeFileSync(path.join(root, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
  writeFileSync(path.join(root, "etc/group"), "root:x:0:\n");
  const archive = path.join(dir, "rootfs.tar");
  const tar = await runToExit("tar", ["-C", root, "-cf", archive, "."], { seconds: 60 });
  if (tar.code !== 0) throw new Error(`tar failed: ${tar.stderr}`);
  await docker("import", archive, testImage);
}

/**
 * A real Docker engine of the test's own (Debian's docker.io): no network setup of its own, vfs
 * storage, everything in a temporary directory that `stop()` removes. It listens on a unix socket
 * (for the docker CLI), plain HTTP on 127.0.0.1, and TLS through a listener that asks for a client
 * certificate. An engine that cannot start fails the test: the tests that need it never skip.
 */
export async function startDockerEngine(): Promise<DockerEngine> {
  if (!existsSync("/usr/sbin/dockerd") || !existsSync(busybox) || !existsSync(sftpServer)) {
    throw new Error(
      "the connector tests need Debian's docker.io, busybox-static and openssh-sftp-server (apt-get install them)",
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), "engine-"));
  const socket = path.join(dir, "docker.sock");
  const [port, tlsPort] = [await freePort(), await freePort()];
  const args = [
    ...["--iptables=false", "--ip6tables=false", "--bridge=none", "--storage-driver=vfs"],
    ...["--data-root", path.join(dir, "data"), "--exec-root", path.join(dir, "exec")],
    ...["--pidfile", path.join(dir, "docker.pid"), "-H", `unix://${socket}`, "-H", `tcp://127.0.0.1:${port}`],
  ];
  let daemon: ChildProcess | undefined;
  let output = { stdout: "", stderr: "" };
  const docker = dockerCli(socket);
  const startDaemon = async () => {
    daemon = spawn("dockerd", args, { stdio: ["ignore", "pipe", "pipe"] });
    // Nothing outlives the run: a test process that ends without stop() takes the daemon along.
    const orphan = daemon;
    process.once("exit", () => orphan.kill("SIGKILL"));
    output = outputOf(daemon);
    const started = daemon;
    await waitFor(
      () => `the Docker engine to answer; its log:\n${output.stderr.slice(-3000)}`,
      async () => {
        if (started.exitCode !== null) throw new Error(`dockerd exited:\n${output.stderr.slice(-3000)}`);
        // A probe that hangs (the daemon has the socket but is still starting) is a no, not a
        // failure: the wait's 60 s decide.
        return runToExit("docker", ["-H", `unix://${socket}`, "version"], { seconds: 10 }).then(
          (run) => run.code === 0,
          () => false,
        );
      },
      60,
    );
  };
  const stopDaemon = async () => {
    const running = daemon;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGTERM");
    await exited;
  };

  const material = await certificates(dir, "engine");
  const stranger = await certificates(dir, "stranger");
  // TLS in front of the engine's socket: the connection is the engine's own once the handshake passed.
  const tlsListener = tls.createServer(
    { ...material.server, ca: material.ca, requestCert: true, rejectUnauthorized: true },
    (client) => {
      const engine = net.connect(socket);
      client.pipe(engine).pipe(client);
      const end = () => {
        client.destroy();
        engine.destroy();
      };
      client.on("error", end);
      engine.on("error", end);
      client.on("close", end);
      engine.on("close", end);
    },
  );
  tlsListener.on("tlsClientError", () => {});
  try {
    await startDaemon();
    await new Promise<void>((resolve) => tlsListener.listen(tlsPort, "127.0.0.1", resolve));
    await importTestImage(dir, docker);
  } catch (error) {
    await stopDaemon();
    tlsListener.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const stop = async () => {
    const containers = await docker("ps", "-aq").catch(() => "");
    if (containers) await docker("rm", "-f", ...containers.split("\n")).catch(() => "");
    await stopDaemon();
    await new Promise((resolve) => tlsListener.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    socket,
    port,
    tlsPort,
    client: { ca: material.ca, ...material.client },
    strangerClient: { ca: stranger.ca, ...stranger.client },
    docker,
    runContainer: (name) => runTestContainer(docker, name),
    stopDaemon,
    startDaemon,
    stop,
  };
}
