import type { Answer } from "./answer";
import type { Operation } from "./operation";

// The API's operations, and the server's own ones under /internal, answer JSON.
const isApiPath = (path: string) => /^\/(api|internal)(\/|$)/.test(path);

/** An OpenAPI path as a pattern: `{name}` is one segment; a trailing slash is Next.js's to redirect. */
function patternOf(path: string): RegExp {
  const segments = path
    .split("/")
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&")));
  return new RegExp(`^${segments.join("/")}/?$`);
}

/**
 * The answers server.ts gives before Next.js (an HTML page for an unknown path, an empty 405 for
 * a wrong method) to requests no operation under /api takes: 404 `{message}` for a path none
 * declares, 405 `{message}` with `Allow` for a method the path does not have, 204 with `Allow`
 * to OPTIONS. Anything else, HEAD where GET is declared included, answers undefined.
 */
export function apiRefusals(operations: readonly Pick<Operation, "method" | "path">[]) {
  const methodsByPath = new Map<string, string[]>();
  for (const { method, path } of operations) {
    if (isApiPath(path)) methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);
  }
  // Like Next.js, a fixed segment wins over a parameter (`/api/namespaces/api-key` is not the
  // namespace `api-key`): of the paths that match, the one whose first parameter comes latest.
  const paths = [...methodsByPath].map(([path, methods]) => ({
    pattern: patternOf(path),
    methods,
    rank: path
      .split("/")
      .map((segment) => (segment.startsWith("{") ? "1" : "0"))
      .join(""),
  }));
  return (method: string | undefined, url: string | undefined): Answer | undefined => {
    const path = (url ?? "").split("?", 1)[0] ?? "";
    if (!isApiPath(path)) return undefined;
    const matching = paths.filter(({ pattern }) => pattern.test(path));
    const served = matching.reduce<(typeof matching)[number] | undefined>(
      (best, item) => (!best || item.rank < best.rank ? item : best),
      undefined,
    );
    if (!served) return { status: 404, body: { message: `no API operation at ${path}` }, headers: {} };
    const methods = new Set(served.methods);
    if (method && (methods.has(method) || (method === "HEAD" && methods.has("GET")))) return undefined;
    if (methods.has("GET")) methods.add("HEAD");
    const allow = [...methods, "OPTIONS"].join(", ");
    if (method === "OPTIONS") return { status: 204, body: undefined, headers: { allow } };
    return { status: 405, body: { message: `${method} is not allowed on ${path}` }, headers: { allow } };
  };
}

/**
 * 400 `{message}` for a path whose percent-encoding decodes to no text (`%ff`, `%c0%af`, a lone
 * `%`): Next.js would fail decoding it into route parameters and answer a bare 500.
 */
export function malformedPathAnswer(url: string | undefined): Answer | undefined {
  const path = (url ?? "").split("?", 1)[0] ?? "";
  if (!path.includes("%")) return undefined;
  try {
    decodeURIComponent(path);
    return undefined;
  } catch {
    return { status: 400, body: { message: "the path is not valid percent-encoding (UTF-8)" }, headers: {} };
  }
}
