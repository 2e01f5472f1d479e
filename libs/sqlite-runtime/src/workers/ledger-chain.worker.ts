import { parentPort } from 'node:worker_threads';
import { chainLedger } from '@im/event-store';
import type { ChainHeads } from '@im/ledger-proof';
import { CHAINING_READY } from '../messages';

/** What the worker chains: a batch's appends in order, each stream starting from the heads given for it. */
export interface ChainRequest {
  id: number;
  /** The heads of each stream before the batch. */
  heads: Record<string, ChainHeads>;
  appends: { streamId: string; bodies: string[] }[];
}

/** Each append's ledger records, as JSON. */
export interface ChainAnswer {
  id: number;
  records?: string[][];
  error?: string;
}

/**
 * Answers each request with chainLedger's records, each append continuing
 * from the heads the one before it in the same stream left; ready once warm.
 */
function serveLedgerChaining(): void {
  const port = parentPort!;
  port.on('message', ({ id, heads, appends }: ChainRequest) => {
    try {
      port.postMessage({ id, records: chainRequest(heads, appends) } satisfies ChainAnswer);
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message } satisfies ChainAnswer);
    }
  });
  warmUp();
  port.postMessage(CHAINING_READY);
}

/** Each append's records (JSON), continuing from the heads the append before it in the same stream left. */
function chainRequest(heads: ChainRequest['heads'], appends: ChainRequest['appends']): string[][] {
  const tips = new Map(Object.entries(heads));
  return appends.map(({ streamId, bodies }) => {
    const chained = chainLedger(tips.get(streamId) ?? {}, bodies.map((body) => JSON.parse(body)));
    tips.set(streamId, chained[chained.length - 1].heads);
    return chained.map((record) => JSON.stringify(record));
  });
}

/** Batches of events chained, and thrown away, before the worker serves. */
const WARM_UP_BATCHES = 20;

/**
 * Chains made-up events of the shapes the service stores, and drops the
 * records, so that V8 has compiled the hashing and canonical JSON before the
 * first real batch. The first 100 events of a storm on a fresh api took
 * 100-160 ms to chain without it, 65 ms after it, and about 3 ms once warm;
 * it costs the worker about 190 ms of CPU at start (docs/benchmarks.md).
 */
function warmUp(): void {
  for (let batch = 0; batch < WARM_UP_BATCHES; batch++) {
    const appends = Array.from({ length: 10 }, (_, stream) => ({
      streamId: `warm-up-${stream}`,
      bodies: Array.from({ length: 10 }, (_, i) => JSON.stringify(warmUpEvent(batch, stream, i))),
    }));
    chainRequest({}, appends);
  }
}

const warmUpEvent = (batch: number, stream: number, i: number) => ({
  specversion: '1.0',
  id: `warm-up-${batch}-${stream}-${i}`,
  source: 'im://warm-up',
  type: i % 2 ? 'im.alert.trigger' : 'im.incident.note',
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  subject: `incident/INC-${stream.toString(16).padStart(8, '0')}`,
  datacontenttype: 'application/json',
  'im.actor': 'warm-up',
  'im.origin_id': `warm-up-${batch}-${i}`,
  ...(i % 3 ? { 'im.visibility': 'restricted', 'im.data_class': ['pii'] } : {}),
  data: { content: `Note ${i} – ünïcode`, severity: 'SEV-2', count: i, firing: i % 2 === 0, endsAt: null, labels: { alertname: `Alert${i}`, instance: `node-${i}:9100` } },
});


serveLedgerChaining();
