import { type ChildProcess, spawn } from "node:child_process";

/** What a child process writes to stdout and stderr, collected as it comes. */
export function outputOf(child: ChildProcess): { stdout: string; stderr: string } {
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output.stderr += chunk;
  });
  return output;
}

export type Run = { code: number | null; stdout: string; stderr: string };

/** Runs `command` to its exit with `input` on stdin; one still running after `seconds` is killed and fails with its output. */
export function runToExit(
  command: string,
  args: string[],
  options: { seconds: number; input?: string; cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    const output = outputOf(child);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      const { stdout, stderr } = output;
      reject(
        new Error(`${command} ${args.join(" ")} did not finish within ${options.seconds} s:\n${stdout}\n${stderr}`),
      );
    }, options.seconds * 1000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, ...output });
    });
    // A command that exits before reading its input closes the pipe: that is no failure of the run.
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.input ?? "");
  });
}
