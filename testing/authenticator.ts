import { generate } from "otplib";

const period = 30;

/**
 * An authenticator app for tests: computes real TOTP codes from the secret with otplib. The
 * server accepts each time step once and takes the previous, current and next step, so `next()`
 * gives a code of a step later than any it gave before, waiting for the clock only when it has
 * run ahead by more than one step.
 */
export class Authenticator {
  private lastStep = 0;

  constructor(readonly secret: string) {}

  /** The code of `offset` steps from now, without recording it (for replays and wrong codes). */
  codeAt(offset: number) {
    return generate({ secret: this.secret, epoch: (Math.floor(Date.now() / 1000 / period) + offset) * period });
  }

  async next(): Promise<string> {
    const now = Date.now() / 1000;
    const current = Math.floor(now / period);
    // The previous step is still accepted, unless the clock may pass a boundary before the server reads it.
    const earliest = now - current * period < 20 ? current - 1 : current;
    const step = Math.max(this.lastStep + 1, earliest);
    if (step > current + 1)
      await new Promise((resolve) => setTimeout(resolve, ((step - 1) * period - now) * 1000 + 200));
    this.lastStep = step;
    return generate({ secret: this.secret, epoch: step * period });
  }
}
