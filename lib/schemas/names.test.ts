import { describe, expect, it } from "vitest";
import { createApiKeyBody } from "./api-keys";
import { deviceTagBody, tagName } from "./devices";
import { editNamespaceBody } from "./namespaces";
import { createPublicKeyBody } from "./public-keys";
import { registerBody } from "./users";

const decomposed = "cafe\u0301"; // "café" as e + combining acute accent
const composed = "caf\u00e9";

describe("names are stored in one Unicode spelling (NFC)", () => {
  it("tags", () => {
    expect(tagName.parse(decomposed)).toBe(composed);
    expect(deviceTagBody.parse({ tag: `web-${decomposed}` })).toEqual({ tag: `web-${composed}` });
  });

  it("API key, public key and person names", () => {
    expect(createApiKeyBody.parse({ name: decomposed, expires_at: 30 }).name).toBe(composed);
    const key = createPublicKeyBody.parse({ name: decomposed, data: "x", filter: { hostname: ".*" }, username: ".*" });
    expect(key.name).toBe(composed);
    const person = registerBody.parse({
      name: decomposed,
      username: "cafe",
      email: "a@example.com",
      password: "secret",
    });
    expect(person.name).toBe(composed);
  });

  it("counts a name's length in its composed form", () => {
    // 20 characters composed, 40 decomposed: the limit of 3 to 20 applies to what is stored.
    expect(registerBody.shape.name.parse(`${"e\u0301".repeat(20)}`)).toBe("\u00e9".repeat(20));
  });
});

describe("the connection announcement", () => {
  it("keeps text, newlines and tabs, and drops control characters that act in a terminal", () => {
    const osc52 = "\u001b]52;c;ZXZpbA==\u0007";
    const announcement = `${osc52}Welcome\r\n\tto \u001b[2J\u001b]0;title\u0007the lab\u009b31m\u0000`;
    const parsed = editNamespaceBody.parse({ settings: { connection_announcement: announcement } });
    expect(parsed.settings?.connection_announcement).toBe("]52;c;ZXZpbA==Welcome\n\tto [2J]0;titlethe lab31m");
  });
});
