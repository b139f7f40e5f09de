import { describe, expect, it } from "vitest";
import { TunnelAdmission } from "./tunnel-admission";

describe("tunnel admission", () => {
  it("takes tunnels up to the limit, queued writes counted, and takes one more once one leaves", () => {
    const admission = new TunnelAdmission(2, () => 0);
    const [first, second, third] = [{}, {}, {}];
    expect(admission.enter(first)).toBeUndefined();
    expect(admission.enter(second, 1)).toEqual({ retryAfterSeconds: 1 });
    expect(admission.enter(second)).toBeUndefined();
    expect(admission.enter(third)).toBeDefined();
    admission.leave(first, false);
    admission.leave(first, false);
    expect(admission.size).toBe(1);
    expect(admission.enter(third)).toBeUndefined();
  });

  it("gives each refused tunnel the next slot at the rate the server sets tunnels up, at most a minute ahead", () => {
    let now = 0;
    const admission = new TunnelAdmission(2, () => now);
    // Set-ups of 4 s with 2 at a time: a tunnel every 2 s.
    for (let index = 0; index < 3; index += 1) {
      const tunnel = {};
      admission.enter(tunnel);
      now += 4_000;
      admission.leave(tunnel, true);
    }
    admission.enter({});
    admission.enter({});
    const waits = Array.from({ length: 4 }, () => admission.enter({})?.retryAfterSeconds);
    expect(waits).toEqual([2, 4, 6, 8]);
    const later = Array.from({ length: 200 }, () => admission.enter({})?.retryAfterSeconds ?? 0);
    expect(Math.max(...later)).toBe(60);
  });

  it("reads the rate from the first set-ups after a start: a few fast ones spread the refused thinly", () => {
    let now = 0;
    const admission = new TunnelAdmission(64, () => now);
    const tunnels = Array.from({ length: 64 }, () => ({}));
    for (const tunnel of tunnels) admission.enter(tunnel);
    // Two set-ups done in half a second: 128 a second while 64 are in progress.
    now = 500;
    admission.leave(tunnels[0] ?? {}, true);
    admission.leave(tunnels[1] ?? {}, true);
    admission.enter({});
    admission.enter({});
    const waits = Array.from({ length: 1_000 }, () => admission.enter({})?.retryAfterSeconds ?? 0);
    expect(Math.max(...waits)).toBe(8);
  });

  it("counts a set-up that did not complete out of the rate", () => {
    let now = 0;
    const admission = new TunnelAdmission(1, () => now);
    const [abandoned, completed] = [{}, {}];
    admission.enter(abandoned);
    now = 50_000;
    admission.leave(abandoned, false);
    admission.enter(completed);
    now += 500;
    admission.leave(completed, true);
    admission.enter({});
    expect(admission.enter({})?.retryAfterSeconds).toBe(1);
  });
});
