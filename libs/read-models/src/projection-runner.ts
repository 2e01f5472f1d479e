import { setTimeout as sleep } from 'node:timers/promises';
import type { EventStore, RecordedEvent, Subscription } from '@im/event-store';
import type { DocumentWrite, ProjectionCommit, ProjectionStore } from './projection-store.port';
import type { Projection } from './projection';
import { ProjectionLagError, type ProjectionProgress } from './projection-progress';
import type { CatchUpProgress, LagSummary, ProjectionWorker } from './projection-worker';
import { FoldError, type ProjectionFault } from './projection-fault';

/** The read models have applied positions the log does not hold. */
export class ReadModelsAheadError extends Error {}

/** Events per read and commit of a rebuild or bulk catch-up (docs/benchmarks.md, "Rebuild"; docs/decisions.md names the batches of 2,000). */
const REBUILD_BATCH = 2000;

/**
 * A projection this many events behind the head when the runner starts (a new
 * read model, emptied read models) is caught up as a rebuild is: large batches
 * and its indexes built once at the end (bulkLoad), before the runner follows the log.
 */
export const BULK_CATCH_UP_EVENTS = 50_000;
/** The pause before a failed bulk batch (the store briefly unavailable) is read again. */
const BULK_RETRY_DELAY_MS = 1000;

/**
 * Attempts a projection gets at an event it cannot fold before the runner records a fault and skips it.
 * A fold is deterministic, so the error is almost always the event's; the attempts guard against one
 * that was the moment's (a stack overflow that depended on the call depth, memory pressure).
 */
export const MAX_FOLD_ATTEMPTS = 3;
/** The pause between a fold's attempts: long enough for a moment's memory pressure to pass. */
const FOLD_RETRY_DELAY_MS = 100;

/** Decides what a fold error becomes: a fault to record and skip past, or undefined to fail the batch (and retry). */
export type FaultPolicy = (failure: FoldError) => ProjectionFault | undefined;

const failBatch: FaultPolicy = () => undefined;
const SKIPPED = Symbol('skipped');

/**
 * Folds a batch into a projection's documents: what to write, and the checkpoint to write with it.
 * Where the projection's own code throws on an event, `faultFor` decides: skip it (the fault is
 * committed with the checkpoint) or throw FoldError. Errors of the store propagate as they are.
 */
export async function foldBatch<Doc>(
  store: ProjectionStore,
  projection: Projection<Doc>,
  batch: RecordedEvent[],
  faultFor: FaultPolicy = failBatch,
): Promise<ProjectionCommit<Doc>> {
  const faults: ProjectionFault[] = [];
  const guarded = <T>(event: RecordedEvent, run: () => T): T | typeof SKIPPED => {
    try {
      return run();
    } catch (reason) {
      const failure = new FoldError(projection.name, event, reason);
      const fault = faultFor(failure);
      if (!fault) throw failure;
      faults.push(fault);
      return SKIPPED;
    }
  };
  const keyed = batch.map((event) => ({ event, key: guarded(event, () => projection.keyOf(event)) }));
  const keys = keyed.flatMap(({ key }) => (typeof key === 'string' ? [key] : []));
  const stored = projection.writeOnce || keys.length === 0 ? new Map() : await store.load<Doc>(projection.name, keys);
  const changed = new Map<string, DocumentWrite<Doc>>();
  for (const { event, key } of keyed) {
    if (typeof key !== 'string') continue;
    const current = changed.get(key) ?? stored.get(key);
    // At-least-once delivery: an event the document already reflects is skipped.
    if (current && current.position >= event.position) continue;
    const doc = guarded(event, () => projection.evolve(current?.doc, event));
    // A fold that returns the document it was given changed nothing: no write.
    if (doc === SKIPPED || (current && doc === current.doc)) continue;
    changed.set(key, { key, doc, position: event.position });
  }
  const commit: ProjectionCommit<Doc> = { projection: projection.name, writes: [...changed.values()], position: batch[batch.length - 1].position };
  if (faults.length) commit.faults = faults;
  return commit;
}

/**
 * Replays the whole log into freshly emptied read models. Returns the number of events replayed.
 * A replay folds every event once: an event a projection cannot fold is recorded as a fault at once
 * (a fold is deterministic, trying again would throw again) and the rebuild goes on.
 */
