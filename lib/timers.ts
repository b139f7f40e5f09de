import { unscopedPurgeStaleAttempts } from "./auth/lockout";
import { type Config, isBillingOn } from "./config";
import type { Db } from "./db";
import { errorText } from "./errors";
import { log } from "./log";
import { startDelivery, unscopedPurgeOutbox } from "./mail/outbox";
import { unscopedMarkSilentDevicesOffline } from "./services/agent";
import { unscopedPurgeAudit } from "./services/audit";
import { unscopedReconcileBilling } from "./services/billing";
import { unscopedSyncDueConnectors } from "./services/connector-sync";
import { unscopedPruneTransitions } from "./services/diagnostics";
import { eventRetentionSeconds, unscopedPurgeEvents } from "./services/events";
import { unscopedAnalyzeDueTable, unscopedVacuumDueTable, unscopedVacuumStalestTable } from "./services/maintenance";
import { unscopedPurgeRateLimits } from "./services/rate-limit";
import { unscopedPurgeExpiredTerminalTickets } from "./services/terminal";
import { unscopedPurgeExpiredTokens } from "./services/user-tokens";
import { startWebhookDelivery, unscopedPurgeWebhookDeliveries } from "./services/webhook-delivery";

/**
 * Runs `task` every `seconds`. A run still going when the next is due makes that one skip: a
 * slow vacuum or sync never queues a second one behind it.
 */
export function every(seconds: number, name: string, task: () => Promise<unknown>) {
  let isRunning = false;
  const timer = setInterval(() => {
    if (isRunning) return;
    isRunning = true;
    task()
      .catch((error: unknown) => log.warn(`${name} failed`, { error: errorText(error) }))
      .finally(() => {
        isRunning = false;
      });
  }, seconds * 1000);
  timer.unref();
  return timer;
}

/**
 * `task`, put off while `isBusy` answers true, but at most `maxSeconds` after it was first put off:
 * work that can wait gives way to a burst without being starved by a load that never ends.
 */
export function unlessBusy(isBusy: () => boolean, maxSeconds: number, task: () => Promise<unknown>, now = Date.now) {
  let putOffSince: number | undefined;
  return async () => {
    if (isBusy()) {
      putOffSince ??= now();
      if (now() - putOffSince < maxSeconds * 1000) return;
    }
    putOffSince = undefined;
    await task();
  };
}

/** The longest the server's own database maintenance waits for a fleet to reconnect. */
const maintenanceWaitMaxSeconds = 60;

/**
 * The server's background work: devices that went silent, expired counters, tokens and events,
 * mail and webhooks to send; the database's vacuums when it runs no autovacuum (`runsAutovacuum`).
 * `isReconnecting`: whether a fleet is reconnecting (tunnel upgrades wait in line), during which
 * that maintenance waits.
 */
export function startTimers(
  db: Db,
  config: Config,
  { runsAutovacuum, isReconnecting = () => false }: { runsAutovacuum: boolean; isReconnecting?: () => boolean },
) {
  const maintenance = (task: () => Promise<unknown>) => unlessBusy(isReconnecting, maintenanceWaitMaxSeconds, task);
  return [
    every(Math.min(30, config.DEVICE_OFFLINE_SECONDS / 2), "marking silent devices offline", () =>
      unscopedMarkSilentDevicesOffline(db, config.DEVICE_OFFLINE_SECONDS),
    ),
    every(60, "purging old events", () => unscopedPurgeEvents(db, eventRetentionSeconds)),
    every(600, "pruning device transitions", () => unscopedPruneTransitions(db)),
    every(600, "purging login attempts", () => unscopedPurgeStaleAttempts(db, config.LOCKOUT_MAX_MINUTES)),
    every(3600, "purging rate limits", () => unscopedPurgeRateLimits(db)),
    every(3600, "purging expired tokens", () => unscopedPurgeExpiredTokens(db)),
    every(3600, "purging expired terminal tokens", () => unscopedPurgeExpiredTerminalTickets(db)),
    every(86_400, "purging the mail outbox", () => unscopedPurgeOutbox(db)),
    // Deliveries are written in the transactions of their events, on any instance: looked for every second.
    every(1, "delivering webhooks", async () => startWebhookDelivery()),
    every(3600, "purging webhook deliveries", () => unscopedPurgeWebhookDeliveries(db)),
    ...(config.AUDIT_RETENTION_DAYS > 0
      ? [every(3600, "purging the audit trail", () => unscopedPurgeAudit(db, config.AUDIT_RETENTION_DAYS))]
      : []),
    ...(config.SMTP_URL
      ? [every(Math.min(15, config.MAIL_RETRY_SECONDS), "delivering mail", async () => startDelivery())]
      : []),
    // The processor is the source of truth: a missed webhook is made good within a day.
    ...(isBillingOn(config) ? [every(86_400, "reconciling billing", () => unscopedReconcileBilling(db))] : []),
    // A PostgreSQL server with autovacuum on vacuums itself. Otherwise (the embedded database, or
    // a server with autovacuum off) this server does: one table every 10 minutes, and every 5 s
    // the table due for new statistics (each at most every 10 minutes) or, if none, the one due
    // for a vacuum (lib/services/maintenance.ts). On the embedded database every statement waits
    // while either runs: a check every 30 s let the heartbeats of 10,000 devices leave ten times
    // their rows dead, for a 150 ms vacuum and analyze (docs/performance.md). Statistics first, or
    // a fleet's heartbeats, whose presence rows are always due for a vacuum, would starve them.
    // Both wait while a fleet reconnects (at most a minute): an ANALYZE of the rows its tunnels
    // had just added took 248 ms, and the API's calls waited behind it.
    ...(runsAutovacuum
      ? []
      : [
          every(
            600,
            "vacuuming the database",
            maintenance(() => unscopedVacuumStalestTable(db)),
          ),
          every(
            5,
            "analyzing or vacuuming the database's busiest table",
            maintenance(async () => (await unscopedAnalyzeDueTable(db)) ?? (await unscopedVacuumDueTable(db))),
          ),
        ]),
  ];
}

/**
 * The connectors' status worker (cloud edition): every CONNECTOR_SYNC_SECONDS, the due connectors
 * this instance holds or can take are synced with their engines (docs/connectors.md). A round
 * still running when the next is due makes that one skip.
 */
export function startConnectorWorker(db: Db, config: Config, instance: string) {
  return every(config.CONNECTOR_SYNC_SECONDS, "syncing connectors", () =>
    unscopedSyncDueConnectors(db, instance, config.CONNECTOR_SYNC_SECONDS),
  );
}
