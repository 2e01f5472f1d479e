/**
 * Who is on call, for a schedule of 10 layers and 1,000 overrides: the
 * contract's bound is 1 ms of CPU per answer. In process (the domain's
 * `compileSchedule` and `onCallAt`, what the route runs per request), and
 * through the built api's `GET /api/v1/schedules/{id}/oncall` with the CPU
 * the api spends per request, beside `GET /health` in the same run as the
 * framework's own floor. `node -r tsx/cjs bench/oncall.bench.ts`, or
 * `npm run bench -- oncall`.
 */
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { compileSchedule, type Layer, onCallAt, type Override, type ScheduleRules } from '@im/incidents';
import { token } from '../test/support/tokens';
import { withCpu } from './support/cpu-time';
import { load, withBuiltServer } from './support/load';

const AUTH = `Bearer ${token({ sub: 'bench', roles: ['oncall.admin'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const LAYERS = 10;
const OVERRIDES = 1000;
const YEAR_START = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;

/** Ten layers of every rotation unit, half of them restricted (weekdays, and a window past midnight), in a zone with daylight saving. */
function layers(): Layer[] {
  const units = ['hours', 'days', 'weeks'] as const;
  return Array.from({ length: LAYERS }, (_, i) => ({
    name: `layer ${i}`,
    start: new Date(YEAR_START + i * 3_600_000).toISOString(),
    rotation: { every: 1 + (i % 3) * 4, unit: units[i % 3] },
    users: Array.from({ length: 3 + (i % 5) }, (_, u) => `user-${i}-${u}`),
    ...(i % 2 === 1 ? { restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' }, { days: ['sat'], from: '22:00', to: '06:00' }] } : {}),
  }));
}

/** A thousand overrides of 4 to 28 hours, spread over the year. */
function overrides(): Override[] {
  return Array.from({ length: OVERRIDES }, (_, i) => {
    const start = YEAR_START + Math.floor((i * 365 * DAY_MS) / OVERRIDES);
    return { user: `stand-in-${i % 17}`, start: new Date(start).toISOString(), end: new Date(start + (4 + (i % 25)) * 3_600_000).toISOString() };
  });
}

const instants = (n: number) => Array.from({ length: n }, (_, i) => YEAR_START + ((i * 7_919 * 3_600_000) % (365 * DAY_MS)));

/** CPU µs per call of `run` over `ats`, after a warm-up round. */
function cpuPerCall(ats: number[], run: (at: number) => unknown): number {
  ats.slice(0, 200).forEach(run);
  const started = process.cpuUsage();
  ats.forEach(run);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / ats.length;
}

export async function oncallAnswers(seconds: number): Promise<string> {
  const rules: ScheduleRules = { timeZone: 'Europe/Berlin', layers: layers(), overrides: overrides() };
  const ats = instants(20_000);
  const compiled = compileSchedule(rules);
  const answerOnly = cpuPerCall(ats, (at) => onCallAt(compiled, at));
  const perRequest = cpuPerCall(ats.slice(0, 5_000), (at) => onCallAt(compileSchedule(rules), at));

  const http = await withBuiltServer('bench-oncall', {}, async (url, _dir, pid) => {
    const post = async (path: string, body: object) => {
      const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: AUTH }, body: JSON.stringify(body) });
      if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string };
    };
    const { id } = await post('/api/v1/schedules', { name: 'Bench', time_zone: rules.timeZone, layers: rules.layers });
    for (const override of rules.overrides) await post(`/api/v1/schedules/${id}/overrides`, override);
    const headers = { authorization: AUTH };
    const oncall = await withCpu(pid, () => load({ url: `${url}/api/v1/schedules/${id}/oncall?at=2026-07-01T12:00:00Z`, headers, connections: 8, duration: seconds }));
    const health = await withCpu(pid, () => load({ url: `${url}/health`, headers, connections: 8, duration: seconds }));
    if (oncall.non2xx + oncall.errors + health.non2xx + health.errors > 0) throw new Error('requests failed');
    return { oncall, health };
  });
  return [
    '## Who is on call: 10 layers, 1,000 overrides',
    '',
    `A schedule in Europe/Berlin of ${LAYERS} layers (hourly, daily and weekly rotations, half of them restricted to weekdays 09:00-17:00 and a Saturday night) and ${OVERRIDES} overrides over a year (\`bench/oncall.bench.ts\`). The contract's bound: under 1 ms of CPU per answer. In process, CPU per call over 20,000 instants of the year; through the built api, the CPU the api process spent per request (all threads, /proc) at 8 connections for ${seconds} s, beside \`GET /health\` in the same run as the floor of a request through the same server.`,
    '',
    '| what | CPU µs per answer | ratio to the 1 ms bound |',
    '|---|---|---|',
    `| \`onCallAt\` on a compiled schedule (in process) | ${answerOnly.toFixed(1)} | ${(answerOnly / 1000).toFixed(3)} |`,
    `| \`compileSchedule\` + \`onCallAt\`, as the route runs per request (in process) | ${perRequest.toFixed(1)} | ${(perRequest / 1000).toFixed(3)} |`,
    `| \`GET /api/v1/schedules/{id}/oncall\` (api process; ${Math.round(http.oncall.rps)} req/s, p99 ${http.oncall.p99} ms) | ${http.oncall.cpuUs} | ${(http.oncall.cpuUs / 1000).toFixed(3)} |`,
    `| \`GET /health\`, the same server's floor (${Math.round(http.health.rps)} req/s) | ${http.health.cpuUs} | ${(http.health.cpuUs / 1000).toFixed(3)} |`,
    '',
    `The route's cost above the floor: ${http.oncall.cpuUs - http.health.cpuUs} µs per request (${(http.oncall.cpuUs / http.health.cpuUs).toFixed(2)} times the floor): the schedule's version (one column), who is on call, the answer. The route keeps each schedule compiled per version (\`CompiledSchedules\`); before it did, reading, parsing and compiling the document of 1,000 overrides on every request cost 2,785 µs (2026-12-02).`,
  ].join('\n');
}

if (require.main === module) {
  void oncallAnswers(Number(process.env.BENCH_SECONDS ?? 10)).then(console.log, (error) => {
    console.error(error);
    process.exit(1);
  });
}
