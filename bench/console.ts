import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { ensureBuild } from "../lib/build/ensure-build";
import { acceptAgentDevice, spawnAgent } from "../testing/agents";
import { chromiumLaunchOptions } from "../testing/chromium";
import { newDataDir } from "../testing/data-dir";
import { type RunningServer, root, startServer } from "../testing/server";
import { waitFor } from "../testing/wait";
import { seedDevices } from "./devices";
import { type Api, api, median, percentile, settle } from "./kit";

/**
 * `npm run bench -- console [--devices 10000] [--runs 20] [--offline-runs 5]`: the console in
 * real Chromium against the production build. How long `/devices` takes to show its rows over a
 * namespace of that many devices, and a search to show its answer, against a trivial page of the
 * same server (`/login`); the first-load JavaScript of every page route (gzip) from the build's
 * manifests; and how long a device's going offline takes to reach the screen.
 */

const account = { username: "bench", password: "bench-password" };
const goalMs = 1_500;
const goalKiB = 250;
const agentName = "bench-agent";
/** The console's default page size (components/devices/list-params.ts). */
const rowsOnPage = 25;

// ---------------------------------------------------------------------------------------------
// First-load JavaScript, from the build's manifests

const nextDir = path.join(root, ".next");
const readJson = (file: string) => JSON.parse(readFileSync(path.join(nextDir, file), "utf8"));
const gzipSizes = new Map<string, number>();
/** The gzip size (level 9) of a file of the build, such as `static/chunks/x.js`. */
function gzipSize(file: string): number {
  let size = gzipSizes.get(file);
  if (size === undefined) {
    size = gzipSync(readFileSync(path.join(nextDir, file)), { level: 9 }).length;
    gzipSizes.set(file, size);
  }
  return size;
}

type RouteScripts = { route: string; files: string[]; gzipBytes: number };

/**
 * Per page route, the scripts its first load runs: the root's (`rootMainFiles` of the build
 * manifest) and those of every entry of the route's client reference manifest (root layout,
 * group layout, error and not-found boundaries, the page). The manifests are Turbopack's;
 * `nomodule` polyfills are left out, as no browser the console supports loads them.
 */
export function firstLoadScripts(): RouteScripts[] {
  const rootMain: string[] = readJson("build-manifest.json").rootMainFiles;
  const routes: Record<string, string> = readJson("app-path-routes-manifest.json");
  return Object.entries(routes)
    .filter(([entry]) => entry.endsWith("/page") && !entry.startsWith("/_"))
    .map(([entry, route]) => {
      // The manifest is a script that sets globalThis.__RSC_MANIFEST[entry].
      const holder: { __RSC_MANIFEST?: Record<string, { entryJSFiles: Record<string, string[]> }> } = {};
      runInNewContext(
        readFileSync(path.join(nextDir, "server/app", `${entry}_client-reference-manifest.js`), "utf8"),
        holder,
      );
      const files = new Set(rootMain);
      for (const client of Object.values(holder.__RSC_MANIFEST ?? {}))
        for (const list of Object.values(client.entryJSFiles)) for (const file of list) files.add(file);
      const list = [...files];
      return { route, files: list, gzipBytes: list.reduce((sum, file) => sum + gzipSize(file), 0) };
    })
    .sort((a, b) => a.route.localeCompare(b.route));
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);

// ---------------------------------------------------------------------------------------------
// The browser

/**
 * Marks set in the page, in its own clocks: `rows` when the fleet table holds a full page of rows
 * (performance.now(), from the navigation's start), `typed` and `filtered` around a search, and
 * `offline` (Date.now()) when the row of the watched device says "Offline". Each is taken in the
 * animation frame after the DOM change, the frame that paints it.
 */
const markScript = (rowsExpected: number) => `(() => {
  const marks = (window.__marks = {});
  const at = (name, clock) => { if (marks[name] === undefined) { marks[name] = null; requestAnimationFrame(() => { marks[name] = clock(); }); } };
  const check = () => {
    const rows = [...document.querySelectorAll("main table tbody tr")];
    if (rows.length >= ${rowsExpected}) at("rows", () => performance.now());
    const query = window.__search;
    if (query && marks.typed && rows.length > 0 && rows.every((row) => row.textContent.includes(query)))
      at("filtered", () => performance.now());
    const watched = window.__watch && rows.find((row) => row.textContent.includes(window.__watch));
    if (watched && watched.textContent.includes("Offline")) at("offline", () => Date.now());
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
  document.addEventListener("input", (event) => {
    if (event.target.type === "search") marks.typed = performance.now();
  }, true);
})();`;

