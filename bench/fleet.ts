import { createHash, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { signDeviceToken } from "../lib/auth/jwt";
import { newDataDir } from "../testing/data-dir";
import { createTestDatabase } from "../testing/database";
import { seedDevices } from "./devices";
import { type SimulatedDevice, simulatedKey } from "./kit";

/**
 * `count` accepted devices, offline, seeded straight into new data (PGlite in a new DATA_DIR, or a
 * new database on the PostgreSQL server), sharing one key, each with its device token signed here
 * with the server's secret (`env` carries it): a fleet one process can hold the tunnels of.
 * `remove` deletes the data.
 */
export async function seededFleet(kind: "pglite" | "postgres", count: number) {
  const secret = randomBytes(32).toString("hex");
  process.env.JWT_SECRET = secret;
  const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const database = kind === "postgres" ? await createTestDatabase(adminUrl) : undefined;
  const dataDir = newDataDir();
  const env = { DATABASE_URL: database?.url, DATA_DIR: dataDir, JWT_SECRET: secret };
  const remove = async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const key = simulatedKey();
    const tenantId = await seedDevices(env, count, { online: false, publicKey: key.pem });
    const devices: SimulatedDevice[] = await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const uid = createHash("sha256").update(`bench-${index}`).digest("hex");
        return { uid, token: signDeviceToken({ uid, tenant: tenantId }), privateKey: key.privateKey };
      }),
    );
    return { env, devices, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

export const loadAverage = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");
