import { type ChainHeads, chainWithFreshSalts } from '@im/ledger-proof';
import { serveRequests } from '../serve';

/** What the worker chains: a batch's appends in order, each stream starting from the heads given for it. */
export interface ChainRequest {
  /** The heads of each stream before the batch. */
  heads: Record<string, ChainHeads>;
  appends: { streamId: string; bodies: string[] }[];
}

/** Each append's ledger records, as JSON; none when they could not be chained here (the store chains them on the main thread, which raises the same error where it belongs). */
export interface ChainAnswer {
  records?: string[][];
}

/** Each append's records (JSON), continuing from the heads the append before it in the same stream left. */
function chainRequest(heads: ChainRequest['heads'], appends: ChainRequest['appends']): string[][] {
  const tips = new Map(Object.entries(heads));
  return appends.map(({ streamId, bodies }) => {
    const chained = chainWithFreshSalts(tips.get(streamId) ?? {}, bodies.map((body) => JSON.parse(body)));
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

/** Ready once warm; nothing to close at STOP. */
serveRequests(
  () => {
    warmUp();
    return { close: () => undefined };
  },
  (_, { heads, appends }: ChainRequest): ChainAnswer => {
    try {
      return { records: chainRequest(heads, appends) };
    } catch {
      return {};
    }
  },
);
