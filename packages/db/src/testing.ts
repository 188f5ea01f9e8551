import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_POSTGRES_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A fresh database on the machine's Postgres (or the server of `adminUrl`, e.g. a private one a
 * test restarts) for one test file, so test files run in parallel.
 */
export async function createTestDatabase(
  prefix: string,
  adminUrl: string = TEST_POSTGRES_URL,
): Promise<TestDatabase> {
  const name = `t_${prefix.replace(/\W/g, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await adminQuery(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => adminQuery(adminUrl, `drop database if exists ${name} with (force)`),
  };
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
