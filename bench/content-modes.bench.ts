import type autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { formatRow, load, type LoadResult, TABLE_HEAD, withBuiltServer } from './support/load';

const AUTH = `Bearer ${token({ sub: 'bench' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const CONNECTIONS = 8;
const ROUNDS = 4;

/** The same unique note on one incident, as a structured body or as ce-* headers and a data body. */
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
    return { ...request, headers: { ...request.headers, 'content-type': 'application/cloudevents+json' }, body: JSON.stringify({ ...attributes, data }) };
  },
});
const binary = (subject: string) => ({
  method: 'POST' as const,
  setupRequest: (request: autocannon.Request) => {
    const { attributes, data } = note(subject);
    const headers = Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`ce-${name}`, value]));
    return { ...request, headers: { ...request.headers, ...headers, 'content-type': 'application/json' }, body: JSON.stringify(data) };
  },
});

/**
 * A binary-mode append against a structured one (issue 15: no slower), on one
 * built server, interleaved over four rounds (ABBA) at 8 connections. Run with
 * `npm run bench -- content-modes`.
 */
export async function contentModes(seconds: number): Promise<string> {
  const rows = await withBuiltServer('bench-content-modes', {}, async (url) => {
    const created = await fetch(`${url}/api/v1/incidents`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: AUTH }, body: JSON.stringify({ title: 'Bench', severity: 'SEV-3' }) });
    const subject = `incident/${((await created.json()) as { id: string }).id}`;
    const run = (request: typeof structured) =>
      load({ url: `${url}/api/v1/timeline/events`, headers: { authorization: AUTH }, requests: [request(subject)], connections: CONNECTIONS, duration: seconds });
    const results: [string, LoadResult][] = [];
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
  const total = (mode: string) => rows.filter(([name]) => name.includes(mode)).reduce((sum, [, r]) => sum + r.requests, 0);
  return [
    '## CloudEvents content modes: binary against structured',
    '',
    `The same unique note (new id and imoriginid each) on one incident, ${CONNECTIONS} connections, ${seconds} s each, interleaved over ${ROUNDS} rounds (ABBA) on one server after an unrecorded warm-up of each mode (\`bench/content-modes.bench.ts\`).`,
    '',
    ...TABLE_HEAD,
    ...rows.map(([name, result]) => formatRow(name, result)),
    '',
    `Binary / structured, all rounds: **${(total('binary') / total('structured')).toFixed(2)}** of the appends.`,
  ].join('\n');
}