export async function rebuildProjections(
  eventStore: EventStore,
  store: ProjectionStore,
  projections: Projection<unknown>[],
): Promise<number> {
  for (const projection of projections) await store.reset(projection.name);
  return store.bulkLoad(async () => {
    let after = 0n;
    let count = 0;
    for (;;) {
      const batch = await eventStore.readAll(after, REBUILD_BATCH);
      if (batch.length === 0) return count;
      const seen = new Date().toISOString();
      const recordFault: FaultPolicy = (failure) => failure.toFault(seen, seen);
      await store.commitBatch(await Promise.all(projections.map((projection) => foldBatch(store, projection, batch, recordFault))));
      after = batch[batch.length - 1].position;
      count += batch.length;
    }
  });
}

/** How many recent events the lag figures cover. */
const LAG_WINDOW = 10_000;

interface Waiter {
  position: bigint;
  resolve: () => void;
}

/** What the runner reports while it works; both only log. */
export interface RunnerListener {
  /** A fold error with attempts left, or a store error (projection "projections"): retried. */
  onRetry?(projection: string, error: unknown): void;
  /** A projection gave up on an event: recorded as a fault and skipped. */
  onFault?(fault: ProjectionFault): void;
}

interface FailingFold {
  projection: string;
  position: bigint;
  attempts: number;
  firstSeen: string;
}

/**
 * Keeps every projection caught up with the log, each from its own checkpoint
 * (the worker), and lets a command wait until the read models show what it
 * appended (the progress, in this process).
 */
export class ProjectionRunner implements ProjectionWorker, ProjectionProgress {
  private readonly applied = new Map<string, bigint>();
  private readonly subscriptions: Subscription[] = [];
  private waiters: Waiter[] = [];
  private readonly lags = new Float64Array(LAG_WINDOW);
  private lagCount = 0;
  /** Events a projection failed to fold, by projection and position, until they are applied or skipped. */
  private readonly failing = new Map<string, FailingFold>();
  private bulk: Omit<CatchUpProgress, 'applied'> | undefined;
  private bulkDone: Promise<void> | undefined;
  private stopping = false;

  constructor(
    private readonly eventStore: EventStore,
    private readonly store: ProjectionStore,
    private readonly projections: Projection<unknown>[],
    private readonly listener: RunnerListener = {},
    private readonly bulkCatchUpEvents = BULK_CATCH_UP_EVENTS,
  ) {}

  /** Whether it follows the log now (started, not stopped): its progress is then this process's own. */
  get running(): boolean {
    return this.subscriptions.length > 0 || this.bulk !== undefined;
  }

  /** Starts, or starts again after stop (under a lease won back): from the checkpoints as they are now. */
  async start(): Promise<void> {
    this.stopping = false;
    for (const projection of this.projections) {
      this.applied.set(projection.name, await this.store.checkpoint(projection.name));
    }
    const head = await this.eventStore.headPosition();
    const ahead = [...this.applied].find(([, position]) => position > head);
    // Read models past the end of the log mean the log lost events (a restore from an older backup): folding on would skip new ones.
    if (ahead) {
      throw new ReadModelsAheadError(
        `Read model ${ahead[0]} has applied position ${ahead[1]}, beyond the end of the event log (${head}); run "npm run projections:rebuild"`,
      );
    }
    const behind = this.projections.filter((p) => head - (this.applied.get(p.name) ?? 0n) >= BigInt(this.bulkCatchUpEvents)).map((p) => p.name);
    if (behind.length === 0) return this.follow();
    // Far behind: catch up in bulk in the background, so the application starts and answers meanwhile.
    this.bulk = { projections: behind, from: this.position, head, startedAt: Date.now() };
    const thenFollow = () => {
      this.bulk = undefined;
      if (!this.stopping) this.follow();
    };
    // Only building the indexes at the end can throw here; the subscription takes over either way.
    this.bulkDone = this.catchUpInBulk(behind).then(thenFollow, (error: unknown) => {
      this.listener.onRetry?.('projections', error);
      thenFollow();
    });
  }

