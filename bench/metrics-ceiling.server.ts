/**
 * The ceiling for GET /api/v1/analytics/incidents: node:http answering the
 * response metrics of one window (argv: the read-model file, from, to) from a
 * copy in memory of the read model, read once at start from the SQLite read
 * store opened with its workers as the api opens it, and the aggregation
 * alone: no catching up, authentication, policy, query checks or service
 * names from the store. `?group_by=` as the route's. Nothing
 * is kept between requests: each aggregates the window anew.
 */
import { createServer } from 'node:http';
import { type MetricsGrouping, metricsGroups } from '@im/incidents';
import { IncidentFactsIndex } from '@im/read-models';
import { SqliteReadStore } from '@im/read-models/sqlite';

const [file, from, to] = process.argv.slice(2);
const store = new SqliteReadStore(file, undefined, { workers: true });
const copy = new IncidentFactsIndex();

const server = createServer((request, response) => {
  const groupBy = (new URL(request.url ?? '/', 'http://ceiling').searchParams.get('group_by') ?? 'none') as MetricsGrouping;
  const incidents = copy.declaredIn(Date.parse(from), Date.parse(to), ['public', 'internal']);
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ from, to, group_by: groupBy, groups: metricsGroups(incidents, groupBy, (id) => id) }));
});
void copy.catchUp(store.metrics, 10_000).then(() => server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0},`);
}));
process.on('SIGTERM', () => server.close(() => void store.close()));
