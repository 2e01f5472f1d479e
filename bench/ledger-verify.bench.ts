import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { CloudEvent } from '@im/cloudevents';
import { chainLedger } from '@im/event-store';
import { asBundle, BUNDLE_FORMAT, chainAppends, chainView, type LedgerBundle, type LedgerEvent, publicJwkOf, signHead, verifyBundle } from '@im/ledger-proof';

const EVENTS = Number(process.env.LEDGER_BENCH_EVENTS ?? 100_000);
const ROUNDS = 3;

/** An incident's notes as the service stores them: actor, origin id, a content and a few data members. */
export function bundleText(count: number): string {
  const incident = 'INC-0000bench';
  const events: LedgerEvent[] = Array.from({ length: count }, (_, i) => ({
    specversion: '1.0',
    id: randomUUID(),
    source: 'im://bench',
    type: 'im.incident.note',
    time: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    subject: `incident/${incident}`,
    'im.actor': 'bench@example.com',
    'im.origin_id': randomUUID(),
    data: { content: `Load test note ${i}`, host: `host-${i % 50}`, service: 'bench' },
  }));
  const { records, heads } = chainAppends({}, events, () => randomBytes(16));
  const { privateKey } = generateKeyPairSync('ed25519');
  const key = publicJwkOf(privateKey);
  const bundle: LedgerBundle = {
    format: BUNDLE_FORMAT,
    incident_id: incident,
    events: chainView(events.map((event, i) => ({ event, ledger: records[i] })), 'internal', (s) => s.event).map((v) => v.event),
    head: signHead({ incident_id: incident, chain: 'internal', n: count, hash: heads.internal!.hash, signed_at: new Date().toISOString(), kid: key.kid }, privateKey),
    keys: [key],
  };
  return JSON.stringify(bundle);
}

/** CPU per event of what the write path adds to an append: salts and the links of the event's chains (chainLedger, as the stores call it). */
function chainingCost(count: number): string {
  const events = JSON.parse(bundleText(1000)).events.map(({ 'im.ledger': _ledger, ...event }: LedgerEvent) => event) as LedgerEvent[];
  const cpu = process.cpuUsage();
  for (let done = 0; done < count; done += events.length) chainLedger({}, events as unknown as CloudEvent[]);
  const used = process.cpuUsage(cpu);
  return (((used.user + used.system) / count)).toFixed(1);
}

const ms = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/** What `npm run verify` does with a bundle file once read: parse it and check every link and the head. */
export async function ledgerVerify(): Promise<string> {
  const text = bundleText(EVENTS);
  const rows: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const bundle = asBundle(JSON.parse(text));
    const parsed = process.cpuUsage(cpu);
    const verdict = verifyBundle(bundle);
    const wall = Number(process.hrtime.bigint() - started) / 1e6;
    const used = process.cpuUsage(cpu);
    if (!verdict.intact) throw new Error('the bench bundle does not verify');
    rows.push(`| ${round} | ${(text.length / 2 ** 20).toFixed(1)} MiB | ${wall.toFixed(0)} ms | ${ms(used).toFixed(0)} ms (parse ${ms(parsed).toFixed(0)} ms) | ${((ms(used) * 1000) / EVENTS).toFixed(1)} µs |`);
  }
  return [
    '## Verifying a ledger bundle',
    '',
    `A bundle of ${EVENTS.toLocaleString('en')} events of one incident's internal chain (each with an actor, an origin id and three data members, so four salted members), parsed and verified in-process as \`npm run verify\` does once it has read the file (\`bench/ledger-verify.bench.ts\`): every commitment, every link, the head and its Ed25519 signature. Round 1 is what a fresh \`npm run verify\` process does; later rounds carry the garbage of the earlier ones. The target is 2 s.`,
    '',
    '| Round | Bundle | Wall time | CPU time | CPU per event |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `On the write path, an append of such an event spends ${chainingCost(20_000)} µs of CPU computing its salts and links (three chains: internal and the two above), from the stream's last links whatever the stream's length.`,
  ].join('\n');
}

if (require.main === module) void ledgerVerify().then((report) => console.log(report));
