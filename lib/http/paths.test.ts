import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { operations } from "../api";
import { apiRefusals, malformedPathAnswer } from "./paths";

const appDir = path.join(import.meta.dirname, "../../app");

/** `METHOD /path` of every exported handler of the route files under app/api, in OpenAPI form. */
function servedRoutes(): string[] {
  const files = readdirSync(path.join(appDir, "api"), { recursive: true, encoding: "utf8" })
    .filter((file) => path.basename(file) === "route.ts")
    .map((file) => path.join("api", file));
  return files.flatMap((file) => {
    const route = `/${path.dirname(file).split(path.sep).join("/")}`.replace(/\[([^\]]+)\]/g, "{$1}");
    const text = readFileSync(path.join(appDir, file), "utf8");
    return [...text.matchAll(/^export const (GET|POST|PUT|PATCH|DELETE) = /gm)].map((match) => `${match[1]} ${route}`);
  });
}

describe("apiRefusals", () => {
  const refusalOf = apiRefusals(operations);

  it("lets through every method and path a route file under app/api serves", () => {
    const served = servedRoutes();
    expect(served.length).toBeGreaterThan(50);
    const declared = new Set(operations.map((operation) => `${operation.method} ${operation.path}`));
    // A route file without its declaration would be refused before it is reached.
    expect(served.filter((route) => !declared.has(route))).toEqual([]);
  });

  it("lets through declared operations, with path parameters, a query, a trailing slash, HEAD for GET", () => {
    for (const [method, url] of [
      ["GET", "/api/healthcheck"],
      ["GET", "/api/healthcheck/"],
      ["HEAD", "/api/healthcheck"],
      ["GET", "/api/devices?page=2&per_page=5"],
      ["PATCH", "/api/devices/abc/accept"],
      ["PATCH", "/api/devices/abc/reject"],
      ["POST", "/api/devices/auth"],
      ["GET", "/api/openapi.json"],
    ]) {
      expect(refusalOf(method, url), `${method} ${url}`).toBeUndefined();
    }
  });

  it("leaves paths outside /api to Next.js", () => {
    for (const url of ["/", "/devices", "/no-such-page", "/apis", "/_next/static/x.js"]) {
      expect(refusalOf("DELETE", url), url).toBeUndefined();
    }
  });

  it("answers 404 to a path no operation declares", () => {
    for (const url of [
      "/api",
      "/api/",
      "/api/nothing",
      "/api/devices/a/b/c/d",
      "/api/openapiXjson",
      "/api/nothing?x=1",
    ]) {
      expect(refusalOf("GET", url), url).toMatchObject({ status: 404, body: { message: expect.any(String) } });
    }
  });

  it("answers 405 with Allow to a method the path does not have, 204 with Allow to OPTIONS", () => {
    expect(refusalOf("DELETE", "/api/healthcheck")).toMatchObject({
      status: 405,
      headers: { allow: "GET, HEAD, OPTIONS" },
    });
    expect(refusalOf("GET", "/api/auth/device")).toMatchObject({ status: 405, headers: { allow: "POST, OPTIONS" } });
    // Where two declared paths match, a fixed segment wins over a parameter, as in Next.js:
    // /api/devices/auth is not the device "auth", /api/namespaces/api-key not the namespace "api-key".
    expect(refusalOf("GET", "/api/devices/auth")).toMatchObject({ status: 405, headers: { allow: "POST, OPTIONS" } });
    expect(refusalOf("DELETE", "/api/namespaces/api-key")).toMatchObject({
      status: 405,
      headers: { allow: "POST, GET, HEAD, OPTIONS" },
    });
    expect(refusalOf("GET", "/api/devices/abc/accept")).toMatchObject({ headers: { allow: "PATCH, OPTIONS" } });
    expect(refusalOf("OPTIONS", "/api/devices/abc")).toEqual({
      status: 204,
      body: undefined,
      headers: { allow: "GET, PUT, DELETE, HEAD, OPTIONS" },
    });
  });
});

describe("malformedPathAnswer", () => {
  it.each(["/api/tags/%ff", "/api/devices/%c0%af", "/api/x/%ED%A0%80", "/api/x/%e2%82", "/api/x/%", "/a%zz"])(
    "answers 400 to %s",
    (url) => {
      expect(malformedPathAnswer(url)).toEqual({
        status: 400,
        body: { message: "the path is not valid percent-encoding (UTF-8)" },
        headers: {},
      });
    },
  );

  it.each(["/api/tags/caf%C3%A9", "/api/devices", "/api/tags/a%2Fb", "/api/login?x=%ff"])("lets %s through", (url) => {
    expect(malformedPathAnswer(url)).toBeUndefined();
  });
});
