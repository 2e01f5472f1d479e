import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CloudEvent } from '@im/cloudevents';
import { chainLedger } from '@im/event-store';
import { BUNDLE_FORMAT, chainAppends, chainView, type LedgerBundle, type LedgerEvent, publicJwkOf, signHead } from '@im/ledger-proof';
import { startRunCheckers, verifyBundleBytes } from '../apps/api/src/ledger-proof/bundle-verification';

const EVENTS = Number(process.env.LEDGER_BENCH_EVENTS ?? 100_000);
const ROUNDS = 3;

/** An incident's note as the service stores it: actor, origin id, a content and a few data members. */
export const benchNote = (incident: string, i: number): LedgerEvent => ({
  specversion: '1.0',
  id: randomUUID(),
  source: 'im://bench',
  type: 'im.incident.note',
  time: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  subject: `incident/${incident}`,
  'im.actor': 'bench@example.com',
  'im.origin_id': randomUUID(),
  data: { content: `Load test note ${i}`, host: `host-${i % 50}`, service: 'bench' },
});

/** A bundle of an incident's notes. */
export function bundleText(count: number): string {
  const incident = 'INC-0000bench';
  const events: LedgerEvent[] = Array.from({ length: count }, (_, i) => benchNote(incident, i));
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

/** What `npm run verify` does with a bundle file: start its helper threads, read it, check it in runs; then the command itself, timed from outside. */
export async function ledgerVerify(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-verify-bench-'));
  const file = join(dir, 'bundle.json');
  writeFileSync(file, bundleText(EVENTS));
  const rows: string[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const started = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      const helpers = startRunCheckers();
      const bytes = readFileSync(file);
      const verdict = await verifyBundleBytes(bytes, undefined, helpers);
      const wall = Number(process.hrtime.bigint() - started) / 1e6;
      const used = process.cpuUsage(cpu);
      if (!verdict.intact) throw new Error('the bench bundle does not verify');
      rows.push(`| ${round} | ${(bytes.length / 2 ** 20).toFixed(1)} MiB | ${wall.toFixed(0)} ms | ${ms(used).toFixed(0)} ms | ${((ms(used) * 1000) / EVENTS).toFixed(1)} µs |`);
    }
    const commands: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const started = process.hrtime.bigint();
      const run = spawnSync('npm', ['run', '--silent', 'verify', '--', file], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`npm run verify: ${run.stdout}${run.stderr}`);
      commands.push(`${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(0)} ms`);
    }
    return [
      '## Verifying a ledger bundle',
      '',
      `A bundle of ${EVENTS.toLocaleString('en')} events of one incident's internal chain (each with an actor, an origin id and three data members, so four salted members), verified in-process as \`npm run verify\` does (\`bench/ledger-verify.bench.ts\`): helper threads started (one fewer than the cores), the file read, its events cut into runs that this thread and the helpers parse and check at once, the runs joined, the head and its Ed25519 signature checked. CPU time is the whole process's, every thread. The target is 2 s.`,
      '',
      '| Round | Bundle | Wall time | CPU time, all threads | CPU per event |',
      '|---|---|---|---|---|',
      ...rows,
      '',
      `The whole command, \`npm run verify -- bundle.json\` from a shell (npm, Node and tsx starting, then the above): ${commands.join(', ')}.`,
      '',
      `On the write path, an append of such an event spends ${chainingCost(20_000)} µs of CPU computing its salts and links (three chains: internal and the two above), from the stream's last links whatever the stream's length.`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) void ledgerVerify().then((report) => console.log(report));
