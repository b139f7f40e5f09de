import { errorText } from "./errors";
import { log } from "./log";

/**
 * State kept once per process. Next.js bundles route handlers apart from server.ts, so a module
 * can be loaded twice and a plain module-level variable would exist twice: every per-process
 * value (database handle, keys, registries, listeners) lives in this one map on globalThis,
 * under a name.
 */
const store = globalThis as typeof globalThis & { __deviceAccess?: Map<string, unknown> };
store.__deviceAccess ??= new Map();
const slots = store.__deviceAccess;

/** The process's one value of this name, made by `create` on first use. */
export function processSingleton<T>(name: string, create: () => T): T {
  if (!slots.has(name)) slots.set(name, create());
  return slots.get(name) as T;
}

/** The most devices a per-device cache holds (proofs verified, tokens signed, rows the heartbeat writer wrote). */
export const maxCachedDevices = 200_000;

/**
 * Sets an entry of a cache whose entries are cheap to make again, forgetting them all first when
 * it holds `max`: no bookkeeping per entry, and a forgotten one is made again on its next use.
 */
export function setInCache<K, V>(cache: Map<K, V>, key: K, value: V, max: number): void {
  if (cache.size >= max && !cache.has(key)) cache.clear();
  cache.set(key, value);
}

/** A per-process value that is set later (e.g. by server.ts at start) and may be unset. */
export function processSlot<T>(name: string) {
  return {
    get: () => slots.get(name) as T | undefined,
    set: (value: T | undefined) => {
      if (value === undefined) slots.delete(name);
      else slots.set(name, value);
    },
  };
}

/**
 * A per-process event: listeners subscribe with `on` (which returns the function that
 * unsubscribes), `emit` calls each of them; a listener that throws is logged and does not stop
 * the others.
 */
export function processEvent<T>(name: string) {
  const listeners = processSingleton(`event:${name}`, () => new Set<(value: T) => void>());
  return {
    on(listener: (value: T) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(value: T) {
      for (const listener of listeners) {
        try {
          listener(value);
        } catch (error) {
          log.warn(`a listener of ${name} failed`, { value, error: String(error) });
        }
      }
    },
  };
}

/**
 * A round of background work that runs once at a time per process, returned as the function that
 * starts it: asked while it runs, it runs once more right after. Never throws (a failed round is
 * logged).
 */
export function processRound(name: string, round: () => Promise<void>): () => void {
  const state = processSingleton(`round:${name}`, () => ({ running: false, again: false }));
  return () => {
    if (state.running) {
      state.again = true;
      return;
    }
    state.running = true;
    void (async () => {
      do {
        state.again = false;
        await round().catch((error: unknown) => log.warn(`${name} failed`, { error: errorText(error) }));
      } while (state.again);
      state.running = false;
    })();
  };
}
