/** Polls `condition` every 100 ms for up to `seconds`; `what` describes it in the error, read when it fails. */
export async function waitFor(
  what: string | (() => string),
  condition: () => boolean | Promise<boolean>,
  seconds = 40,
) {
  const deadline = Date.now() + seconds * 1000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
