import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TunnelAdmission } from "./tunnel-admission";

type Clock = { now: number };

/** An admission of `maxInProgress` places on a clock of its own, with `queuedWrites` taking places too. */
function admissionOf(maxInProgress: number, queuedWrites: () => number = () => 0) {
  const clock: Clock = { now: 0 };
  return { admission: new TunnelAdmission(maxInProgress, queuedWrites, () => clock.now), clock };
}

/** Enters `count` tunnels: how many wait in line, and the waits they were asked so far (in order). */
async function enterMany(admission: TunnelAdmission, count: number) {
  const answers = Array.from({ length: count }, () => {
    let answer: { retryAfterSeconds: number } | undefined | "pending" = "pending";
    void admission.enter({}, anyDevice()).then((given) => {
      answer = given;
    });
    return () => answer;
  });
  await settle();
  return {
    held: answers.filter((answer) => answer() === "pending").length,
    waits: () =>
      answers.flatMap((answer) => {
        const given = answer();
        return typeof given === "object" ? [given.retryAfterSeconds] : [];
      }),
  };
}

/** A device of its own for each upgrade. */
const anyDevice = () => randomUUID();

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Sets the clock to `ms` and lets the line's timer run once. */
async function passTime(clock: Clock, ms: number) {
  clock.now = ms;
  vi.advanceTimersByTime(100);
  await settle();
}

/** Completes `count` set-ups of `ms` each, one after the other, on the clock `clock`. */
function completeSetUps(admission: TunnelAdmission, clock: Clock, count: number, ms: number) {
  for (let index = 0; index < count; index += 1) {
    const tunnel = {};
    void admission.enter(tunnel, anyDevice());
    clock.now += ms;
    admission.leave(tunnel, true);
  }
}

