import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type * as Esbuild from "esbuild";
import packageJson from "../../package.json";
import type { AgentInstall } from "../services/agent-install";
import { version } from "../version";

/**
 * What a device downloads to run the agent (docs/agent-install.md): `agent/main.ts` bundled by
 * esbuild into one ES module for plain Node.js (`agent.mjs`: ssh2, ws and zod inside, no tsx, no
 * build step on the device), node-pty's JavaScript and this machine's build of its native addon
 * beside it (a native addon cannot be bundled), in a gzip'd tar; and the installer with the
 * server's address, the version and the tarball's SHA-256 filled in. The same sources make the
 * same bytes, so every instance of one version serves one tarball.
 */

// esbuild comes with tsx, which runs the server: its copy, whatever else node_modules holds.
function loadEsbuild(): typeof Esbuild {
  const fromHere = createRequire(import.meta.url);
  return createRequire(fromHere.resolve("tsx/package.json"))("esbuild") as typeof Esbuild;
}

// ESM output for code written as CommonJS (ssh2, ws): `require`, `__filename`, `__dirname` as
// Node gives them to a CommonJS module, for the bundled file.
const commonJsBanner = [
  'import { createRequire as bundleCreateRequire } from "node:module";',
  'import { dirname as bundleDirname } from "node:path";',
  'import { fileURLToPath as bundleFileUrlToPath } from "node:url";',
  "const require = bundleCreateRequire(import.meta.url);",
  "const __filename = bundleFileUrlToPath(import.meta.url);",
  "const __dirname = bundleDirname(__filename);",
].join("\n");

// Optional native addons of ssh2 (sshcrypto.node, cpu-features) and ws (bufferutil,
// utf-8-validate) stay out: each is loaded in a try, and the packages fall back to JavaScript.
// node-pty is loaded at run time from the node_modules beside the bundle.
const external = ["node-pty", "cpu-features", "bufferutil", "utf-8-validate"];
const nativeAddonsOutside: Esbuild.Plugin = {
  name: "native-addons-outside",
  setup(build) {
    build.onResolve({ filter: /\.node$/ }, (args) => ({ path: args.path, external: true }));
  },
};

/** The agent as one ES module. */
export async function bundleAgentScript(root: string): Promise<string> {
  const esbuild = loadEsbuild();
  // esbuild's service process is not needed once the bundle is made (the next build starts it again).
  const result = await esbuild
    .build({
      entryPoints: [path.join(root, "agent", "main.ts")],
      absWorkingDir: root,
      bundle: true,
      platform: "node",
      format: "esm",
      target: `node${nodeMinimum()}`,
      outfile: "agent.mjs",
      write: false,
      external,
      plugins: [nativeAddonsOutside],
      banner: { js: commonJsBanner },
      legalComments: "eof",
      logLevel: "silent",
    })
    .finally(() => esbuild.stop());
  const [output] = result.outputFiles;
  if (!output) throw new Error("esbuild wrote no agent bundle");
  return output.text;
}

/** The oldest Node.js the agent runs on: the project's `engines.node` (">=20.9" -> "20.9"). */
export function nodeMinimum(): string {
  const match = /(\d+)(?:\.(\d+))?/.exec(packageJson.engines.node);
  return match ? `${match[1]}.${match[2] ?? 0}` : "20.9";
}

type TarEntry = { name: string; mode: number; data?: Buffer };

/** The files of node-pty a device needs: its JavaScript, licence and this machine's addon (Linux only). */
export function ptyFiles(root: string): { entries: TarEntry[]; platform: string | null } {
  const packageFile = createRequire(path.join(root, "package.json")).resolve("node-pty/package.json");
  const dir = path.dirname(packageFile);
  const addon = path.join(dir, "build", "Release", "pty.node");
  if (process.platform !== "linux" || !existsSync(addon)) return { entries: [], platform: null };
  const isShipped = (file: string) => /\.js$/.test(file) && !/\.test\.js$/.test(file) && !file.includes("windows");
  const libFiles = (sub: string): string[] =>
    readdirSync(path.join(dir, sub)).flatMap((name) => {
      const relative = path.join(sub, name);
      if (statSync(path.join(dir, relative)).isDirectory()) return libFiles(relative);
      return isShipped(name) ? [relative] : [];
    });
  const files = ["package.json", "LICENSE", ...libFiles("lib"), path.join("build", "Release", "pty.node")];
  const entries = files.map((file) => ({
    name: `node_modules/node-pty/${file.split(path.sep).join("/")}`,
    mode: file.endsWith(".node") ? 0o755 : 0o644,
    data: readFileSync(path.join(dir, file)),
  }));
  return { entries, platform: `${process.platform}-${process.arch}` };
}