  /** The bulk catch-up under way, if any. */
  catchUpProgress(): CatchUpProgress | undefined {
    return this.bulk && { ...this.bulk, applied: this.position };
  }

  /** One subscription for all projections: the log is read and parsed once, each takes what it has not applied. */
  private follow(): void {
    this.subscriptions.push(
      this.eventStore.subscribeToAll(
        this.position,
        async (batch) => {
          await this.apply(batch);
          this.recordLag(batch);
        },
        (error) => this.listener.onRetry?.('projections', error),
      ),
    );
  }

  /**
   * Reads the log in rebuild-sized batches and applies them with the projections' indexes down
   * (kept crash safe: the api writes beside it), until a batch reaches the head; the indexes are
   * built once at the end. Each batch is applied as the subscription applies one (checkpoints,
   * faults after bounded attempts, waiting writes woken), and the event loop gets a turn between
   * batches so the application keeps answering. The lag is not recorded: these events are old.
   */
  private catchUpInBulk(projections: string[]): Promise<void> {
    return this.store.bulkLoad(
      async () => {
        while (!this.stopping) {
          try {
            const batch = await this.eventStore.readAll(this.position, REBUILD_BATCH);
            if (batch.length) await this.apply(batch);
            if (batch.length < REBUILD_BATCH) return;
          } catch (error) {
            // A store error: the batch is read and applied again, faults included, as the subscription does.
            this.listener.onRetry?.('projections', error);
            await sleep(BULK_RETRY_DELAY_MS);
          }
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
      { projections, crashSafe: true },
    );
  }

  /** Folds a batch into every projection that has not applied it and commits them together. */
  private async apply(batch: RecordedEvent[]): Promise<void> {
    const commits = await this.foldRetrying(batch);
    // A store error throws here and the batch is retried, faults included: none is lost or skipped unrecorded.
    if (commits.length) await this.store.commitBatch(commits);
    commits.forEach((commit) => this.applied.set(commit.projection, commit.position));
    this.forgetApplied();
    commits.forEach((commit) => commit.faults?.forEach((fault) => this.listener.onFault?.(fault)));
    this.wake();
  }

  /**
   * Every projection folds what it has not applied yet (concurrently), for one commit of them all.
   * A fold error is tried again after a short pause, in this call: the projection itself is not
   * waiting for anything, and a write waiting on the read models should not wait long. The policy
   * counts the attempts and makes the last one a fault, so this ends. Store errors go up to the
   * subscription, which retries the batch after its own delay, for as long as it takes.
   */
  private async foldRetrying(batch: RecordedEvent[]): Promise<ProjectionCommit[]> {
    for (;;) {
      try {
        const folded = await Promise.all(
          this.projections.map((projection) => {
            const applied = this.applied.get(projection.name) ?? 0n;
            const pending = batch.filter((event) => event.position > applied);
            return pending.length ? foldBatch(this.store, projection, pending, (failure) => this.faultAfterAttempts(failure)) : undefined;
          }),
        );
        return folded.filter((commit): commit is ProjectionCommit => commit !== undefined);
      } catch (error) {
        if (!(error instanceof FoldError)) throw error;
        this.listener.onRetry?.(error.projection, error);
        await sleep(FOLD_RETRY_DELAY_MS);
      }
    }
  }

  /** Turns a fold error into a fault once the projection has tried the event MAX_FOLD_ATTEMPTS times. */
  private faultAfterAttempts(failure: FoldError): ProjectionFault | undefined {
    const key = `${failure.projection}@${failure.event.position}`;
    const failing = this.failing.get(key) ?? { projection: failure.projection, position: failure.event.position, attempts: 0, firstSeen: new Date().toISOString() };
    failing.attempts += 1;
    this.failing.set(key, failing);
    return failing.attempts >= MAX_FOLD_ATTEMPTS ? failure.toFault(failing.firstSeen) : undefined;
  }

  private forgetApplied(): void {
    for (const [key, { projection, position }] of this.failing) {
      if (position <= (this.applied.get(projection) ?? 0n)) this.failing.delete(key);
    }
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
    this.stopping = true;
    await this.bulkDone;
    await Promise.all(this.subscriptions.splice(0).map((s) => s.stop()));
  }
}
