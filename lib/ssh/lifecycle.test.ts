import { describe, expect, it } from "vitest";
import { Lifecycle } from "./lifecycle";

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