// A fixed time for every entry, so that the same files make the same tarball.
const entryTime = Date.UTC(2020, 0, 1) / 1000;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

/** One 512-byte ustar header. */
function tarHeader(name: string, mode: number, size: number, isDirectory: boolean): Buffer {
  const header = Buffer.alloc(512);
  let prefix = "";
  let shortName = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf("/", name.length - 2);
    prefix = name.slice(0, cut);
    shortName = name.slice(cut + 1);
    if (cut < 0 || Buffer.byteLength(shortName) > 100 || Buffer.byteLength(prefix) > 155)
      throw new Error(`a path too long for tar: ${name}`);
  }
  header.write(shortName, 0, 100, "utf8");
  header.write(octal(mode, 8), 100, "ascii");
  header.write(octal(0, 8), 108, "ascii");
  header.write(octal(0, 8), 116, "ascii");
  header.write(octal(size, 12), 124, "ascii");
  header.write(octal(entryTime, 12), 136, "ascii");
  header.write("        ", 148, "ascii");
  header.write(isDirectory ? "5" : "0", 156, "ascii");
  header.write("ustar\0", 257, "ascii");
  header.write("00", 263, "ascii");
  header.write("root", 265, "ascii");
  header.write("root", 297, "ascii");
  header.write(prefix, 345, 155, "utf8");
  const checksum = header.reduce((sum, byte) => sum + byte, 0);
  header.write(`${checksum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return header;
}

/** A gzip'd ustar archive of the files, each parent directory listed before what it holds. */
export function tarGz(files: TarEntry[]): Buffer {
  const directories = new Set<string>();
  for (const { name } of files) {
    const parts = name.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) directories.add(`${parts.slice(0, i).join("/")}/`);
  }
  const entries: TarEntry[] = [
    ...[...directories].map((name) => ({ name, mode: 0o755 })),
    ...files.filter((file) => file.data !== undefined),
  ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = entry.data ?? Buffer.alloc(0);
    blocks.push(tarHeader(entry.name, entry.mode, data.length, entry.data === undefined));
    if (data.length > 0) blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}

/** A value for the installer, in single quotes as sh reads it. */
const shellQuoted = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** The installer (`agent/install.sh`) with its `@NAME@` placeholders filled in. */
export function renderInstallScript(template: string, values: Record<string, string>): string {
  return template.replace(/@([A-Z0-9_]+)@/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`install.sh: no value for ${placeholder}`);
    return shellQuoted(value);
  });
}

/** The agent's tarball, its checksum and the installer that fetches it, for the server at `serverUrl`. */
export async function buildAgentInstall(root: string, serverUrl: string): Promise<AgentInstall> {
  if (/['\s\\]/.test(serverUrl))
    throw new Error(`PUBLIC_URL holds a character the installer cannot carry: ${serverUrl}`);
  const script = await bundleAgentScript(root);
  const pty = ptyFiles(root);
  const manifest = { name: "device-access-agent", version, private: true, type: "module", pty: pty.platform };
  const tarball = tarGz([
    { name: "agent.mjs", mode: 0o644, data: Buffer.from(script) },
    { name: "package.json", mode: 0o644, data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) },
    ...pty.entries,
  ]);
  const sha256 = createHash("sha256").update(tarball).digest("hex");
  const installer = renderInstallScript(readFileSync(path.join(root, "agent", "install.sh"), "utf8"), {
    SERVER_URL: serverUrl,
    AGENT_VERSION: version,
    AGENT_SHA256: sha256,
    NODE_MINIMUM: nodeMinimum(),
  });
  return { version, tarball, sha256, installer, ptyPlatform: pty.platform };
}
