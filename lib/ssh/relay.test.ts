import { describe, expect, it } from "vitest";
import { isAllowedEnv } from "./relay";

describe("isAllowedEnv", () => {
  it("lets only the locale through", () => {
    expect(["LANG", "LC_ALL", "LC_TIME"].every(isAllowedEnv)).toBe(true);
    expect(["PATH", "LD_PRELOAD", "BASH_ENV", "lang", "XLC_ALL"].some(isAllowedEnv)).toBe(false);
  });
});
