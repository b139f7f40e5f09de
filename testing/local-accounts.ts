import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";

// Accounts of this machine for logins into the real agent (it serves the machine's accounts); the
// browser tests use them too, without vitest.

/** A local account with a password, for logins to the "device" (this machine); root only. */
export function createAccount() {
  const name = `das${randomBytes(4).toString("hex")}`;
  const password = `pw-${randomBytes(8).toString("hex")}`;
  execFileSync("useradd", ["--create-home", "--shell", "/bin/bash", name]);
  execFileSync("chpasswd", { input: `${name}:${password}\n` });
  return {
    name,
    password,
    home: `/home/${name}`,
    remove: () => {
      // Processes the tests started as the account (a command left running when its session was closed).
      const listed = spawnSync("ps", ["-o", "pid=", "-u", name], { encoding: "utf8" }).stdout;
      const pids = listed.split(/\s+/).filter(Boolean);
      for (const pid of pids) process.kill(Number(pid), "SIGKILL");
      execFileSync("userdel", ["--force", "--remove", name], { stdio: "ignore" });
    },
  };
}
