import { join } from 'node:path';
import { startServer } from '../test/support/server-process';
import { tempDir } from '../test/support/temp-dir';
import { temporaryDatabase } from '../test/support/postgres-database';
import { withCpu } from './support/cpu-time';
import { formatRow, listeningUrl, load, type LoadResult, startTsServer, TABLE_HEAD, withBuiltServer } from './support/load';
import { AUTH, uniqueEvents } from './timeline.bench';

const HEADERS = { 'content-type': 'application/cloudevents+json', authorization: AUTH };

/** Runs `work` on a database of its own, dropped after. */
async function onNewDatabase<T>(purpose: string, work: (url: string) => Promise<T>): Promise<T> {
  const database = await temporaryDatabase(`bench_${purpose}`);
  try {
    return await work(database.url);
  } finally {
    await database.drop();
  }
}

/** The ceiling: bare node:http + pg, one INSERT per request with the idempotency index, on a new database. */
const ceiling = (seconds: number) =>
  onNewDatabase('pg_ceiling', async (databaseUrl) => {
    const bare = startTsServer(join(__dirname, 'bare-append-postgres.server.ts'), [databaseUrl]);
    try {
      const url = `${await listeningUrl(bare)}/`;
      return await withCpu(bare.pid!, () => load({ url, headers: HEADERS, requests: [uniqueEvents('incident/INC-00000001')], duration: seconds }));
    } finally {
      bare.kill('SIGTERM');
      await new Promise((resolve) => bare.once('exit', resolve));
    }
  });

const POSTGRES_ENV = (databaseUrl: string) => ({ EVENT_STORE: 'postgres', READ_STORE: 'postgres', POSTGRES_URL: databaseUrl });

/** An incident to append to, created through the api. */
async function newIncident(url: string): Promise<string> {
  const created = await fetch(`${url}/api/v1/incidents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Bench', severity: 'SEV-3' }),
  });
  return ((await created.json()) as { id: string }).id;
}

/** POST /api/v1/timeline/events on one api, or split evenly over two on the same database (the second with PROJECTOR=external). */
const apis = (seconds: number, count: 1 | 2) =>
  onNewDatabase(`pg_api${count}`, (databaseUrl) =>
    withBuiltServer('bench-pg-api', POSTGRES_ENV(databaseUrl), async (first, _dataDir, pid) => {
      const id = await newIncident(first);
      // autocannon spreads its connections over several urls (its README), which its types do not say.
      const appendTo = (urls: string[]) =>
        withCpu(pid, () => load({ url: urls.map((url) => `${url}/api/v1/timeline/events`) as unknown as string, headers: HEADERS, requests: [uniqueEvents(`incident/${id}`)], duration: seconds }));
      if (count === 1) return appendTo([first]);
      const dir = tempDir('bench-pg-api-2');
      const second = await startServer({ ...POSTGRES_ENV(databaseUrl), PROJECTOR: 'external', DATA_DIR: dir.path }, 60_000);
      try {
        return await appendTo([first, second.url]);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
        dir.remove();
      }
    }),
  );

const ROUNDS = 2;

/**
 * Appends on PostgreSQL: the bare ceiling, one api, two apis on one database,
 * interleaved over two rounds in the same invocation (the machine's other load
 * and its disk drift, so compare within a round).
 */
export async function postgresAppends(seconds: number): Promise<string> {
  const rows: string[] = [];
  const ratios: string[] = [];
  const costs: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const bare = await ceiling(seconds);
    const one = await apis(seconds, 1);
    const two = await apis(seconds, 2);
    rows.push(formatRow(`round ${round}: bare node:http + pg insert (ceiling)`, bare));
    rows.push(formatRow(`round ${round}: POST /api/v1/timeline/events, one api`, one));
    rows.push(formatRow(`round ${round}: the same split over two apis on one database`, two));
    ratios.push(`round ${round}: one api / ceiling **${(one.rps / bare.rps).toFixed(2)}**, two apis / one **${(two.rps / one.rps).toFixed(2)}**`);
    costs.push(`round ${round}: ceiling ${bare.cpuUs}, api ${one.cpuUs} (${(one.cpuUs / bare.cpuUs).toFixed(1)} ×)`);
  }
  return [
    '## PostgreSQL appends against the bare ceiling',
    '',
    `Unique events (new id and im.origin_id each) at 32 connections, ${seconds} s each, on PostgreSQL 15 at 127.0.0.1 (synchronous_commit on), each run on a database of its own, the three interleaved over ${ROUNDS} rounds in the same invocation (\`bench/postgres.bench.ts\`). The ceiling is \`bench/bare-append-postgres.server.ts\`: node:http + pg (a Pool of the driver's default 10 connections), one INSERT per request into a table with a unique index on (source, origin id). The api is the built one with EVENT_STORE=postgres READ_STORE=postgres; it adds JWT verification, schema validation, the dedup lookups, the decider, the append to the event store (its positions ordered by the log head's row lock) and waiting for every projection before answering. Two apis: a second process on the same database with PROJECTOR=external (it serves; the first projects), the 32 connections split evenly between them. PostgreSQL, the api(s) and the load generator share this machine's cores.`,
    '',
    ...TABLE_HEAD,
    ...rows,
    '',
    `Ratios: ${ratios.join('; ')}.`,
    '',
    `Server CPU per append (µs, every thread of the Node process, user + system from /proc; PostgreSQL's own backends not counted): ${costs.join('; ')}.`,
  ].join('\n');
}
