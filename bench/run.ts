/**
 * `npm run bench`: runs every workload against the built service and writes
 * docs/benchmarks.md. BENCH_SECONDS shortens each run (default 20).
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { adapterChoice } from './adapter-choice.bench';
import { alertStorm } from './alert-storm.bench';
import { contentModes } from './content-modes.bench';
import { incidentWrites } from './incidents.bench';
import { liveDelivery } from './live-delivery.bench';
import { memory } from './memory.bench';
import { oncallAnswers } from './oncall.bench';
import { paging } from './paging.bench';
import { ledgerVerify } from './ledger-verify.bench';
import { incidentMetrics } from './metrics.bench';
import { graphqlReads } from './graphql.bench';
import { policyOverhead } from './policy.bench';
import { postgresAppends } from './postgres.bench';
import { timelineAppends, timelineReads } from './timeline.bench';
import { webhookDelivery } from './webhook-delivery.bench';

const WORKLOADS: Record<string, (seconds: number) => Promise<string>> = {
  'adapter-choice': adapterChoice,
  incidents: incidentWrites,
  'timeline-appends': timelineAppends,
  'timeline-reads': timelineReads,
  'policy-overhead': policyOverhead,
  graphql: graphqlReads,
  'alert-storm': alertStorm,
  'content-modes': contentModes,
  'webhook-delivery': webhookDelivery,
  'live-delivery': liveDelivery,
  'ledger-verify': ledgerVerify,
  oncall: oncallAnswers,
  paging,
  memory,
  postgres: postgresAppends,
  metrics: incidentMetrics,
};

function machine(): string {
  const cpu = cpus();
  const sh = (cmd: string) => {
    try {
      return execSync(cmd, { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  };
  return [
    `- Date: ${new Date().toISOString()}`,
    `- CPU: ${cpu.length} × ${cpu[0]?.model ?? 'unknown'}`,
    `- Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Node ${process.version}, ${sh('uname -sr')}`,
    `- Disk of the data directory: ${sh(`df -h ${process.env.TMPDIR ?? '/tmp'} | tail -1 | awk '{print $1}'`)}`,
    '- The load generator runs on the same 2 cores as the server, so every figure is a lower bound.',
  ].join('\n');
}

const marker = (name: string) => `<!-- bench:${name} -->`;

/** The hand-written part (profiles, what changed and why) follows this marker and is kept as it is. */
const NOTES = marker('notes');

/** Each workload's section sits between its marker and the next; a partial run replaces only its own. */
function sectionsOf(report: string): Map<string, string> {
  const sections = new Map<string, string>();
  for (const name of Object.keys(WORKLOADS)) {
    const start = report.indexOf(marker(name));
    if (start < 0) continue;
    const next = report.indexOf('<!-- bench:', start + 1);
    sections.set(name, report.slice(start + marker(name).length, next < 0 ? undefined : next).trim());
  }
  return sections;
}

async function main() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 20);
  const only = process.argv.slice(2);
  const file = join(__dirname, '..', 'docs', 'benchmarks.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const sections = sectionsOf(previous);
  const notes = previous.includes(NOTES) ? previous.slice(previous.indexOf(NOTES)).trim() : '';
  for (const [name, run] of Object.entries(WORKLOADS)) {
    if (only.length && !only.includes(name)) continue;
    console.log(`bench: ${name} …`);
    sections.set(name, `${await run(seconds)}\n\n_Measured ${new Date().toISOString()}._`);
  }
  const report = [
    '# Benchmarks',
    '',
    "Written by `npm run bench` (build, then `bench/run.ts`); rerun it to reproduce every figure, or `npm run bench -- <workload>` for one section. Latencies are the load generator's (autocannon's, or `bench/support/raw-load.ts`'s where a section says so), in milliseconds; BENCH_SECONDS sets each run's length (default 20).",
    '',
    '## Machine',
    '',
    machine(),
    '',
    ...Object.keys(WORKLOADS).flatMap((name) => (sections.has(name) ? [marker(name), sections.get(name)!, ''] : [])),
    ...(notes ? [notes, ''] : []),
  ].join('\n');
  writeFileSync(file, report);
  console.log(report);
}

void main();
