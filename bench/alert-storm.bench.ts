import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { withBuiltServer } from './support/load';

const AUTH = `Bearer ${token({ sub: 'alertmanager', roles: ['timeline.writer', 'timeline.reader'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const FINGERPRINTS = 100;
const ALERTS = 10_000;
const PER_PAYLOAD = 100;
const CONNECTIONS = 8;

/**
 * An alert storm as Alertmanager sends it: 10,000 firing alerts over 100
 * fingerprints (each fingerprint re-fires 100 times, a new startsAt each
 * time, so every alert is a new event), in version-4 payloads of 100 alerts,
 * one round of every fingerprint per payload, over 8 connections.
 */
function payloads(): string[] {
  const base = Date.UTC(2026, 10, 23, 14, 0, 0);
  return Array.from({ length: ALERTS / PER_PAYLOAD }, (_, round) =>
    JSON.stringify({
      receiver: 'storm',
      status: 'firing',
      alerts: Array.from({ length: PER_PAYLOAD }, (_, n) => {
        const fingerprint = `storm${(n % FINGERPRINTS).toString(16).padStart(11, '0')}`;
        const labels = { alertname: `Storm${n % FINGERPRINTS}`, severity: 'critical', service: 'checkout', instance: `node-${n % FINGERPRINTS}:9100`, job: 'node' };
        return {
          status: 'firing',
          labels,
          annotations: { summary: `Checkout node ${n % FINGERPRINTS} down`, description: 'Target is not answering scrapes.' },
          startsAt: new Date(base + round * 1000).toISOString(),
          endsAt: '0001-01-01T00:00:00Z',
          generatorURL: `http://prometheus.example:9090/graph?g0.expr=up%3D%3D0&n=${n}`,
          fingerprint,
        };
      }),
      groupLabels: {},
      commonLabels: { severity: 'critical', service: 'checkout', job: 'node' },
      commonAnnotations: {},
      externalURL: 'http://alertmanager.example:9093',
      version: '4',
      groupKey: '{}:{}',
      truncatedAlerts: 0,
    }),
  );
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Counts the incidents on the server (all of them: the data directory is fresh). */
async function incidentCount(url: string): Promise<number> {
  let count = 0;
  let next: string | undefined = `${url}/api/v1/incidents?limit=100`;
  while (next) {
    const res: Response = await fetch(next, { headers: { authorization: AUTH } });
    count += ((await res.json()) as unknown[]).length;
    next = res.headers.get('link')?.match(/<([^>]+)>;\s*rel="next"/)?.[1];
    if (next && next.startsWith('/')) next = `${url}${next}`;
  }
  return count;
}

/** Sends the storm to a running api; answers the report. */
export async function sendStorm(url: string): Promise<string> {
  const bodies = payloads();
  {
    const latencies: number[] = [];
    const errors: string[] = [];
    let stored = 0;
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++];
          const sent = process.hrtime.bigint();
          const res = await fetch(`${url}/api/v1/integrations/alertmanager`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/json' }, body });
          const answer = (await res.json()) as { results?: { status: number }[] };
          latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
          if (res.status !== 200) errors.push(`${res.status} ${JSON.stringify(answer)}`);
          for (const result of answer.results ?? []) {
            if (result.status === 201) stored++;
            else errors.push(JSON.stringify(result));
          }
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const incidents = await incidentCount(url);
    latencies.sort((a, b) => a - b);
    const rate = Math.round(ALERTS / seconds);
    const [p50, p99] = [50, 99].map((p) => Math.round(percentile(latencies, p)));
    return [
      '## Alert storm through the Alertmanager receiver',
      '',
      `${ALERTS.toLocaleString('en')} firing alerts over ${FINGERPRINTS} fingerprints (each re-firing ${ALERTS / FINGERPRINTS} times with a new startsAt, so every alert is a new ledger event), sent as Alertmanager version-4 payloads of ${PER_PAYLOAD} alerts to \`POST /api/v1/integrations/alertmanager\` over ${CONNECTIONS} connections, on a fresh data directory (\`bench/alert-storm.bench.ts\`). Targets: ≥ 5,000 alerts/s, p99 per payload ≤ 250 ms, 0 errors, exactly ${FINGERPRINTS} incidents.`,
      '',
      '| alerts/s | p50 ms per payload | p99 ms per payload | alerts stored | errors | incidents |',
      '|---|---|---|---|---|---|',
      `| **${rate}** | ${p50} | ${p99} | ${stored} | ${errors.length} | ${incidents} |`,
      ...(errors.length ? ['', `First error: \`${errors[0].slice(0, 300)}\``] : []),
    ].join('\n');
  }
}

export const alertStorm = (): Promise<string> => withBuiltServer('bench-alert-storm', {}, sendStorm);

if (require.main === module) void alertStorm().then(console.log);
