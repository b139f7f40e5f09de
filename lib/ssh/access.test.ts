import { describe, expect, it } from "vitest";
import { parseTarget } from "./access";
import { Lifecycle } from "./lifecycle";
import { isAllowedEnv } from "./relay";

describe("parseTarget", () => {
  const uid = "a".repeat(64);
  it.each([
    ["root@lab.web-01", { user: "root", namespace: "lab", device: "web-01" }],
    ["root@LAB.Web-01", { user: "root", namespace: "lab", device: "web-01" }],
    [`pi@${uid}`, { user: "pi", device: uid }],
    ["user@name@lab.pc", { user: "user@name", namespace: "lab", device: "pc" }],
  ])("reads %s", (login, expected) => {
    expect(parseTarget(login)).toEqual({ login, ...expected });
  });

  it.each([
    ["no device", "root"],
    ["no user", "@lab.pc"],
    ["no namespace", "root@pc"],
    ["three labels", "root@a.b.c"],
    ["a label with a space", "root@lab.my pc"],
    ["a leading hyphen", "root@lab.-pc"],
    ["a uid of 63 hex characters", `root@${"a".repeat(63)}`],
  ])("refuses %s", (_label, login) => {
    expect(parseTarget(login)).toBeUndefined();
  });
});

describe("Lifecycle", () => {
  it("goes connecting -> connected -> draining -> closed, and never back", () => {
    const lifecycle = new Lifecycle("test", {});
    expect(lifecycle.to("closed")).toBe(false);
    expect(lifecycle.to("connected")).toBe(true);
    expect(lifecycle.to("connecting")).toBe(false);
    expect(lifecycle.to("draining")).toBe(true);
    expect(lifecycle.to("draining")).toBe(false);
    expect(lifecycle.to("closed")).toBe(true);
    expect(lifecycle.phase).toBe("closed");
  });

  it("drains a connection that never connected", () => {
    const lifecycle = new Lifecycle("test", {});
    expect(lifecycle.to("draining")).toBe(true);
    expect(lifecycle.to("connected")).toBe(false);
  });
});

describe("isAllowedEnv", () => {
  it("lets only the locale through", () => {
    expect(["LANG", "LC_ALL", "LC_TIME"].every(isAllowedEnv)).toBe(true);
    expect(["PATH", "LD_PRELOAD", "BASH_ENV", "lang", "XLC_ALL"].some(isAllowedEnv)).toBe(false);
  });
});
