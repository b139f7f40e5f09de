import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { ensureBuild } from "../lib/build/ensure-build";
import { openDatabase } from "../lib/db";
import { appendFrames, createSession, type Frame, maxFramesPerBatch } from "../lib/services/sessions";
import { chromiumLaunchOptions } from "../testing/chromium";
import { newDataDir } from "../testing/data-dir";
import { type RunningServer, startServer } from "../testing/server";
import { signIn } from "./console";
import { seedDevices } from "./devices";
import { type Api, api, median, percentile, rssKiB, settle } from "./kit";

/**
 * `npm run bench -- player [--minutes 60] [--frames-per-second 10] [--runs 5]`: the session
 * player against the production build. A recording of that length (a frame of shell output every
 * 100 ms: 36,000 frames, about 6 MB of output) and one of a minute are seeded; the figures:
 * - the time from the player's request of the recording to its first frame on the screen, in
 *   real Chromium, for both (the one-minute recording is the baseline: a player that loads the
 *   whole recording first scales with its length; goal 500 ms for the hour);
 * - the same through plain HTTP: first line of `GET /api/sessions/{uid}/cast`, whole file, and
 *   the whole JSON of `GET /api/sessions/{uid}/play`;
 * - the server's memory (RSS) while three browsers replay the hour at once, against its size at
 *   rest and the recording's size.
 */

const account = { username: "bench", password: "bench-password" };
const goalMs = 500;
const marker = "bench-first-frame";

/** Plausible shell output: a prompt, a command, colours, some lines of listing. */
function frameText(index: number) {
  if (index === 0) return `${marker}\r\n`;
  const kind = index % 4;
  if (kind === 0) return `\u001b[1;32mroot@board\u001b[0m:\u001b[1;34m~\u001b[0m$ `;
  if (kind === 1) return `ls -la /var/log/app-${index}\r\n`;
  if (kind === 2)
    return `-rw-r--r-- 1 root root ${(index * 7919) % 100_000} Nov 25 10:${String(index % 60).padStart(2, "0")} app-${index}.log\r\n`;
  return `\u001b[33mwarning\u001b[0m: line ${index} of the log has ${index % 97} fields\r\n`;
}

async function seedRecordings(dataDir: string, lengths: { name: string; seconds: number }[], perSecond: number) {
  const tenantId = await seedDevices({ DATA_DIR: dataDir }, 1, { online: false });
  const deviceUid = createHash("sha256").update("bench-0").digest("hex");
  const database = await openDatabase({
    DATA_DIR: dataDir,
    DATABASE_POOL_SIZE: 2,
    DATABASE_STATEMENT_TIMEOUT_SECONDS: 30,
  });
  const seeded: Record<string, { uid: string; frames: number; bytes: number }> = {};
  try {
    for (const { name, seconds } of lengths) {
      const uid = createHash("sha256").update(`bench-session-${name}`).digest("hex");
      await createSession(database.db, {
        uid,
        tenantId,
        deviceUid,
        username: "root",
        ipAddress: "192.0.2.10",
        type: "shell",
        term: "xterm-256color",
        recorded: true,
      });
      const startedAt = Date.now() - seconds * 1000;
      const total = Math.round(seconds * perSecond);
      let bytes = 0;
      for (let start = 0; start < total; start += maxFramesPerBatch) {
        const batch: Frame[] = [];
        for (let index = start; index < Math.min(total, start + maxFramesPerBatch); index += 1) {
          const message = frameText(index);
          bytes += Buffer.byteLength(message);
          batch.push({ time: new Date(startedAt + (index * 1000) / perSecond), message, width: 120, height: 36 });
        }
        await appendFrames(database.db, tenantId, uid, batch);
      }
      seeded[name] = { uid, frames: total, bytes };
    }
  } finally {
    await database.close();
  }
  return seeded;
}

/** First line (the header and the first event) and whole answer of a GET, in ms. */
async function timedGet(url: string, token: string) {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok || !response.body) throw new Error(`${url} answered ${response.status}`);
  const reader = response.body.getReader();
  let firstChunk = 0;
  let bytes = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (!firstChunk) firstChunk = performance.now() - started;
    bytes += value.length;
  }
  return { firstChunk, whole: performance.now() - started, bytes };
}

/**
 * One replay in a new signed-in context: from the player's request of the recording to the first
 * frame's text on the screen, and to the whole recording loaded.
 */
async function replay(browser: Browser, server: RunningServer, uid: string) {
  const context = await browser.newContext();
  try {
    await signIn(context, server.url);
    const page = await context.newPage();
    // The browser's resource timing has no entry for a response still streaming: the request's
    // start is taken as Playwright sees it go out, on this process's clock like the rest.
    let requested = Number.NaN;
    page.on("request", (request) => {
      if (request.url().endsWith(`/api/sessions/${uid}/cast`)) requested = performance.now();
    });
    await page.goto(`${server.url}/sessions/${uid}`);
    await page.waitForFunction((text) => window.__terminals?.player?.().includes(text), marker, {
      polling: "raf",
      timeout: 30_000,
    });
    const painted = performance.now();
    await page.getByText("Loading the recording").waitFor({ state: "detached", timeout: 120_000 });
    return { firstFrame: painted - requested, wholeLoaded: performance.now() - requested };
  } finally {
    await context.close();
  }
}

