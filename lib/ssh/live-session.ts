import { randomBytes } from "node:crypto";
import type { Db } from "../db";
import { errorText } from "../errors";
import { log } from "../log";
import { processSingleton } from "../process-state";
import { hub } from "../services/events";
import {
  createSession,
  endSession,
  sessionClosed,
  touchSessions,
  unscopedInactiveSessions,
  unscopedSetAuthenticated,
  unscopedSetSessionKind,
} from "../services/sessions";
import type { TargetDevice } from "../services/ssh-access";
import { Recorder } from "./recorder";

const touchEveryMs = 30_000;

function registry() {
  return processSingleton("live sessions", () => {
    const sessions = new Map<string, LiveSession>();
    // `POST /api/sessions/{uid}/close` drops the live connection of that session: at once when
    // answered on this instance, as soon as its `session.ended` event arrives when answered on
    // another (docs/scaling.md). A session that ended here is out of the map already.
    sessionClosed.on((closed) => sessions.get(closed.uid)?.close("closed through the API"));
    hub().subscribeAll((event) => {
      if (event.type === "session.ended") sessions.get(event.uid)?.close("closed through the API");
    });
    return { sessions };
  });
}

export const newSessionUid = () => randomBytes(32).toString("hex");

/**
 * Closes the live sessions of this instance whose row was marked inactive by another instance
 * (`POST /api/sessions/{uid}/close` answered there): run every 30 s, for an event that did not
 * arrive (the event history keeps 10 minutes).
 */
export async function closeSessionsEndedElsewhere(db: Db) {
  const live = [...registry().sessions.keys()];
  if (live.length === 0) return;
  for (const uid of await unscopedInactiveSessions(db, live))
    registry().sessions.get(uid)?.close("closed through the API");
}

/**
 * The session row of one gateway connection (or browser terminal): created at the first real
 * login attempt, kept fresh while data flows, recorded when the namespace records sessions,
 * ended (with the reason) when the connection closes.
 */
export class LiveSession {
  private recorder?: Recorder;
  private hasTraffic = false;
  private readonly touchTimer: NodeJS.Timeout;
  private isEnded = false;
  reason = "";

  private constructor(
    private readonly db: Db,
    readonly uid: string,
    readonly device: TargetDevice,
    private readonly onClose: (reason: string) => void,
  ) {
    this.touchTimer = setInterval(() => this.touch(), touchEveryMs);
    this.touchTimer.unref();
  }

  static async start(
    db: Db,
    input: { uid: string; device: TargetDevice; username: string; ipAddress: string },
    onClose: (reason: string) => void,
  ) {
    await createSession(db, {
      uid: input.uid,
      tenantId: input.device.tenantId,
      deviceUid: input.device.uid,
      username: input.username,
      ipAddress: input.ipAddress,
      type: "",
      term: "",
      recorded: input.device.isRecorded,
    });
    const session = new LiveSession(db, input.uid, input.device, onClose);
    registry().sessions.set(input.uid, session);
    return session;
  }

  async authenticated() {
    await unscopedSetAuthenticated(this.db, this.uid, true);
  }

  /** The first channel names the session's type; a terminal starts the recording. */
  channelStarted(type: string, terminal?: { term: string; cols: number; rows: number }) {
    unscopedSetSessionKind(this.db, this.uid, type, terminal?.term ?? "").catch((error: unknown) =>
      log.warn("setting the session type failed", { session: this.uid, error: errorText(error) }),
    );
    if (terminal && this.device.isRecorded && !this.recorder) {
      this.recorder = new Recorder(this.db, this.device.tenantId, this.uid, {
        width: terminal.cols,
        height: terminal.rows,
      });
    }
  }

  /** Output shown on the user's terminal. */
  output(chunk: Buffer) {
    this.hasTraffic = true;
    this.recorder?.write(chunk);
  }

  input() {
    this.hasTraffic = true;
  }

  resize(cols: number, rows: number) {
    this.recorder?.resize(cols, rows);
  }

  private touch() {
    if (!this.hasTraffic) return;
    this.hasTraffic = false;
    touchSessions(this.db, this.device.uid, this.device.tenantId, [this.uid]).catch((error: unknown) =>
      log.warn("touching the session failed", { session: this.uid, error: errorText(error) }),
    );
  }

  /** Asks the connection to close (API close); `end` follows from the connection's close. */
  close(reason: string) {
    this.reason ||= reason;
    this.onClose(reason);
  }

  async end() {
    if (this.isEnded) return;
    this.isEnded = true;
    clearInterval(this.touchTimer);
    registry().sessions.delete(this.uid);
    await this.recorder?.close();
    await endSession(this.db, this.device.tenantId, this.uid, this.reason);
  }
}
