import { parentPort, Worker } from 'node:worker_threads';
import type { ChainHeads, LedgerRecord } from '@im/ledger-proof';
import { chainLedger } from './ledger-chaining';

/** What the worker chains: a batch's appends in order, each stream starting from the heads given for it. */
interface ChainRequest {
  id: number;
  /** The heads of each stream before the batch. */
  heads: Record<string, ChainHeads>;
  appends: { streamId: string; bodies: string[] }[];
}

/** Each append's ledger records, as JSON. */
interface ChainAnswer {
  id: number;
  records?: string[][];
  error?: string;
}

const READY = 'ledger-chaining-ready';

/**
 * The body of the worker thread: answers each request with chainLedger's
 * records, each append continuing from the heads the one before it in the
 * same stream left. Called by the entry script when it runs as a worker.
 */
export function serveLedgerChaining(): void {
  const port = parentPort;
  if (!port) throw new Error('serveLedgerChaining runs in a worker thread');
  port.on('message', ({ id, heads, appends }: ChainRequest) => {
    try {
      port.postMessage({ id, records: chainRequest(heads, appends) } satisfies ChainAnswer);
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message } satisfies ChainAnswer);
    }
  });
  warmUp();
  port.postMessage(READY);
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

/**
 * The ledger's links (salts, commitments and hashes: a fifth of the main
 * thread's time in an alert storm) computed in a worker thread, off the event
 * loop. The worker runs `entry`, a script that calls serveLedgerChaining()
 * when it is not the main thread (the api's bundle); it is started with the
 * store, and a request made before it is ready waits for it. Once it fails
 * (it could not start, or ended), `chain` answers undefined and the store
 * chains on the main thread as before.
 */
export class LedgerChainWorker {
  private failed = false;
  private nextId = 0;
  private readonly waiting = new Map<number, (records: string[][] | undefined) => void>();
  /** Resolves true once the worker serves, false if it fails first. */
  private readonly ready: Promise<boolean>;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    let settle: (ready: boolean) => void;
    this.ready = new Promise((resolve) => (settle = resolve));
    worker.on('message', (message: typeof READY | ChainAnswer) => {
      if (message === READY) return settle(true);
      const resolve = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      // A request the worker could not answer is chained on the main thread, which raises the same error where it belongs.
      resolve?.(message.records);
    });
    const fail = () => {
      this.failed = true;
      settle(false);
      for (const resolve of this.waiting.values()) resolve(undefined);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
  }

  static start(entry: string): LedgerChainWorker {
    return new LedgerChainWorker(new Worker(entry));
  }

  /** The records of each append (JSON), or undefined: chain them on the main thread. */
  async chain(heads: Map<string, ChainHeads>, appends: { streamId: string; bodies: string[] }[]): Promise<string[][] | undefined> {
    if (this.failed || !(await this.ready) || this.failed) return undefined;
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ id, heads: Object.fromEntries(heads), appends } satisfies ChainRequest);
    });
  }

  async stop(): Promise<void> {
    this.failed = true;
    await this.worker.terminate();
  }
}
