import type autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { withCpu } from './support/cpu-time';
import { formatRow, load, type LoadResult, TABLE_HEAD, withBuiltServer } from './support/load';

const AUTH = `Bearer ${token({ sub: 'bench' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const CONNECTIONS = 8;
const ROUNDS = 4;

type Measured = LoadResult & { cpuUs: number; clientUs: number };

/**
 * The same unique note on one incident, as a structured body or as ce-*
 * headers and a data body. Binary mode's Content-Type is the event's
 * datacontenttype, so the structured body names it too: otherwise the binary
 * event would carry one more attribute to store, commit to in the ledger and
 * project, and the comparison would measure that rather than the mode.
 */
const DATA_CONTENT_TYPE = 'application/json';
function note(subject: string) {
  return {
    attributes: { specversion: '1.0', id: randomUUID(), source: 'im://bench', type: 'im.incident.note', time: new Date().toISOString(), subject, imoriginid: randomUUID() },
    data: { content: 'Load test note', service: 'bench' },
  };
}
const structured = (subject: string) => ({
  method: 'POST' as const,
  setupRequest: (request: autocannon.Request) => {
    const { attributes, data } = note(subject);
    return { ...request, headers: { ...request.headers, 'content-type': 'application/cloudevents+json' }, body: JSON.stringify({ ...attributes, datacontenttype: DATA_CONTENT_TYPE, data }) };
  },
});
const binary = (subject: string) => ({
  method: 'POST' as const,
  setupRequest: (request: autocannon.Request) => {
    const { attributes, data } = note(subject);
    const headers = Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`ce-${name}`, value]));
    return { ...request, headers: { ...request.headers, ...headers, 'content-type': DATA_CONTENT_TYPE }, body: JSON.stringify(data) };
  },
});

/**
 * A binary-mode append against a structured one (issue 15: no slower), on one
 * built server, interleaved over four rounds (ABBA) at 8 connections. Run with
 * `npm run bench -- content-modes`.
 */
export async function contentModes(seconds: number): Promise<string> {
  const rows = await withBuiltServer('bench-content-modes', {}, async (url, _dataDir, pid) => {
    const created = await fetch(`${url}/api/v1/incidents`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: AUTH }, body: JSON.stringify({ title: 'Bench', severity: 'SEV-3' }) });
    const subject = `incident/${((await created.json()) as { id: string }).id}`;
    const run = (request: typeof structured) =>
      withCpu(pid, () => load({ url: `${url}/api/v1/timeline/events`, headers: { authorization: AUTH }, requests: [request(subject)], connections: CONNECTIONS, duration: seconds }));
    const results: [string, Measured][] = [];
    const modes: [string, typeof structured][] = [
      ['structured (application/cloudevents+json)', structured],
      ['binary (ce-* headers, application/json data)', binary],
    ];
    // A cold server (JIT, caches) made the first measured run slower whatever its mode: warm both up first, unrecorded.
    for (const [, request] of modes) await run(request);
    // ABBA: the incident grows and the disk drifts, so neither mode always runs second.
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, request] of round % 2 ? modes : [...modes].reverse()) results.push([`round ${round}: ${name}`, await run(request)]);
    }
    return results;
  });
  const of = (mode: string) => rows.filter(([name]) => name.includes(mode)).map(([, result]) => result);
  const total = (mode: string) => of(mode).reduce((sum, r) => sum + r.requests, 0);
  // Weighted by requests: the CPU of all of a mode's rounds over all its appends.
  const perAppend = (mode: string, cost: (r: Measured) => number) => of(mode).reduce((sum, r) => sum + cost(r) * r.requests, 0) / total(mode);
  const [serverBinary, serverStructured] = ['binary', 'structured'].map((mode) => perAppend(mode, (r) => r.cpuUs));
  const [clientBinary, clientStructured] = ['binary', 'structured'].map((mode) => perAppend(mode, (r) => r.clientUs));
  return [
    '## CloudEvents content modes: binary against structured',
    '',
    `The same unique note (new id and imoriginid each) on one incident, ${CONNECTIONS} connections, ${seconds} s each, interleaved over ${ROUNDS} rounds (ABBA) on one server after an unrecorded warm-up of each mode (\`bench/content-modes.bench.ts\`).`,
    '',
    ...TABLE_HEAD,
    ...rows.map(([name, result]) => formatRow(name, result)),
    '',
    `Binary / structured, all rounds: **${(total('binary') / total('structured')).toFixed(2)}** of the appends.`,
    '',
    `The api's CPU per append (every thread, user + system from /proc), all rounds: binary ${Math.round(serverBinary)} µs, structured ${Math.round(serverStructured)} µs (**${(serverBinary / serverStructured).toFixed(2)}**). The load generator shares the 2 cores; its CPU per request: binary ${Math.round(clientBinary)} µs, structured ${Math.round(clientStructured)} µs.`,
  ].join('\n');
}
