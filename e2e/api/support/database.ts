import { randomBytes } from "node:crypto";
import pg from "pg";

/** A fresh, empty PostgreSQL database on the server named by `adminUrl`, dropped by `drop()`. */
export async function createTestDatabase(adminUrl: string) {
  const name = `das_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