describe("tunnel admission", () => {
  // The line's timer runs on fake time; promises and setImmediate stay real.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("takes tunnels up to the limit and holds the next in line until a place frees, first come first in", async () => {
    const { admission } = admissionOf(2);
    const [first, second, third, fourth] = [{}, {}, {}, {}];
    await expect(admission.enter(first, anyDevice())).resolves.toBeUndefined();
    await expect(admission.enter(second, anyDevice())).resolves.toBeUndefined();
    const order: object[] = [];
    const thirdIn = admission.enter(third, anyDevice()).then((answer) => order.push(third) && answer);
    const fourthIn = admission.enter(fourth, anyDevice()).then((answer) => order.push(fourth) && answer);
    await settle();
    expect([admission.size, admission.waiting, order.length]).toEqual([2, 2, 0]);

    admission.leave(first, true);
    await expect(thirdIn).resolves.toBeUndefined();
    expect([admission.size, admission.waiting]).toEqual([2, 1]);
    admission.leave(second, false);
    admission.leave(second, false);
    await expect(fourthIn).resolves.toBeUndefined();
    expect(order).toEqual([third, fourth]);
    expect([admission.size, admission.waiting]).toEqual([2, 0]);
  });

  it("counts queued writes as places taken, and lets the line in as they finish", async () => {
    let queuedWrites = 1;
    const { admission, clock } = admissionOf(3, () => queuedWrites);
    await expect(admission.enter({}, anyDevice())).resolves.toBeUndefined();
    await expect(admission.enter({}, anyDevice())).resolves.toBeUndefined();
    const first = await enterMany(admission, 1);
    await passTime(clock, 500);
    expect(first.held).toBe(1);
    expect(admission.waiting).toBe(1);
    // The timer sees the write finish.
    queuedWrites = 0;
    await passTime(clock, 600);
    expect([admission.size, admission.waiting]).toEqual([3, 0]);
  });

  it("lets the line in at once when a place freed before the timer looked", async () => {
    let queuedWrites = 1;
    const { admission } = admissionOf(2, () => queuedWrites);
    await admission.enter({}, anyDevice());
    const first = await enterMany(admission, 2);
    expect([first.held, admission.size]).toEqual([2, 1]);
    queuedWrites = 0;
    // The next to come lets the first in line take the freed place, and waits behind the other.
    const next = await enterMany(admission, 1);
    expect([next.held, admission.size, admission.waiting]).toEqual([1, 2, 2]);
  });

  it("asks upgrades held 15 s to come back, each given a slot after those that stay", async () => {
    const { admission, clock } = admissionOf(1);
    // One set-up of a second: a tunnel a second.
    completeSetUps(admission, clock, 1, 1_000);
    await admission.enter({}, anyDevice());
    const answers: unknown[] = [];
    for (let index = 0; index < 3; index += 1) {
      void admission.enter({}, anyDevice()).then((answer) => answers.push(answer));
      clock.now += 3_000;
    }
    await passTime(clock, 1_000 + 14_999);
    expect([answers, admission.waiting]).toEqual([[], 3]);
    await passTime(clock, 1_000 + 15_000);
    expect(answers).toEqual([{ retryAfterSeconds: 3 }]);
    expect(admission.waiting).toBe(2);
  });

  it("counts ahead of those let go only the part of the line a place reaches before its own 15 s", async () => {
    const { admission, clock } = admissionOf(1);
    // One set-up of a second: a tunnel a second.
    completeSetUps(admission, clock, 1, 1_000);
    await admission.enter({}, anyDevice());
    const first = await enterMany(admission, 1);
    clock.now += 2_000;
    // Twenty more 2 s later: at a tunnel a second from the first's 15 s, one of them is reached
    // within its own 15 s, so the first is asked to wait for that one, not for twenty.
    const rest = await enterMany(admission, 20);
    await passTime(clock, 1_000 + 15_000);
    expect(first.waits()).toEqual([2]);
    // Their 15 s: the next slots, a second apart, from the one after the first's.
    await passTime(clock, 3_000 + 15_000);
    expect(rest.waits()).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
  });

  it("lets a tunnel that leaves while in line go without ever counting it in", async () => {
    const { admission } = admissionOf(1);
    const [holder, waiting] = [{}, {}];
    await admission.enter(holder, anyDevice());
    const answer = admission.enter(waiting, anyDevice());
    admission.leave(waiting, false);
    await expect(answer).resolves.toBeUndefined();
    expect([admission.size, admission.waiting]).toEqual([1, 0]);
    admission.leave(holder, true);
    expect(admission.size).toBe(0);
  });

  it("holds one upgrade of a device in line: another of it is asked to come back at once, until the first leaves", async () => {
    const { admission, clock } = admissionOf(1);
    // One set-up of a second: a tunnel a second.
    completeSetUps(admission, clock, 1, 1_000);
    await admission.enter({}, "busy");
    const [first, second, third] = [{}, {}, {}];
    const firstIn = admission.enter(first, "agent");
    // Its slot comes after the one in line: two set-ups at a second each.
    await expect(admission.enter(second, "agent")).resolves.toEqual({ retryAfterSeconds: 2 });
    expect(admission.waiting).toBe(1);
    // The first's connection closes: the device's next upgrade waits in line again.
    admission.leave(first, false);
    await expect(firstIn).resolves.toBeUndefined();
    const thirdIn = admission.enter(third, "agent");
    await settle();
    expect(admission.waiting).toBe(1);
    admission.leave(third, false);
    await expect(thirdIn).resolves.toBeUndefined();
    expect([admission.size, admission.waiting]).toEqual([1, 0]);
  });

  it("holds every upgrade in line, then gives those still there after 15 s the next slots, at most a minute ahead", async () => {
    const { admission, clock } = admissionOf(2);
    // Set-ups of 4 s with 2 at a time: a tunnel every 2 s.
    completeSetUps(admission, clock, 3, 4_000);
    await enterMany(admission, 2);
    const line = await enterMany(admission, 4);
    expect(line.held).toBe(4);
    await passTime(clock, clock.now + 15_000);
    expect(line.waits()).toEqual([2, 4, 6, 8]);
    const later = await enterMany(admission, 200);
    await passTime(clock, clock.now + 15_000);
    expect(Math.max(...later.waits())).toBe(60);
  });

  it("reads the rate from the first set-ups after a start: a few fast ones make the waits short", async () => {
    const { admission, clock } = admissionOf(64);
    const tunnels = Array.from({ length: 64 }, () => ({}));
    for (const tunnel of tunnels) void admission.enter(tunnel, anyDevice());
    // Two set-ups done in half a second: 128 a second while 64 are in progress.
    clock.now = 500;
    admission.leave(tunnels[0] ?? {}, true);
    admission.leave(tunnels[1] ?? {}, true);
    await enterMany(admission, 2);
    const line = await enterMany(admission, 1_000);
    await passTime(clock, clock.now + 15_000);
    expect(Math.max(...line.waits())).toBe(8);
  });

  it("counts a set-up that did not complete out of the rate", async () => {
    const { admission, clock } = admissionOf(1);
    const abandoned = {};
    void admission.enter(abandoned, anyDevice());
    clock.now = 50_000;
    admission.leave(abandoned, false);
    // One set-up of 500 ms: two a second.
    completeSetUps(admission, clock, 1, 500);
    await enterMany(admission, 1);
    const line = await enterMany(admission, 3);
    await passTime(clock, clock.now + 15_000);
    expect(line.waits()).toEqual([1, 1, 2]);
  });
});
