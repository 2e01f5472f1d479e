/**
 * The ceiling for GET /api/v1/analytics/incidents: node:http answering the
 * response metrics of one window (argv: the read-model file, from, to) from
 * the port and the aggregation alone, the SQLite read store opened with its
 * workers as the api opens it: no authentication, policy, query checks or
 * service names from the store. `?group_by=` as the route's.
 */
import { createServer } from 'node:http';
import { type MetricsGrouping, metricsGroups } from '@im/incidents';
import { SqliteReadStore } from '@im/read-models/sqlite';

const [file, from, to] = process.argv.slice(2);
const store = new SqliteReadStore(file, undefined, { workers: true });

const server = createServer(async (request, response) => {
  const groupBy = (new URL(request.url ?? '/', 'http://ceiling').searchParams.get('group_by') ?? 'none') as MetricsGrouping;
  const facts = await store.metrics.factsIn({ from, to, visibleLevels: ['public', 'internal'] });
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ from, to, group_by: groupBy, groups: metricsGroups(facts, groupBy, (id) => id) }));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0},`);
});
process.on('SIGTERM', () => server.close(() => void store.close()));