type Marks = { rows?: number; typed?: number; filtered?: number; offline?: number };

const readMark = (page: Page, name: keyof Marks) =>
  page.evaluate((key) => (window as unknown as { __marks: Marks }).__marks[key] ?? null, name);

async function waitForMark(page: Page, name: keyof Marks, seconds = 30): Promise<number> {
  let value: number | null = null;
  await waitFor(
    `the page's mark "${name}" at ${page.url()}`,
    async () => {
      value = await readMark(page, name);
      return value !== null;
    },
    seconds,
  );
  return value ?? Number.NaN;
}

/** The end of the load event of the page's navigation, from its start. */
const loadEventEnd = (page: Page) =>
  page.evaluate(() => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).loadEventEnd);

/** Signs the context in through the console's sign-in endpoint (Auth.js), as the login form does. */
export async function signIn(context: BrowserContext, baseUrl: string) {
  const { csrfToken } = (await (await context.request.get(`${baseUrl}/auth/csrf`)).json()) as { csrfToken: string };
  const answer = await context.request.post(`${baseUrl}/auth/callback/credentials`, {
    form: { csrfToken, ...account, callbackUrl: "/dashboard" },
    maxRedirects: 0,
  });
  if (answer.status() !== 302) throw new Error(`sign-in answered ${answer.status()}`);
}

/** The scripts of the build a navigation made the browser fetch, by path under `.next/`. */
function recordScripts(page: Page): Set<string> {
  const files = new Set<string>();
  page.on("response", (response) => {
    const { pathname } = new URL(response.url());
    if (pathname.startsWith("/_next/static/") && pathname.endsWith(".js")) files.add(pathname.slice("/_next/".length));
  });
  return files;
}

type PageRun = {
  loginCold: number;
  loginWarm: number;
  rowsCold: number;
  rowsWarm: number;
  filter: number;
  devicesLoad: number;
  devicesHtml: number;
  devicesApiSent: number;
  devicesApi: number;
};

/**
 * One run: a new context without a session loads /login twice (empty cache, then warm), and a
 * new signed-in context loads /devices twice and searches for one device name.
 */
async function pageRun(browser: Browser, server: RunningServer, run: number, rowsExpected: number): Promise<PageRun> {
  const anonymous = await browser.newContext();
  const signedIn = await browser.newContext();
  try {
    const login = await anonymous.newPage();
    await login.goto(`${server.url}/login`, { waitUntil: "load" });
    const loginCold = await loadEventEnd(login);
    await login.goto(`${server.url}/login`, { waitUntil: "load" });
    const loginWarm = await loadEventEnd(login);

    await signIn(signedIn, server.url);
    await signedIn.addInitScript(markScript(rowsExpected));
    const devices = await signedIn.newPage();
    await devices.goto(`${server.url}/devices`);
    const rowsCold = await waitForMark(devices, "rows");
    const devicesLoad = await loadEventEnd(devices);
    // Where the time goes: the page's HTML, and the answer of the list's API call.
    const { devicesHtml, devicesApiSent, devicesApi } = await devices.evaluate(() => {
      const call = (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).find((entry) =>
        new URL(entry.name).pathname.endsWith("/api/devices"),
      );
      return {
        devicesHtml: (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).responseEnd,
        devicesApiSent: call?.startTime ?? Number.NaN,
        devicesApi: call?.responseEnd ?? Number.NaN,
      };
    });
    await devices.goto(`${server.url}/devices`);
    const rowsWarm = await waitForMark(devices, "rows");

    // One device by name: device-N matches device-N only (names run from device-0 to device-9999).
    const search = `device-${1000 + ((run * 379) % 8000)}`;
    await devices.evaluate((query) => {
      (window as unknown as { __search: string }).__search = query;
    }, search);
    await devices.getByRole("searchbox", { name: "Search devices by name" }).fill(search);
    const filtered = await waitForMark(devices, "filtered");
    const typed = (await readMark(devices, "typed")) ?? Number.NaN;
    return {
      loginCold,
      loginWarm,
      rowsCold,
      rowsWarm,
      filter: filtered - typed,
      devicesLoad,
      devicesHtml,
      devicesApiSent,
      devicesApi,
    };
  } finally {
    await anonymous.close();
    await signedIn.close();
  }
}

