import { setTimeout as sleep } from 'node:timers/promises';
import type { EventStore, RecordedEvent } from '@im/event-store';
import type { OutboundStore, ResendRequest } from '@im/read-models';
import { AttemptIds } from './attempt-ids';
import { DeliveryLogPruner } from './delivery-log-pruner';
import type { OutboundChannel, OutboundMessage, OutboundTarget } from './outbound-channel';
import { LedgerTail } from './ledger-tail';
import { OutboundJournal } from './outbound-journal';
import { consumerOf, OutboundWorker, type WorkerContext } from './outbound-worker';
import type { RetrySchedule } from './retry-schedule';

/** How often re-sends asked for through the api (perhaps in another process) are looked for. */
const RESEND_POLL_MS = 500;

export interface DispatcherOptions {
  schedule: RetrySchedule;
  /** DELIVERY_LOG_DAYS: how long attempts stay in the log. */
  logDays: number;
  onError: (what: string, error: unknown) => void;
  now?: () => number;
}

/** One for the process: every channel's attempts share the log's ids. */
const attemptIds = new AttemptIds();

/**
 * Runs one outbound channel: a durable consumer of the ledger per target,
 * each resuming from its own checkpoint (a new target from its start
 * position), all reading through one ledger subscription and committing
 * through one journal; the re-sends asked for through the api; and the
 * pruning of the channel's delivery log.
 */
export class OutboundDispatcher<Target extends OutboundTarget, Message extends OutboundMessage> {
  private readonly tail: LedgerTail;
  private readonly journal: OutboundJournal;
  private readonly pruner: DeliveryLogPruner;
  private readonly workers = new Map<string, OutboundWorker<Target, Message>>();
  private readonly context: WorkerContext<Target, Message>;
  /** Target changes apply one at a time, in the order they were made. */
  private changes: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();
  private resending: Promise<void> = Promise.resolve();

  constructor(
    private readonly channel: OutboundChannel<Target, Message>,
    private readonly eventStore: EventStore,
    private readonly store: OutboundStore,
    private readonly options: DispatcherOptions,
  ) {
    const now = options.now ?? Date.now;
    this.tail = new LedgerTail(eventStore);
    this.journal = new OutboundJournal(store, (error) => options.onError('commit deliveries', error));
    this.pruner = new DeliveryLogPruner(store, channel.name, options.logDays, now, (error) => options.onError(`prune the ${channel.name} delivery log`, error));
    this.context = {
      channel,
      tail: this.tail,
      journal: this.journal,
      schedule: options.schedule,
      attemptId: () => attemptIds.next(now()),
      now,
      onError: (target, error) => options.onError(`deliver to ${channel.name} ${target.id}`, error),
    };
  }

  /** Follows the ledger from its head; answers that head (targets registered up to it are added by the caller). */
  async start(onEvents: (events: RecordedEvent[]) => void): Promise<bigint> {
    this.tail.listen(onEvents);
    this.journal.start();
    this.pruner.start();
    return this.tail.start((error) => this.options.onError('follow the ledger', error));
  }

  /** Carries out re-sends from now on: once the targets known at start are added, so none is dropped for want of its worker. */
  serveResends(): void {
    this.resending = this.resendLoop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.changes;
    await Promise.all([...this.workers.values()].map((worker) => worker.stop()));
    this.workers.clear();
    await this.resending;
    await this.pruner.stop();
    await this.tail.stop();
    await this.journal.stop();
  }

  /** Starts delivering to a target (again, after a restart: from its checkpoint). */
  add(target: Target): Promise<void> {
    return this.change(async () => {
      if (this.workers.has(target.id) || this.stopping.signal.aborted) return;
      const checkpoint = await this.store.checkpoint(consumerOf(this.channel.name, target.id));
      const resumeAfter = checkpoint !== undefined && checkpoint > target.startAfter ? checkpoint : target.startAfter;
      const worker = new OutboundWorker(this.context, target, resumeAfter);
      this.workers.set(target.id, worker);
      worker.start();
    });
  }

  /** Stops delivering to a target (removed, disabled): a request in flight is cut. */
  remove(targetId: string): Promise<void> {
    return this.change(async () => {
      const worker = this.workers.get(targetId);
      this.workers.delete(targetId);
      await worker?.stop();
    });
  }

  private change(work: () => Promise<void>): Promise<void> {
    this.changes = this.changes.then(work).catch((error) => this.options.onError(`change ${this.channel.name} targets`, error));
    return this.changes;
  }

  private async resendLoop(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      try {
        const requests = await this.store.pendingResends(this.channel.name);
        await Promise.all(requests.map((request) => this.resend(request)));
      } catch (error) {
        this.options.onError(`re-send ${this.channel.name} deliveries`, error);
      }
      await sleep(RESEND_POLL_MS, undefined, { signal }).catch(() => undefined);
    }
  }

  /**
   * Sends an attempt's event once more, prepared as the target may see it now
   * (with the same message id), once. A request for a target this process no
   * longer delivers to (removed or disabled since) is dropped.
   */
  private async resend(request: ResendRequest): Promise<void> {
    const worker = this.workers.get(request.targetId);
    const message = worker && (await this.messageOf(worker.target, request.attemptId));
    if (worker && message) {
      if (!(await worker.attempt(message, this.stopping.signal))) return;
      await this.journal.committed();
    }
    await this.store.completeResend(request.id);
  }

  private async messageOf(target: Target, attemptId: string): Promise<Message | undefined> {
    const attempt = await this.store.findAttempt(this.channel.name, target.id, attemptId);
    if (!attempt) return undefined;
    const [event] = await this.eventStore.readAll(attempt.position - 1n, 1);
    return event?.position === attempt.position ? (await this.channel.prepare(target, [event]))[0] : undefined;
  }
}
