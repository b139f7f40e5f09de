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

  it("gives each refused tunnel the next slot at the rate tunnels complete, at most a minute ahead", () => {
    let now = 0;
    const admission = new TunnelAdmission(1, () => now);
    // Ten tunnels completed over the last 4.5 s: 2.2 a second, a slot every 450 ms.
    for (let index = 0; index < 10; index += 1) {
      const tunnel = {};
      admission.enter(tunnel);
      now += 500;
      admission.leave(tunnel, true);
    }
    admission.enter({});
    const waits = Array.from({ length: 4 }, () => admission.enter({})?.retryAfterSeconds);
    expect(waits).toEqual([1, 1, 2, 2]);
    const later = Array.from({ length: 200 }, () => admission.enter({})?.retryAfterSeconds ?? 0);
    expect(Math.max(...later)).toBe(60);
  });
});
