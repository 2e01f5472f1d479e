import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { asBundle, BUNDLE_FORMAT, chainAppends, chainView, type LedgerBundle, type LedgerEvent, publicJwkOf, signHead, verifyBundle } from '@im/ledger-proof';

const EVENTS = Number(process.env.LEDGER_BENCH_EVENTS ?? 100_000);
const ROUNDS = 3;

/** An incident's notes as the service stores them: actor, origin id, a content and a few data members. */
function bundleOf(count: number): string {
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

/** What `npm run verify` does with a bundle file once read: parse it and check every link and the head. */
export async function ledgerVerify(): Promise<string> {
  const text = bundleOf(EVENTS);
  const rows: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const verdict = verifyBundle(asBundle(JSON.parse(text)));
    const wall = Number(process.hrtime.bigint() - started) / 1e6;
    const used = process.cpuUsage(cpu);
    if (!verdict.intact) throw new Error('the bench bundle does not verify');
    rows.push(`| ${round} | ${(text.length / 2 ** 20).toFixed(1)} MiB | ${wall.toFixed(0)} ms | ${((used.user + used.system) / 1000).toFixed(0)} ms | ${((wall * 1000) / EVENTS).toFixed(1)} µs |`);
  }
  return [
    '## Verifying a ledger bundle',
    '',
    `A bundle of ${EVENTS.toLocaleString('en')} events of one incident's internal chain (each with an actor, an origin id and three data members, so five salted members), parsed and verified in-process as \`npm run verify\` does (\`bench/ledger-verify.bench.ts\`): every commitment, every link, the head and its Ed25519 signature. The target is 2 s.`,
    '',
    '| Round | Bundle | Wall time | CPU time | Per event |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

if (require.main === module) void ledgerVerify().then((report) => console.log(report));