const figure = (values: number[]) =>
  `p50 ${median(values).toFixed(0)} ms, p95 ${percentile(values, 0.95).toFixed(0)} ms`;

export async function playerBenchmark(args: Map<string, string>) {
  const minutes = Number(args.get("minutes") ?? 60);
  const perSecond = Number(args.get("frames-per-second") ?? 10);
  const runs = Number(args.get("runs") ?? 5);
  await ensureBuild();
  const dataDir = newDataDir();
  const lines = [`player benchmark: a ${minutes}-minute recording, ${perSecond} frames a second, ${runs} runs`];
  try {
    const seeded = await seedRecordings(
      dataDir,
      [
        { name: "short", seconds: 60 },
        { name: "long", seconds: minutes * 60 },
      ],
      perSecond,
    );
    const long = seeded.long as { uid: string; frames: number; bytes: number };
    const short = seeded.short as { uid: string; frames: number; bytes: number };
    lines.push(
      `recordings: one minute ${short.frames.toLocaleString("en")} frames; the long one ${long.frames.toLocaleString("en")} frames, ${(long.bytes / 1048576).toFixed(1)} MiB of output`,
    );
    const server = await startServer({ DATA_DIR: dataDir });
    const browser = await chromium.launch(chromiumLaunchOptions);
    try {
      const { token } = await api<{ token: string }>("POST", "/api/login", { baseUrl: server.url }, account);
      const owner: Api = { baseUrl: server.url, token };
      await api("GET", `/api/sessions/${long.uid}`, owner);

      // Plain HTTP.
      const http = {
        session: [] as number[],
        castFirst: [] as number[],
        castWhole: [] as number[],
        playWhole: [] as number[],
      };
      let castBytes = 0;
      let playBytes = 0;
      for (let run = 0; run < runs; run += 1) {
        http.session.push((await timedGet(`${server.url}/api/sessions/${long.uid}`, token)).whole);
        const cast = await timedGet(`${server.url}/api/sessions/${long.uid}/cast`, token);
        const play = await timedGet(`${server.url}/api/sessions/${long.uid}/play`, token);
        http.castFirst.push(cast.firstChunk);
        http.castWhole.push(cast.whole);
        http.playWhole.push(play.whole);
        castBytes = cast.bytes;
        playBytes = play.bytes;
      }
      lines.push(
        `HTTP, the long recording: GET /api/sessions/{uid} (baseline, one small JSON) ${figure(http.session)}; first chunk of /cast ${figure(http.castFirst)}; whole /cast (${(castBytes / 1048576).toFixed(1)} MiB) ${figure(http.castWhole)}; whole /play JSON (${(playBytes / 1048576).toFixed(1)} MiB) ${figure(http.playWhole)}`,
      );

      // Chromium, one replay at a time; the first run of each warms the server's pages up.
      await replay(browser, server, short.uid);
      const browserRuns = { short: [] as number[], long: [] as number[], longLoaded: [] as number[] };
      for (let run = 0; run < runs; run += 1) {
        browserRuns.short.push((await replay(browser, server, short.uid)).firstFrame);
        const longRun = await replay(browser, server, long.uid);
        browserRuns.long.push(longRun.firstFrame);
        browserRuns.longLoaded.push(longRun.wholeLoaded);
      }
      const ratio = median(browserRuns.long) / median(browserRuns.short);
      lines.push(
        `player, request of the recording -> first frame on screen: one minute (baseline) ${figure(browserRuns.short)}; ${minutes} minutes ${figure(browserRuns.long)}`,
        `  ratio ${minutes} min / 1 min at p50: ${ratio.toFixed(2)}x; goal ${goalMs} ms: ${percentile(browserRuns.long, 0.95) <= goalMs ? "met" : "NOT MET"} at p95`,
        `  the whole ${minutes}-minute recording loaded (search complete): ${figure(browserRuns.longLoaded)}`,
      );

      // Three browsers at once, the server's memory sampled every 100 ms.
      const pid = server.process.pid ?? 0;
      await settle(2_000);
      const rest = rssKiB(pid);
      let peak = rest;
      let isSampling = true;
      const sampling = (async () => {
        while (isSampling) {
          peak = Math.max(peak, rssKiB(pid));
          await settle(100);
        }
      })();
      const together = await Promise.all([1, 2, 3].map(() => replay(browser, server, long.uid)));
      isSampling = false;
      await sampling;
      lines.push(
        `three browsers replaying the ${minutes}-minute recording at once: first frame ${figure(together.map((run) => run.firstFrame))}, all loaded ${figure(together.map((run) => run.wholeLoaded))}`,
        `  server RSS at rest ${(rest / 1024).toFixed(0)} MiB, peak ${(peak / 1024).toFixed(0)} MiB (+${((peak - rest) / 1024).toFixed(0)} MiB) for 3 x ${(castBytes / 1048576).toFixed(1)} MiB streamed`,
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
