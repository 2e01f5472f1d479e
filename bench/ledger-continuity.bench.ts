/**
 * What checking the ledger's chains costs at start and in validate (LedgerContinuity), on a
 * store of LEDGER_BENCH_EVENTS events (default 100,000) in LEDGER_BENCH_STREAMS incident
 * streams (default 1,000): the first start, with no verified record (every link recomputed),
 * a restart with nothing new, and a validate after one new event per stream.
 *
 *   node -r tsx/cjs bench/ledger-continuity.bench.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CloudEvent } from '@im/cloudevents';
import { loadConfig } from '@im/config';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { LedgerContinuity } from '../apps/api/src/ledger-proof/ledger-continuity';
import { LedgerKeys } from '../apps/api/src/ledger-proof/ledger-keys';
import { benchNote } from './ledger-verify.bench';

const EVENTS = Number(process.env.LEDGER_BENCH_EVENTS ?? 100_000);
const STREAMS = Number(process.env.LEDGER_BENCH_STREAMS ?? 1_000);

const note = (incident: string, i: number) => benchNote(incident, i) as unknown as CloudEvent;

async function timed(label: string, continuity: LedgerContinuity, run: () => Promise<unknown>): Promise<string> {
  const read = continuity.eventsRead;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await run();
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  return `| ${label} | ${(continuity.eventsRead - read).toLocaleString('en')} | ${wall.toFixed(0)} ms | ${((used.user + used.system) / 1000).toFixed(0)} ms |`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-continuity-bench-'));
  const config = loadConfig({ DATA_DIR: dir, APP_ENV: 'development', LOG_LEVEL: 'error' });
  const store = new SqliteEventStore(join(dir, 'events.sqlite'));
  try {
    const incidents = Array.from({ length: STREAMS }, (_, i) => `INC-${i.toString(16).padStart(8, '0')}`);
    const perStream = Math.ceil(EVENTS / STREAMS);
    for (const incident of incidents) await store.append(`incident-${incident}`, Array.from({ length: perStream }, (_, i) => note(incident, i)), 'no_stream');
    const keys = new LedgerKeys(config);
    const rows: string[] = [];
    let continuity = new LedgerContinuity(store, keys, config);
    rows.push(await timed('first start: no verified record, every link recomputed', continuity, () => continuity.onApplicationBootstrap()));
    continuity = new LedgerContinuity(store, keys, config);
    rows.push(await timed('restart, nothing new since', continuity, () => continuity.onApplicationBootstrap()));
    for (const incident of incidents) await store.append(`incident-${incident}`, [note(incident, perStream)], 'any');
    rows.push(await timed(`validate after ${STREAMS.toLocaleString('en')} new events (one per stream)`, continuity, () => continuity.checkAll()));
    console.log(`${(perStream * STREAMS).toLocaleString('en')} events in ${STREAMS.toLocaleString('en')} incident streams\n`);
    console.log('| Check | Events read | Wall time | CPU time |\n|---|---|---|---|');
    console.log(rows.join('\n'));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
