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

const CONNECTIONS = 32;

/**
 * Where the appends go: all to one incident (as the timeline bench sends them,
 * the writes to one stream then go together in the api), or each connection to
 * an incident of its own (every append a transaction of the event store's own).
 */
type Incidents = 'one' | 'per-connection';

/** A request generator for `incidents`, created through the api at `url`. */
async function appendsTo(url: string, incidents: Incidents) {
  if (incidents === 'one') return uniqueEvents(`incident/${await newIncident(url)}`);
  const ids = await Promise.all(Array.from({ length: CONNECTIONS }, () => newIncident(url)));
  let next = 0;
  return uniqueEvents((context) => (context.subject ??= `incident/${ids[next++ % ids.length]}`));
}

/** POST /api/v1/timeline/events on one api, or split evenly over two on the same database (the second with PROJECTOR=external). */
const apis = (seconds: number, count: 1 | 2, incidents: Incidents) =>
  onNewDatabase(`pg_api${count}`, (databaseUrl) =>
    withBuiltServer('bench-pg-api', POSTGRES_ENV(databaseUrl), async (first, _dataDir, pid) => {
      const requests = [await appendsTo(first, incidents)];
      // autocannon spreads its connections over several urls (its README), which its types do not say.
      const appendTo = (urls: string[]) =>
        withCpu(pid, () => load({ url: urls.map((url) => `${url}/api/v1/timeline/events`) as unknown as string, headers: HEADERS, requests, connections: CONNECTIONS, duration: seconds }));
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
    rows.push(formatRow(`round ${round}: bare node:http + pg insert (ceiling)`, bare));
    const ratio = (a: LoadResult, b: LoadResult) => (a.rps / b.rps).toFixed(2);
    const found: string[] = [];
    for (const incidents of ['one', 'per-connection'] as const) {
      const one = await apis(seconds, 1, incidents);
      const two = await apis(seconds, 2, incidents);
      const where = incidents === 'one' ? 'one incident' : 'an incident per connection';
      rows.push(formatRow(`round ${round}: POST /api/v1/timeline/events, one api, ${where}`, one));
      rows.push(formatRow(`round ${round}: the same split over two apis on one database`, two));
      found.push(`${where}: one api / ceiling **${ratio(one, bare)}**, two apis / one **${ratio(two, one)}**`);
      if (incidents === 'one') costs.push(`round ${round}: ceiling ${bare.cpuUs}, api ${one.cpuUs} (${(one.cpuUs / bare.cpuUs).toFixed(1)} ×)`);
    }
    ratios.push(`round ${round}: ${found.join('; ')}`);
  }
  return [
    '## PostgreSQL appends against the bare ceiling',
    '',
    `Unique events (new id and im.origin_id each) at ${CONNECTIONS} connections, ${seconds} s each, on PostgreSQL 15 at 127.0.0.1 (synchronous_commit on), each run on a database of its own, all interleaved over ${ROUNDS} rounds in the same invocation (\`bench/postgres.bench.ts\`). The ceiling is \`bench/bare-append-postgres.server.ts\`: node:http + pg (a Pool of the driver's default 10 connections, as the api's stores have), one INSERT per request into a table with a unique index on (source, origin id). The api is the built one with EVENT_STORE=postgres READ_STORE=postgres; it adds JWT verification, schema validation, the dedup lookup, the decider, the append (positions ordered by the log head's row lock; a process's concurrent appends group-committed) and waiting for every projection before answering. "One incident" sends every event to one incident, as the timeline bench does (the api then appends the writes to one stream together); "an incident per connection" gives each connection its own, so appends to many streams meet in the event store. Two apis: a second process on the same database with PROJECTOR=external (it serves and waits for the first one's projections through their checkpoints), the connections split evenly between them. PostgreSQL, the api(s) and the load generator share this machine's cores.`,
    '',
    ...TABLE_HEAD,
    ...rows,
    '',
    `Ratios: ${ratios.join('; ')}.`,
    '',
    `Server CPU per append (µs, every thread of the Node process, user + system from /proc; PostgreSQL's own backends not counted): ${costs.join('; ')}.`,
  ].join('\n');
}
