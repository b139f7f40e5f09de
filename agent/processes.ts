import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import type { IPty } from "node-pty";
import { log } from "../lib/log";
import type { LocalAccount } from "./accounts";

/** The terminal a client asked for with `pty-req`. */
export type Terminal = { term: string; cols: number; rows: number };

/** What a login gets besides the account: its terminal and the client's locale variables. */
export type LoginContext = { account: LocalAccount; terminal?: Terminal; env: Record<string, string> };

const rootPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const userPath = "/usr/local/bin:/usr/bin:/bin:/usr/games";

/** Only the locale passes from the client to the device's environment. */
export const isPassedEnv = (name: string) => name === "LANG" || /^LC_[A-Z_]+$/.test(name);

/** A fresh login environment, as sshd builds it: nothing of the agent's own environment leaks in. */
export function loginEnvironment({ account, terminal, env }: LoginContext): Record<string, string> {
  const passed = Object.fromEntries(Object.entries(env).filter(([name]) => isPassedEnv(name)));
  return {
    ...passed,
    HOME: account.home,
    USER: account.name,
    LOGNAME: account.name,
    SHELL: account.shell,
    PATH: account.uid === 0 ? rootPath : userPath,
    ...(terminal ? { TERM: terminal.term } : {}),
  };
}

/**
 * `file args` as the account: when the agent runs as another uid (root serving a user), through
 * setpriv(1) (util-linux), which sets the uid, the gid and the supplementary groups (initgroups)
 * and leaves no capabilities.
 */
export function asAccount(account: LocalAccount, file: string, args: string[]): [string, string[]] {
  if (process.getuid?.() === account.uid) return [file, args];
  return ["setpriv", [`--reuid=${account.uid}`, `--regid=${account.gid}`, "--init-groups", "--", file, ...args]];
}

const workingDirectory = (account: LocalAccount) => (existsSync(account.home) ? account.home : "/");

/** A login shell (`command` undefined) or `shell -c command`. */
export const shellCommand = (account: LocalAccount, command?: string): [string, string[]] =>
  command === undefined ? [account.shell, ["-l"]] : [account.shell, ["-c", command]];

type PtyModule = typeof import("node-pty");
let ptyModule: PtyModule | null | undefined;

/**
 * node-pty, a native addon, loaded on first use (a plain `require`, which the installed agent's
 * bundle leaves to Node: agent/install.sh, docs/agent-install.md). Undefined where it does not
 * load (an installed agent on another architecture or C library than the server's build):
 * sessions that ask for a terminal then run on pipes, and the agent says so once.
 */
export function loadPty(): PtyModule | undefined {
  if (ptyModule === undefined) {
    try {
      ptyModule = createRequire(import.meta.url)("node-pty") as PtyModule;
    } catch (error) {
      ptyModule = null;
      log.warn("node-pty does not load here: shells run without a terminal (no line editing, no resizing)", {
        error: (error as Error).message.split("\n", 1)[0],
      });
    }
  }
  return ptyModule ?? undefined;
}

/** The program on a new pseudo-terminal of the given size (`pty` from `loadPty()`). */
export function startOnPty(
  pty: PtyModule,
  context: LoginContext & { terminal: Terminal },
  file: string,
  args: string[],
): IPty {
  const [program, programArgs] = asAccount(context.account, file, args);
  return pty.spawn(program, programArgs, {
    name: context.terminal.term,
    // Bytes, not text: output goes to the SSH channel as it is.
    encoding: null,
    cols: Math.max(1, context.terminal.cols || 80),
    rows: Math.max(1, context.terminal.rows || 24),
    cwd: workingDirectory(context.account),
    env: loginEnvironment(context),
  });
}

/** The program with pipes for stdin, stdout and stderr. */
export function startPiped(context: LoginContext, file: string, args: string[]): ChildProcess {
  const [program, programArgs] = asAccount(context.account, file, args);
  return spawn(program, programArgs, {
    cwd: workingDirectory(context.account),
    env: loginEnvironment(context) as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
    // Its own process group, so that ending the session reaches what the program started too.
    detached: true,
  });
}

/** Debian's sftp-server, or where other distributions keep it. */
export function sftpServerPath(): string | undefined {
  return ["/usr/lib/openssh/sftp-server", "/usr/lib/sftp-server", "/usr/libexec/openssh/sftp-server"].find((file) =>
    existsSync(file),
  );
}
