import { describe, expect, inject, it } from "vitest";
import { call } from "@/testing/client";
import { seedNamespace } from "@/testing/seeds/namespaces";

// The console's session cookie (Auth.js) as a credential of the API: made by the same login
// service, httpOnly, and taken for a write only from the service's own origin.

const baseUrl = () => inject("baseUrl");

const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .filter(Boolean);

/** Signs in through Auth.js's credentials endpoint as the console's server action does. */
async function signIn(fields: Record<string, string>) {
  const csrf = await fetch(`${baseUrl()}/auth/csrf`);
  const { csrfToken } = await csrf.json();
  const response = await fetch(`${baseUrl()}/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookiesOf(csrf).join("; ") },
    body: new URLSearchParams({ csrfToken, callbackUrl: "/dashboard", ...fields }),
  });
  const session = cookiesOf(response).find((cookie) => cookie.startsWith("das.session="));
  return { response, session, setCookie: response.headers.getSetCookie().join("\n") };
}

describe("the console's session cookie", () => {
  it("is made by the login service, httpOnly, and works as a credential for reads", async () => {
    const namespace = await seedNamespace();
    const { response, session, setCookie } = await signIn({
      username: namespace.owner.username,
      password: namespace.owner.password,
    });
    expect(response.status).toBe(302);
    expect(session).toBeDefined();
    expect(setCookie).toMatch(/das\.session=[^;]+;.*HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);

    const stats = await call("GET", "/api/stats", { headers: { cookie: session ?? "" } });
    expect(stats.status).toBe(200);
    const user = await call("GET", "/api/auth/user", { headers: { cookie: session ?? "" } });
    expect(user.body.user).toBe(namespace.owner.username);
  });

  it("takes a write only with the service's own Origin (CSRF)", async () => {
    const namespace = await seedNamespace();
    const { session } = await signIn({ username: namespace.owner.username, password: namespace.owner.password });
    const cookie = session ?? "";
    const body = { name: `csrf${Date.now().toString(36)}` };
    const bare = await call("POST", "/api/namespaces", { body, headers: { cookie } });
    expect(bare.status).toBe(403);
    expect(bare.body.message).toContain("Origin");
    const foreign = await call("POST", "/api/namespaces", {
      body,
      headers: { cookie, origin: "https://evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toContain("https://evil.example");
    const listed = await call("GET", "/api/namespaces", { token: namespace.owner.token });
    expect(listed.body.some((item: { name: string }) => item.name === body.name)).toBe(false);

    const own = await call("POST", "/api/namespaces", { body, headers: { cookie, origin: new URL(baseUrl()).origin } });
    expect(own.status).toBe(200);
  });

  it("refuses a wrong password like the API, and a forged cookie is no credential", async () => {
    const namespace = await seedNamespace();
    const wrong = await signIn({ username: namespace.owner.username, password: "not-the-password" });
    expect(wrong.session).toBeUndefined();
    expect(wrong.response.headers.get("location")).toContain("code=invalid");

    const forged = await call("GET", "/api/stats", { headers: { cookie: "das.session=eyJhbGciOiJkaXIifQ.forged" } });
    expect(forged.status).toBe(401);
  });

  it("an explicit token wins over the cookie: the cookie never widens a call", async () => {
    const first = await seedNamespace();
    const second = await seedNamespace();
    const { session } = await signIn({ username: first.owner.username, password: first.owner.password });
    const stats = await call("GET", `/api/namespaces/${second.tenantId}`, {
      token: second.owner.tenantToken,
      headers: { cookie: session ?? "" },
    });
    expect(stats.status).toBe(200);
    const other = await call("GET", `/api/namespaces/${second.tenantId}`, { headers: { cookie: session ?? "" } });
    expect(other.status).toBe(404);
  });
});
