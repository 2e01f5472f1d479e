import { randomUUID } from 'node:crypto';
import { Client } from 'pg';

/** The machine's PostgreSQL (trust auth); POSTGRES_TEST_URL points elsewhere. Tests make a database of their own on it. */
export const POSTGRES_SERVER_URL = process.env.POSTGRES_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TemporaryDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function onServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: POSTGRES_SERVER_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database for one test file; `drop` ends its sessions and removes it. */
export async function temporaryDatabase(purpose: string): Promise<TemporaryDatabase> {
  const name = `im_test_${purpose.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomUUID().slice(0, 8)}`;
  await onServer((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