/** The scripts each of these pages made a fresh, signed-in browser fetch, gzip-sized from the build. */
async function observedScripts(browser: Browser, server: RunningServer, deviceUid: string) {
  const observed: { route: string; gzipBytes: number; count: number }[] = [];
  const pages: [string, string][] = [
    ["/login", "/login"],
    ["/dashboard", "/dashboard"],
    ["/devices", "/devices"],
    ["/devices/[uid]", `/devices/${deviceUid}`],
  ];
  for (const [route, url] of pages) {
    const context = await browser.newContext();
    try {
      if (route !== "/login") await signIn(context, server.url);
      const page = await context.newPage();
      const files = recordScripts(page);
      // The event stream never ends, so "network idle" never comes: what loads within 2 s of the load event.
      await page.goto(`${server.url}${url}`, { waitUntil: "load" });
      await settle(2_000);
      const list = [...files];
      observed.push({ route, count: list.length, gzipBytes: list.reduce((sum, f) => sum + gzipSize(f), 0) });
    } finally {
      await context.close();
    }
  }
  return observed;
}

// ---------------------------------------------------------------------------------------------
// Offline to screen

type EventSeen = { type: string; uid?: string; at: string; receivedAt: number };

/** The namespace's event stream as a plain client reads it: every event with the time it arrived. */
function listenToEvents(owner: Api) {
  const seen: EventSeen[] = [];
  const abort = new AbortController();
  let failure = "";
  void (async () => {
    const response = await fetch(`${owner.baseUrl}/api/events`, {
      headers: { authorization: `Bearer ${owner.token}` },
      signal: abort.signal,
    });
    const reader = response.body?.getReader();
    if (!reader) throw new Error(`GET /api/events answered ${response.status} without a body`);
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the event stream ended");
      const receivedAt = Date.now();
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const data = buffer
          .slice(0, end)
          .split("\n")
          .find((line) => line.startsWith("data: "));
        buffer = buffer.slice(end + 2);
        if (data) seen.push({ ...(JSON.parse(data.slice(6)) as Omit<EventSeen, "receivedAt">), receivedAt });
      }
    }
  })().catch((error: unknown) => {
    if (!abort.signal.aborted) failure = String(error);
  });
  return { seen, stop: () => abort.abort(), failure: () => failure };
}

type OfflineRun = { killToDecision: number; decisionToStream: number; decisionToScreen: number };

/**
 * A real agent (`agent/main.ts`) of the namespace, accepted; the console shows its row; then,
 * `runs` times: the agent is stopped (SIGTERM), and the times of the server's offline event
 * (its `at`), of its arrival at a plain stream client and of "Offline" in the row are taken;
 * the agent is started again and the row must say "Online" before the next run.
 */
