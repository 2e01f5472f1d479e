import type { EventStore, RecordedEvent, Subscription } from '@im/event-store';
import type { DocumentWrite, ProjectionCommit, ReadStore } from './read-store.port';
import type { Projection } from './projection';
import type { ProjectionProgress } from './projection-progress';

export class ProjectionLagError extends Error {}
export class ReadModelsAheadError extends Error {}

const REBUILD_BATCH = 2000;

/** Folds a batch into a projection's documents: what to write, and the checkpoint to write with it. */
export async function foldBatch<Doc>(readStore: ReadStore, projection: Projection<Doc>, batch: RecordedEvent[]): Promise<ProjectionCommit<Doc>> {
  const keyed = batch.map((event) => ({ event, key: projection.keyOf(event) }));
  const keys = keyed.flatMap(({ key }) => (key === undefined ? [] : [key]));
  const stored = projection.writeOnce || keys.length === 0 ? new Map() : await readStore.load<Doc>(projection.name, keys);
  const changed = new Map<string, DocumentWrite<Doc>>();
  for (const { event, key } of keyed) {
    if (key === undefined) continue;
    const current = changed.get(key) ?? stored.get(key);
    // At-least-once delivery: an event the document already reflects is skipped.
    if (current && current.position >= event.position) continue;
    const doc = projection.evolve(current?.doc, event);
    // A fold that returns the document it was given changed nothing: no write.
    if (current && doc === current.doc) continue;
    changed.set(key, { key, doc, position: event.position });
  }
  return { projection: projection.name, writes: [...changed.values()], position: batch[batch.length - 1].position };
}

/** Replays the whole log into freshly emptied read models. Returns the number of events replayed. */
export async function rebuildProjections(
  eventStore: EventStore,
  readStore: ReadStore,
  projections: Projection<unknown>[],
): Promise<number> {
  for (const projection of projections) await readStore.reset(projection.name);
  return readStore.bulkLoad(async () => {
    let after = 0n;
    let count = 0;
    for (;;) {
      const batch = await eventStore.readAll(after, REBUILD_BATCH);
      if (batch.length === 0) return count;
      await readStore.commitBatch(await Promise.all(projections.map((projection) => foldBatch(readStore, projection, batch))));
      after = batch[batch.length - 1].position;
      count += batch.length;
    }
  });
}

/** How many recent events the lag figures cover. */
const LAG_WINDOW = 10_000;

/** Time from the ledger storing an event to every read model showing it, over the recent events. */
export interface LagSummary {
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

interface Waiter {
  position: bigint;
  resolve: () => void;
}

/**
 * Keeps every projection caught up with the log, each from its own checkpoint,
 * and lets a command wait until the read models show what it appended.
 */
export class ProjectionRunner implements ProjectionProgress {
  private readonly applied = new Map<string, bigint>();
  private readonly subscriptions: Subscription[] = [];
  private waiters: Waiter[] = [];
  private readonly lags = new Float64Array(LAG_WINDOW);
  private lagCount = 0;

  constructor(
    private readonly eventStore: EventStore,
    private readonly readStore: ReadStore,
    private readonly projections: Projection<unknown>[],
    private readonly onError: (projection: string, error: unknown) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    for (const projection of this.projections) {
      this.applied.set(projection.name, await this.readStore.checkpoint(projection.name));
    }
    const head = await this.eventStore.headPosition();
    const ahead = [...this.applied].find(([, position]) => position > head);
    // Read models past the end of the log mean the log lost events (a restore from an older backup): folding on would skip new ones.
    if (ahead) {
      throw new ReadModelsAheadError(
        `Read model ${ahead[0]} has applied position ${ahead[1]}, beyond the end of the event log (${head}); run "npm run projections:rebuild"`,
      );
    }
    // One subscription for all projections: the log is read and parsed once, each takes what it has not applied.
    this.subscriptions.push(
      this.eventStore.subscribeToAll(
        this.position,
        async (batch) => {
          // Every projection folds what it has not applied yet (concurrently); one commit stores them all.
          const folded = await Promise.all(
            this.projections.map((projection) => {
              const applied = this.applied.get(projection.name) ?? 0n;
              const pending = batch.filter((event) => event.position > applied);
              return pending.length ? foldBatch(this.readStore, projection, pending) : undefined;
            }),
          );
          const commits = folded.filter((commit): commit is ProjectionCommit => commit !== undefined);
          if (commits.length) await this.readStore.commitBatch(commits);
          commits.forEach((commit) => this.applied.set(commit.projection, commit.position));
          this.recordLag(batch);
          this.wake();
        },
        (error) => this.onError('projections', error),
      ),
    );
  }

  private recordLag(batch: RecordedEvent[]): void {
    const now = Date.now();
    for (const event of batch) this.lags[this.lagCount++ % LAG_WINDOW] = now - Date.parse(event.recordedAt);
  }

  recentLag(): LagSummary | undefined {
    const n = Math.min(this.lagCount, LAG_WINDOW);
    if (n === 0) return undefined;
    const sorted = this.lags.slice(0, n).sort();
    const at = (q: number) => sorted[Math.min(n - 1, Math.ceil(q * n) - 1)];
    return { events: n, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted[n - 1] };
  }

  async appliedPosition(): Promise<bigint> {
    return this.position;
  }

  /** The lowest position every projection has applied. */
  get position(): bigint {
    let lowest: bigint | undefined;
    for (const position of this.applied.values()) if (lowest === undefined || position < lowest) lowest = position;
    return lowest ?? 0n;
  }

  /** Resolves once every projection has applied what the log holds now. */
  async catchUp(timeoutMs: number): Promise<void> {
    await this.waitFor(await this.eventStore.headPosition(), timeoutMs);
  }

  /** Resolves once every projection has applied `position`; rejects with ProjectionLagError after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<void> {
    if (this.position >= position) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new ProjectionLagError(`Read models did not reach position ${position} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  private wake(): void {
    const reached = this.position;
    const ready = this.waiters.filter((w) => w.position <= reached);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.position > reached);
    ready.forEach((w) => w.resolve());
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }
}
