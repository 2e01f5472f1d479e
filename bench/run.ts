/**
 * `npm run bench`: runs every workload against the built service and writes
 * docs/benchmarks.md. BENCH_SECONDS shortens each run (default 20).
 */
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { adapterChoice } from './adapter-choice.bench';
import { incidentWrites } from './incidents.bench';
import { timelineAppends, timelineReads } from './timeline.bench';

const WORKLOADS: Record<string, (seconds: number) => Promise<string>> = {
  'adapter-choice': adapterChoice,
  incidents: incidentWrites,
  'timeline-appends': timelineAppends,
  'timeline-reads': timelineReads,
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
    '- The load generator (autocannon) runs on the same 2 cores as the server, so every figure is a lower bound.',
  ].join('\n');
}

async function main() {
  const seconds = Number(process.env.BENCH_SECONDS ?? 20);
  const only = process.argv.slice(2);
  const sections: string[] = [];
  for (const [name, run] of Object.entries(WORKLOADS)) {
    if (only.length && !only.includes(name)) continue;
    console.log(`bench: ${name} …`);
    sections.push(await run(seconds));
  }
  const report = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (build, then `bench/run.ts`); rerun it to reproduce every figure. Latencies are autocannon\'s, in milliseconds.',
    '',
    '## Machine',
    '',
    machine(),
    '',
    ...sections.flatMap((s) => [s, '']),
  ].join('\n');
  const file = join(__dirname, '..', 'docs', 'benchmarks.md');
  writeFileSync(file, report);
  console.log(report);
}

void main();