async function offlineRuns(browser: Browser, server: RunningServer, owner: Api, tenantId: string, runs: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "das-bench-agent-"));
  const start = () => spawnAgent({ server: server.url, tenantId, hostname: agentName, dataDir });
  let agent = start();
  const events = listenToEvents(owner);
  const context = await browser.newContext();
  const results: OfflineRun[] = [];
  try {
    const uid = await acceptAgentDevice(agentName, owner);
    await signIn(context, server.url);
    await context.addInitScript(markScript(1));
    const page = await context.newPage();
    await page.goto(`${server.url}/devices?q=${agentName}`);
    const row = page.getByRole("row").filter({ hasText: agentName });
    for (let run = 0; run < runs; run += 1) {
      // A heartbeat alone also says "Online"; the tunnel's close is the decision measured here.
      const current = agent;
      await waitFor(
        () => `the tunnel of ${agentName}:\n${current.output()}`,
        () => current.output().includes('"tunnel connected"'),
        60,
      );
      await row.filter({ hasText: "Online" }).waitFor({ timeout: 60_000 });
      await page.evaluate((name) => {
        const page = window as unknown as { __watch: string; __marks: Marks };
        page.__watch = name;
        delete page.__marks.offline;
      }, agentName);
      const seenBefore = events.seen.length;
      const stoppedAt = Date.now();
      const exited = new Promise((resolve) => agent.child.once("close", resolve));
      agent.child.kill("SIGTERM");
      const screenAt = await waitForMark(page, "offline", 60);
      let offline: EventSeen | undefined;
      await waitFor(`the device.offline event ${events.failure()}`, () => {
        offline = events.seen.slice(seenBefore).find((event) => event.type === "device.offline" && event.uid === uid);
        return offline !== undefined;
      });
      await exited;
      const decidedAt = Date.parse(offline?.at ?? "");
      results.push({
        killToDecision: decidedAt - stoppedAt,
        decisionToStream: (offline?.receivedAt ?? Number.NaN) - decidedAt,
        decisionToScreen: screenAt - decidedAt,
      });
      await page.evaluate(() => {
        (window as unknown as { __watch?: string }).__watch = undefined;
      });
      agent = start();
    }
    return results;
  } finally {
    agent.child.kill("SIGTERM");
    events.stop();
    await context.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------

const figure = (values: number[]) => `p50 ${median(values).toFixed(0)} / p95 ${percentile(values, 0.95).toFixed(0)} ms`;

export async function consoleBenchmark(args: Map<string, string>) {
  const count = Number(args.get("devices") ?? 10_000);
  const runs = Number(args.get("runs") ?? 20);
  const offlineCount = Number(args.get("offline-runs") ?? 5);
  ensureBuild();
  const lines = [
    `console benchmark: ${count.toLocaleString("en")} devices, ${runs} page runs, ${offlineCount} offline runs`,
  ];

  const routes = firstLoadScripts();
  lines.push("first-load JavaScript per page route (gzip, from the build's manifests):");
  for (const route of routes)
    lines.push(
      `  ${route.route.padEnd(22)} ${kib(route.gzipBytes).padStart(6)} KiB  ${route.files.length} files${route.gzipBytes > goalKiB * 1024 ? "  OVER THE GOAL" : ""}`,
    );
  const largest = routes.reduce((top, route) => (route.gzipBytes > top.gzipBytes ? route : top));
  lines.push(`  largest ${largest.route} ${kib(largest.gzipBytes)} KiB against the goal of ${goalKiB} KiB`);

  const dataDir = newDataDir();
  try {
    const tenantId = await seedDevices({ DATA_DIR: dataDir }, count, { online: false });
    const server = await startServer({ DATA_DIR: dataDir });
    const browser = await chromium.launch(chromiumLaunchOptions);
    try {
      const { token } = await api<{ token: string }>("POST", "/api/login", { baseUrl: server.url }, account);
      const owner: Api = { baseUrl: server.url, token };
      const [first] = await api<{ uid: string }[]>("GET", "/api/devices?per_page=1", owner);

      const observed = await observedScripts(browser, server, first?.uid ?? "");
      lines.push("scripts a fresh browser fetched (gzip of the same files; the check of the manifests' figure):");
      for (const entry of observed)
        lines.push(`  ${entry.route.padEnd(22)} ${kib(entry.gzipBytes).padStart(6)} KiB  ${entry.count} files`);

      await pageRun(browser, server, -1, rowsOnPage); // warm-up: the server's first renders, the browser's start
      const samples: PageRun[] = [];
      for (let run = 0; run < runs; run += 1) samples.push(await pageRun(browser, server, run, rowsOnPage));
      const of = (key: keyof PageRun) => samples.map((sample) => sample[key]);
      lines.push(
        `baseline /login (load event end): empty cache ${figure(of("loginCold"))}; warm ${figure(of("loginWarm"))}`,
        `/devices, ${rowsOnPage} of ${count.toLocaleString("en")} rows painted: empty cache ${figure(of("rowsCold"))}; warm ${figure(of("rowsWarm"))}` +
          ` (empty cache: its HTML ${figure(of("devicesHtml"))}, load event ${figure(of("devicesLoad"))},` +
          ` GET /api/devices sent ${figure(of("devicesApiSent"))} and answered ${figure(of("devicesApi"))})`,
        `  ratio p50 to /login: empty cache ${(median(of("rowsCold")) / median(of("loginCold"))).toFixed(2)}x,` +
          ` warm ${(median(of("rowsWarm")) / median(of("loginWarm"))).toFixed(2)}x; goal ${goalMs} ms:` +
          ` ${percentile(of("rowsCold"), 0.95) <= goalMs ? "met" : "NOT MET"} at p95`,
        `search (input event to the matching row painted, 300 ms debounce included): ${figure(of("filter"))};` +
          ` goal ${goalMs} ms: ${percentile(of("filter"), 0.95) <= goalMs ? "met" : "NOT MET"} at p95`,
      );

      const offline = await offlineRuns(browser, server, owner, tenantId, offlineCount);
      const offlineOf = (key: keyof OfflineRun) => offline.map((sample) => sample[key]);
      lines.push(
        `agent stopped -> offline event (its "at"): ${figure(offlineOf("killToDecision"))}`,
        `offline event -> a plain stream client (baseline): ${figure(offlineOf("decisionToStream"))}`,
        `offline event -> "Offline" painted in the row: ${figure(offlineOf("decisionToScreen"))}`,
      );
    } finally {
      await browser.close();
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
