import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The walls of docs/architecture.md, checked on the source text: which folder may import what,
// and no import cycle anywhere.

const root = path.resolve(import.meta.dirname, "..");
const sourceFolders = ["agent", "app", "bench", "components", "e2e", "lib", "models", "testing", "server.ts"];

function sourceFiles(entry: string): string[] {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return /\.tsx?$/.test(entry) ? [entry] : [];
  return readdirSync(full).flatMap((name) => (name === "node_modules" ? [] : sourceFiles(path.join(entry, name))));
}

const files = sourceFolders.flatMap(sourceFiles);
const isTest = (file: string) => /\.(test|spec)\.tsx?$/.test(file);

/** Every module a file imports, types included: a cycle of types is still a knot in the design. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const specifiers: string[] = [];
  const statement = /^\s*(?:import|export)\s+(?:[^;"']*?\s+from\s+)?["']([^"']+)["']/gm;
  for (const match of text.matchAll(statement)) {
    if (match[1]) specifiers.push(match[1]);
  }
  for (const match of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) {
    if (match[1]) specifiers.push(match[1]);
  }
  return specifiers;
}

/** The project file a specifier names, or undefined for a package. */
function resolve(from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.join(path.dirname(from), specifier);
  else return undefined;
  const candidates = [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")];
  return candidates.find(
    (candidate) => existsSync(path.join(root, candidate)) && !statSync(path.join(root, candidate)).isDirectory(),
  );
}

const graph = new Map(
  files.map((file) => [
    file,
    importsOf(file).flatMap((specifier) => {
      const target = resolve(file, specifier);
      return target ? [target] : [];
    }),
  ]),
);

/** Import cycles: the strongly connected components with more than one file (Tarjan). */
function importCycles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member) {
          onStack.delete(member);
          component.push(member);
        }
      } while (member && member !== file);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** The files under `folder` (tests left out) that import a file under one of `forbidden`. */
function crossings(folder: string, forbidden: string[]) {
  return files
    .filter((file) => file.startsWith(folder) && !isTest(file))
    .flatMap((file) =>
      (graph.get(file) ?? [])
        .filter((target) => forbidden.some((prefix) => target.startsWith(prefix)))
        .map((target) => `${file} -> ${target}`),
    );
}

describe("architecture", () => {
  it("reads the whole tree", () => {
    expect(files.length).toBeGreaterThan(200);
    expect(graph.get("lib/db/paging.ts")).toContain("lib/db/index.ts");
  });

  it("has no import cycle", () => {
    expect(importCycles()).toEqual([]);
  });

  it("keeps the product apart from the tests: nothing in lib/, app/, models/ or agent/ imports e2e/ or testing/", () => {
    const product = ["lib/", "app/", "models/", "agent/", "server.ts"];
    expect(product.flatMap((folder) => crossings(folder, ["e2e/", "testing/"]))).toEqual([]);
  });

  it("keeps models/ at the bottom: the tables import nothing of lib/", () => {
    expect(crossings("models/", ["lib/", "app/", "agent/"])).toEqual([]);
  });

  it("keeps the agent apart from the server: of lib/ it takes only the log, secrets, version and wire contract", () => {
    const shared = ["lib/log.ts", "lib/secrets.ts", "lib/version.ts", "lib/protocol.ts"];
    const offending = crossings("agent/", ["lib/", "app/", "models/"]).filter(
      (crossing) => !shared.some((file) => crossing.endsWith(`-> ${file}`)),
    );
    expect(offending).toEqual([]);
  });

  it("keeps lib/ssh to transport: its queries and rules are services, so it imports neither drizzle-orm nor models/", () => {
    const drizzleImports = files
      .filter((file) => file.startsWith("lib/ssh/") && !isTest(file))
      .flatMap((file) =>
        importsOf(file)
          .filter((specifier) => /^drizzle-orm(\/|$)/.test(specifier))
          .map((specifier) => `${file} -> ${specifier}`),
      );
    expect([...crossings("lib/ssh/", ["models/"]), ...drizzleImports]).toEqual([]);
  });

  it("keeps lib/services below the HTTP edge: nothing in it, tests included, imports lib/http/ or Next.js", () => {
    const offending = files
      .filter((file) => file.startsWith("lib/services/"))
      .flatMap((file) =>
        [
          ...(graph.get(file) ?? []).filter((target) => target.startsWith("lib/http/")),
          ...importsOf(file).filter((specifier) => /^next(\/|$)/.test(specifier)),
        ].map((target) => `${file} -> ${target}`),
      );
    expect(offending).toEqual([]);
  });

  it("sets the server's V8 flags before anything else: lib/v8-tuning is server.ts's first import", () => {
    expect(importsOf("server.ts")[0]).toBe("./lib/v8-tuning");
  });
});
