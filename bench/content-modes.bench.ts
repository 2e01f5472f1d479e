import { randomUUID } from 'node:crypto';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { cpuMs } from './support/cpu-time';
import { type LoadResult, withBuiltServer } from './support/load';
import { rawLoad, requestBytes } from './support/raw-load';

const AUTH = `Bearer ${token({ sub: 'bench' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const CONNECTIONS = 8;
const PAIRS = 20;
/** Requests built per second of a round: above any rate this api reaches, so a round never runs out. */
const REQUESTS_PER_SECOND = 4000;

/**
 * The same unique note, as a structured body or as ce-* headers and a data
 * body. Binary mode's Content-Type is the event's datacontenttype, so the
 * structured body names it too: otherwise the binary event would carry one
 * more attribute to store, commit to in the ledger and project, and the
 * comparison would measure that rather than the mode.
 */
const DATA_CONTENT_TYPE = 'application/json';
const MODES = {
  structured: (target: string, subject: string) => {
    const { attributes, data } = note(subject);
    return requestBytes(target, 'POST', { authorization: AUTH, 'content-type': 'application/cloudevents+json' }, JSON.stringify({ ...attributes, datacontenttype: DATA_CONTENT_TYPE, data }));
  },
  binary: (target: string, subject: string) => {
    const { attributes, data } = note(subject);
    const headers = Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`ce-${name}`, value]));
    return requestBytes(target, 'POST', { authorization: AUTH, ...headers, 'content-type': DATA_CONTENT_TYPE }, JSON.stringify(data));
  },
};
type Mode = keyof typeof MODES;

function note(subject: string) {
  return {
    attributes: { specversion: '1.0', id: randomUUID(), source: 'im://bench', type: 'im.incident.note', time: new Date().toISOString(), subject, imoriginid: randomUUID() },
    data: { content: 'Load test note', service: 'bench' },
  };
}

type Round = LoadResult & { apiUs: number; clientUs: number };

const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;
/** Half the width of the 95 % interval of the mean (normal approximation; the pairs are at least 20). */
const halfInterval = (xs: number[]) => (1.96 * Math.sqrt(xs.reduce((sum, x) => sum + (x - mean(xs)) ** 2, 0) / (xs.length - 1))) / Math.sqrt(xs.length);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * A binary-mode append against a structured one (issue 15: no slower), on one
 * built server. Each round appends to a fresh incident, so no round meets a
 * longer stream than another; the rounds go in pairs, alternately ABBA, so
 * the disk's drift falls on both modes alike. The requests are built before
 * each round, so the load generator, on the same two cores, costs the same
 * per request in either mode. Run with `npm run bench -- content-modes`.
 */
export async function contentModes(seconds: number): Promise<string> {
  const roundSeconds = seconds / 5;
  const rounds = await withBuiltServer('bench-content-modes', {}, async (url, _dataDir, pid) => {
    const target = `${url}/api/v1/timeline/events`;
    const run = async (mode: Mode): Promise<Round> => {
      const created = await fetch(`${url}/api/v1/incidents`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: AUTH }, body: JSON.stringify({ title: 'Bench', severity: 'SEV-3' }) });
      const subject = `incident/${((await created.json()) as { id: string }).id}`;
      const requests = Array.from({ length: Math.ceil(roundSeconds * REQUESTS_PER_SECOND) }, () => MODES[mode](target, subject));
      const api = cpuMs(`/proc/${pid}`);
      const own = process.cpuUsage();
      const result = await rawLoad(target, requests, CONNECTIONS, roundSeconds);
      const client = process.cpuUsage(own);
      return { ...result, apiUs: ((cpuMs(`/proc/${pid}`) - api) * 1000) / result.requests, clientUs: (client.user + client.system) / result.requests };
    };
    // A cold server (JIT, caches) made the first measured run slower whatever its mode: warm both up first, unrecorded.
    for (const mode of Object.keys(MODES) as Mode[]) await run(mode);
    const pairs: Record<Mode, Round>[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const order: Mode[] = pair % 2 ? ['binary', 'structured'] : ['structured', 'binary'];
      const measured = {} as Record<Mode, Round>;
      for (const mode of order) measured[mode] = await run(mode);
      pairs.push(measured);
    }
    return pairs;
  });
  const of = (mode: Mode) => rounds.map((pair) => pair[mode]);
  const ratio = (figure: (round: Round) => number) => rounds.map((pair) => figure(pair.binary) / figure(pair.structured));
  const interval = (xs: number[]) => `**${mean(xs).toFixed(2)}** (95 % interval ${(mean(xs) - halfInterval(xs)).toFixed(2)}-${(mean(xs) + halfInterval(xs)).toFixed(2)})`;
  const row = (mode: Mode, name: string) => {
    const all = of(mode);
    const requests = all.reduce((sum, r) => sum + r.requests, 0);
    const weighted = (figure: (round: Round) => number) => Math.round(all.reduce((sum, r) => sum + figure(r) * r.requests, 0) / requests);
    return `| ${name} | ${Math.round(requests / all.reduce((sum, r) => sum + r.seconds, 0))} | ${median(all.map((r) => r.p50))} | ${median(all.map((r) => r.p99))} | ${requests} | ${all.reduce((sum, r) => sum + r.errors, 0)} | ${all.reduce((sum, r) => sum + r.non2xx, 0)} | ${weighted((r) => r.apiUs)} | ${weighted((r) => r.clientUs)} |`;
  };
  return [
    '## CloudEvents content modes: binary against structured',
    '',
    `The same unique note (new id and imoriginid each), ${CONNECTIONS} connections, in ${PAIRS} pairs of ${roundSeconds} s rounds, one of each mode, alternately ABBA, each round on a fresh incident, on one server after an unrecorded warm-up of each mode (\`bench/content-modes.bench.ts\`). The load generator (\`bench/support/raw-load.ts\`) writes requests built before each round, so it costs the same per request in either mode: with autocannon building each request as it went, binary requests cost the generator a fifth to a third more (127 against 103 and 176 against 134 µs in two runs of 2026-11-28), and on two shared cores that was taken from the api.`,
    '',
    '| mode | appends/s | p50 ms (median round) | p99 ms (median round) | requests | errors | non-2xx | api CPU µs per append | load generator CPU µs per request |',
    '|---|---|---|---|---|---|---|---|---|',
    row('structured', 'structured (application/cloudevents+json)'),
    row('binary', 'binary (ce-* headers, application/json data)'),
    '',
    `Binary / structured, the mean of the ${PAIRS} pairs' ratios: appends per second ${interval(ratio((r) => r.rps))}; the api's CPU per append (every thread, user + system from /proc) ${interval(ratio((r) => r.apiUs))}.`,
  ].join('\n');
}
