import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { token } from '../test/support/tokens';
import { withCpu } from './support/cpu-time';
import { formatRow, listeningUrl, load, type LoadResult, startTsServer, TABLE_HEAD, withBuiltServer } from './support/load';

const INCIDENTS = 10_000;
const RESPONDER = 'responder-1';
const ROUNDS = 2;
const WARM_UP_SECONDS = 5;
export const MY_INCIDENTS = '{ myIncidents { id title severity status lastUpdate } }';
export const INCIDENT_STATUS = '{ incidentStatus(id: "INC-00001389") { id title severity status assignedTo { id role } lastUpdate quickTimeline { id type summary time } } }';
/** The caller of every query: IC of half the incidents. */
export const GRAPHQL_READER = { sub: RESPONDER, roles: ['timeline.reader'], clearance: 'internal' };

/** 10,000 incidents written straight into a ledger, each with responder-1 as IC and a few notes. */
export async function seed(dataDir: string): Promise<void> {
  const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
  const base = Date.UTC(2026, 0, 1);
  const severities = ['SEV-1', 'SEV-2', 'SEV-3', 'SEV-4'];
  for (let i = 0; i < INCIDENTS; i++) {
    const id = `INC-${i.toString(16).padStart(8, '0')}`;
    const time = (n: number) => new Date(base + i * 60_000 + n * 1000).toISOString();
    const event = (n: number, type: string, data: Record<string, unknown>) => ({
      specversion: '1.0' as const,
      id: randomUUID(),
      source: 'im://seed',
      type,
      time: time(n),
      subject: `incident/${id}`,
      'im.actor': RESPONDER,
      data,
    });
    await store.append(
      `incident-${id}`,
      [
        event(0, 'im.incident.declare', { title: `Seeded incident ${i}`, severity: severities[i % 4] }),
        event(1, 'im.incident.role_assigned', { role: 'IC', user_id: i % 2 ? RESPONDER : 'someone-else' }),
        ...Array.from({ length: 6 }, (_, n) => event(n + 2, 'im.incident.note', { content: `Update ${n}` })),
      ],
      'no_stream',
    );
  }
  await store.close();
}

/**
 * GraphQL `myIncidents` and `incidentStatus` with 10,000 incidents (5,000 of them the caller's),
 * each against the framework ceiling (bench/graphql-ceiling.server.ts), interleaved in rounds.
 */
export async function graphqlReads(seconds: number): Promise<string> {
  const ceiling = startTsServer(join(__dirname, 'graphql-ceiling.server.ts'));
  try {
    const ceilingUrl = await listeningUrl(ceiling);
    return await withBuiltServer('bench-graphql', { PROJECTION_WAIT_MS: '600000' }, (url, _dir, pid) => measure({ url, pid }, { url: ceilingUrl, pid: ceiling.pid! }, seconds), seed);
  } finally {
    ceiling.kill('SIGTERM');
  }
}

interface Server {
  url: string;
  pid: number;
}

/** The seeded incident recorded last: the caller is its IC, so it leads their list once everything is projected. */
const NEWEST = `INC-${(INCIDENTS - 1).toString(16).padStart(8, '0')}`;

/** Resolves once the api at `url` has projected the seeded ledger: the newest incident leads the caller's list. */
export async function untilProjected(url: string, headers: Record<string, string>): Promise<void> {
  const body = JSON.stringify({ query: '{ myIncidents(limit: 1) { id } }' });
  const answer = () => fetch(`${url}/api/v1/graphql`, { method: 'POST', headers, body }).then((r) => r.json() as Promise<{ data?: { myIncidents?: { id: string }[] } }>);
  while ((await answer()).data?.myIncidents?.[0]?.id !== NEWEST) await new Promise((r) => setTimeout(r, 300));
}

async function measure({ url, pid }: Server, ceilingServer: Server, seconds: number): Promise<string> {
  const headers = { authorization: `Bearer ${token(GRAPHQL_READER, { expiresIn: '4h' })}`, 'content-type': 'application/json' };
  await untilProjected(url, headers);
  const api = { url, pid };
  const ask = (query: string, server: Server, duration: number) => load({ url: `${server.url}/api/v1/graphql`, method: 'POST', headers, body: JSON.stringify({ query }), duration });
  // The server's CPU per request beside the rate: the rate moves with other load on these shared cores, the CPU cost much less.
  const run = async (query: string, server: Server = api) => {
    const result = await withCpu(server.pid, () => ask(query, server, seconds));
    return { ...result, cpu: (result.cpuUs / 1000).toFixed(2) };
  };
  const rows: string[] = [];
  const ratios: string[] = [];
  const costs: string[] = [];
  const ratio = (r: LoadResult, ceiling: LoadResult) => (r.rps / ceiling.rps).toFixed(2);
  // V8 compiles each server's GraphQL path in its first seconds (the api's first 2 s ran at a third to a half of its later rate): warm both up first, unrecorded.
  await ask(MY_INCIDENTS, ceilingServer, WARM_UP_SECONDS);
  await ask(MY_INCIDENTS, api, WARM_UP_SECONDS);
  await ask(INCIDENT_STATUS, api, WARM_UP_SECONDS);
  for (let round = 1; round <= ROUNDS; round++) {
    const ceiling = await run(MY_INCIDENTS, ceilingServer);
    const mine = await run(MY_INCIDENTS);
    const status = await run(INCIDENT_STATUS);
    rows.push(
      formatRow(`round ${round}: ceiling, constant 20 IncidentSummary`, ceiling),
      formatRow(`round ${round}: myIncidents (default limit 20)`, mine),
      formatRow(`round ${round}: incidentStatus with assignedTo and quickTimeline`, status),
    );
    ratios.push(`round ${round}: myIncidents ${ratio(mine, ceiling)}, incidentStatus ${ratio(status, ceiling)}`);
    costs.push(`round ${round}: ceiling ${ceiling.cpu}, myIncidents ${mine.cpu}, incidentStatus ${status.cpu}`);
  }
  const mineFiltered = await run('{ myIncidents(limit: 20, status: [OPEN], severity: [SEV_2, SEV_4]) { id title severity status lastUpdate } }');
  return [
    '## GraphQL at 10,000 incidents',
    '',
    `${INCIDENTS.toLocaleString('en')} incidents (8 events each) written straight into the ledger, then projected by the built api; the caller is IC of half of them. ${seconds} s each at 32 connections, the ceiling and the api interleaved over ${ROUNDS} rounds in the same invocation, after ${WARM_UP_SECONDS} s of each query on each server, unrecorded (\`bench/graphql.bench.ts\`). The ceiling is \`bench/graphql-ceiling.server.ts\`: the same Nest + Fastify + Apollo stack and IncidentSummary type answering the same myIncidents query with a constant list of 20, without authentication, policy, store or query limits.`,
    '',
    ...TABLE_HEAD,
    ...rows,
    formatRow('myIncidents(status: [OPEN], severity: [SEV_2, SEV_4])', mineFiltered),
    '',
    `Service / ceiling (req/s) per round: **${ratios.join('; ')}**.`,
    '',
    `Server CPU per request (ms, user + system from /proc): ${costs.join('; ')}.`,
  ].join('\n');
}
