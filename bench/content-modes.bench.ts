import { randomUUID } from 'node:crypto';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { cpuMs } from './support/cpu-time';
import { type LoadResult, percentile, withBuiltServer } from './support/load';
import { rawLoad, requestBytes } from './support/raw-load';

const AUTH = `Bearer ${token({ sub: 'bench' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const CONNECTIONS = 8;
const SETS = 18;
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
const structured = (target: string, subject: string) => {
  const { attributes, data } = note(subject);
  return requestBytes(target, 'POST', { authorization: AUTH, 'content-type': 'application/cloudevents+json' }, JSON.stringify({ ...attributes, datacontenttype: DATA_CONTENT_TYPE, data }));
};
/** `control` is structured again: what the rounds differ by when their requests do not. */
const MODES = {
  structured,
  binary: (target: string, subject: string) => {
    const { attributes, data } = note(subject);
    const headers = Object.fromEntries(Object.entries(attributes).map(([name, value]) => [`ce-${name}`, value]));
    return requestBytes(target, 'POST', { authorization: AUTH, ...headers, 'content-type': DATA_CONTENT_TYPE }, JSON.stringify(data));
  },
  control: structured,
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
/**
 * The geometric mean of ratios and its 95 % interval (a t interval on their
 * logarithms, 17 degrees of freedom), so that a round twice as fast and one
 * half as fast cancel out.
 */
const T_95 = 2.11;
function ratioInterval(ratios: number[]): string {
  const logs = ratios.map(Math.log);
  const half = (T_95 * Math.sqrt(logs.reduce((sum, x) => sum + (x - mean(logs)) ** 2, 0) / (logs.length - 1))) / Math.sqrt(logs.length);
  return `**${Math.exp(mean(logs)).toFixed(2)}** (${Math.exp(mean(logs) - half).toFixed(2)}-${Math.exp(mean(logs) + half).toFixed(2)})`;
}
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

/** Each position of a set goes to each mode equally often, so the disk's drift falls on all three alike. */
const ORDERS: Mode[][] = [
  ['structured', 'binary', 'control'],
  ['binary', 'control', 'structured'],
  ['control', 'structured', 'binary'],
  ['control', 'binary', 'structured'],
  ['binary', 'structured', 'control'],
  ['structured', 'control', 'binary'],
];

/**
 * A binary-mode append against a structured one (issue 15: no slower), on one
 * built server, beside a second structured run as the control. Each round
 * appends to a fresh incident, so no round meets a longer stream than
 * another. The requests are built before each round, so the load generator,
 * on the same two cores, costs the same per request in either mode. Run with
 * `npm run bench -- content-modes`.
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
    for (const mode of ['structured', 'binary'] as Mode[]) await run(mode);
    const sets: Record<Mode, Round>[] = [];
    for (let set = 0; set < SETS; set++) {
      const measured = {} as Record<Mode, Round>;
      for (const mode of ORDERS[set % ORDERS.length]) measured[mode] = await run(mode);
      sets.push(measured);
    }
    return sets;
  });
  const of = (mode: Mode) => rounds.map((set) => set[mode]);
  const ratio = (mode: Mode, figure: (round: Round) => number) => ratioInterval(rounds.map((set) => figure(set[mode]) / figure(set.structured)));
  const row = (mode: Mode, name: string) => {
    const all = of(mode);
    const requests = all.reduce((sum, r) => sum + r.requests, 0);
    const weighted = (figure: (round: Round) => number) => Math.round(all.reduce((sum, r) => sum + figure(r) * r.requests, 0) / requests);
    return `| ${name} | ${Math.round(requests / all.reduce((sum, r) => sum + r.seconds, 0))} | ${median(all.map((r) => r.p50))} | ${median(all.map((r) => r.p99))} | ${requests} | ${all.reduce((sum, r) => sum + r.errors, 0)} | ${all.reduce((sum, r) => sum + r.non2xx, 0)} | ${weighted((r) => r.apiUs)} | ${weighted((r) => r.clientUs)} |`;
  };
  return [
    '## CloudEvents content modes: binary against structured',
    '',
    `The same unique note (new id and imoriginid each), ${CONNECTIONS} connections, in ${SETS} sets of three ${roundSeconds} s rounds (structured, binary, and structured again as a control, in an order that gives each a place equally often), each round on a fresh incident, on one server after an unrecorded warm-up of each mode (\`bench/content-modes.bench.ts\`). The load generator (\`bench/support/raw-load.ts\`) writes requests built before each round, so it costs the same per request in either mode: with autocannon building each request as it went, binary requests cost the generator a fifth to a third more (127 against 103 and 176 against 134 µs in two runs of 2026-11-28), and on two shared cores that was taken from the api.`,
    '',
    '| mode | appends/s | p50 ms (median round) | p99 ms (median round) | requests | errors | non-2xx | api CPU µs per append | load generator CPU µs per request |',
    '|---|---|---|---|---|---|---|---|---|',
    row('structured', 'structured (application/cloudevents+json)'),
    row('binary', 'binary (ce-* headers, application/json data)'),
    row('control', 'control: structured again'),
    '',
    `Ratios to the structured round of the same set, geometric mean of the ${SETS} sets (95 % interval):`,
    '',
    '| | appends per second | api CPU per append (every thread, user + system from /proc) |',
    '|---|---|---|',
    `| binary / structured | ${ratio('binary', (r) => r.rps)} | ${ratio('binary', (r) => r.apiUs)} |`,
    `| control / structured (the same requests) | ${ratio('control', (r) => r.rps)} | ${ratio('control', (r) => r.apiUs)} |`,
  ].join('\n');
}
