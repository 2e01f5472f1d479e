import { join } from 'node:path';
import { EmbeddedPdp, loadTimelinePolicy, redactEntry } from '@im/policy';
import { toTimelineEntry, type TimelineEntry } from '@im/read-models';

const policy = loadTimelinePolicy(join(__dirname, '../policy/timeline-policy.json'));
const pdp = new EmbeddedPdp(policy);

/** A realistic page: mixed visibility and data classes, half of it redacted for the caller. */
function page(size: number): TimelineEntry[] {
  const visibilities = ['public', 'internal', 'restricted', undefined];
  const classes = [[], ['pii'], ['phi'], []];
  return Array.from({ length: size }, (_, i) =>
    toTimelineEntry({
      incidentId: 'INC-0000beef',
      eventTime: new Date(Date.UTC(2026, 10, 22, 10, 0, i)).toISOString(),
      createdAt: '2026-11-22T10:00:00.000Z',
      event: {
        specversion: '1.0',
        id: `e-${i}`,
        source: 'im://bench',
        type: 'im.incident.note',
        time: '2026-11-22T10:00:00Z',
        'im.actor': `user-${i % 9}`,
        ...(visibilities[i % 4] ? { 'im.visibility': visibilities[i % 4] } : {}),
        'im.data_class': classes[i % 4],
        data: { title: `Step ${i}`, content: `Customer 4711 called about order ${i}`, host: `db-${i % 3}`, severity: 'SEV-2', service: 'checkout' },
      },
    }),
  );
}

const caller = { sub: 'auditor', roles: ['timeline.reader'], clearance: 'internal', data_access: ['phi'] };

async function measure(size: number, rounds: number) {
  const entries = page(size);
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const started = process.hrtime.bigint();
    const decisions = await pdp.decide({
      subject: caller,
      action: 'timeline.read',
      resources: entries.map((e) => ({ visibility: e.visibility, data_class: e.dataClass })),
    });
    entries.forEach((entry, i) => decisions[i].visible && redactEntry(entry, decisions[i], policy.redaction));
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(3);
  return `| ${size} | ${rounds} | ${at(0.5)} | ${at(0.99)} | ${at(0.999)} |`;
}

/** What the policy adds to a timeline page: the embedded PDP's decision and the redaction, in-process. */
export async function policyOverhead(): Promise<string> {
  await measure(50, 2000); // warm-up
  return [
    '## Policy overhead per timeline page (embedded PDP)',
    '',
    'Time the reader spends on policy for one page: one batched decision from the embedded PDP plus redacting what it says, for a page mixing visibilities and data classes (a caller with clearance internal and phi access, so a quarter of the page is withheld and a quarter redacted). Measured in-process over many rounds after a warm-up (`bench/policy.bench.ts`). Target: under 1 ms per page at limit 50.',
    '',
    '| page size | rounds | p50 ms | p99 ms | p99.9 ms |',
    '|---|---|---|---|---|',
    await measure(50, 20_000),
    await measure(1000, 2000),
  ].join('\n');
}
