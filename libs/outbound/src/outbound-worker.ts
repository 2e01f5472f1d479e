import { setTimeout as sleep } from 'node:timers/promises';
import type { NewDeliveryAttempt } from '@im/read-models';
import { ABORTED, type OutboundChannel, type OutboundMessage, type OutboundTarget, type SendOutcome } from './outbound-channel';
import type { LedgerTail } from './ledger-tail';
import type { OutboundJournal } from './outbound-journal';
import type { RetrySchedule } from './retry-schedule';

/** Events a worker takes from the ledger tail per step: a bound on one step's work and memory, not a knob (docs/benchmarks.md, "Webhook delivery", measured with it). */
const BATCH = 200;
/** How often a channel that puts messages off is asked which are due. */
const DUE_POLL_MS = 1000;
/** After an unexpected error (the store, the PDP), the pause before the same events are tried again. */
const ERROR_PAUSE_MS = 1000;

export interface WorkerContext<Target extends OutboundTarget, Message extends OutboundMessage> {
  channel: OutboundChannel<Target, Message>;
  tail: LedgerTail;
  journal: OutboundJournal;
  schedule: RetrySchedule;
  attemptId: () => string;
  now: () => number;
  onError: (target: Target, error: unknown) => void;
}

export const consumerOf = (channel: string, targetId: string) => `${channel}:${targetId}`;

/**
 * Delivers the ledger to one target, in ledger order, one event at a time:
 * each event until it succeeds or its retries end, then the next (unless the
 * channel takes a failed message's retries over: then the next goes at once).
 * Each target has its own worker, so a slow or failing endpoint holds up only itself.
 */
export class OutboundWorker<Target extends OutboundTarget, Message extends OutboundMessage> {
  private readonly stopping = new AbortController();
  /** When `due` was last asked (performance.now()). */
  private dueAskedAt = -Infinity;
  private running: Promise<void> = Promise.resolve();
  private readonly consumer: string;

  constructor(
    private readonly context: WorkerContext<Target, Message>,
    readonly target: Target,
    private position: bigint,
  ) {
    this.consumer = consumerOf(context.channel.name, target.id);
  }

  start(): void {
    this.running = this.loop();
  }

  /** Stops at once: a request in flight is cut, and its event is delivered again after a restart. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  /** Records one attempt of this target (a re-send goes through here too). */
  async attempt(message: Message, signal: AbortSignal): Promise<SendOutcome | undefined> {
    const started = this.context.now();
    const outcome = await this.context.channel.send(this.target, message, signal);
    if (outcome.error === ABORTED) return undefined;
    const attempt: NewDeliveryAttempt = {
      id: this.context.attemptId(),
      channel: this.context.channel.name,
      targetId: this.target.id,
      eventId: message.eventId,
      position: message.position,
      messageId: message.messageId,
      attemptedAt: new Date(started).toISOString(),
      statusCode: outcome.statusCode,
      error: outcome.error,
      durationMs: Math.max(0, this.context.now() - started),
    };
    this.context.journal.record(this.consumer, attempt);
    if (outcome.gone) {
      this.stopping.abort();
      await this.context.channel.retire(this.target);
    }
    return outcome;
  }

  private async loop(): Promise<void> {
    const { tail, channel, journal } = this.context;
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      try {
        if (!(await this.deliverDue(signal))) return;
        const events = await tail.read(this.position, BATCH);
        if (events.length === 0) {
          // A channel with messages put off is woken to look for those due, not only by the ledger.
          await tail.waitBeyond(this.position, signal, channel.due ? DUE_POLL_MS : undefined);
          continue;
        }
        const messages = await channel.prepare(this.target, events);
        for (const message of messages) {
          if (!(await this.deliver(message, signal))) return;
          journal.advance(this.consumer, message.position);
        }
        this.position = events[events.length - 1].position;
        journal.advance(this.consumer, this.position);
      } catch (error) {
        this.context.onError(this.target, error);
        await sleep(ERROR_PAUSE_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /**
   * Delivers what the channel put off and is due now, asking at most once per DUE_POLL_MS (by the
   * monotonic clock: a ledger batch every few milliseconds need not cost a query each); false
   * when the worker stopped on the way.
   */
  private async deliverDue(signal: AbortSignal): Promise<boolean> {
    // 0.9: a poll timer may fire a little before DUE_POLL_MS by this clock, and must not skip its turn.
    if (!this.context.channel.due || performance.now() - this.dueAskedAt < DUE_POLL_MS * 0.9) return true;
    this.dueAskedAt = performance.now();
    for (const message of await this.context.channel.due(this.target)) {
      if (!(await this.deliver(message, signal))) return false;
    }
    return true;
  }

  /**
   * Tries one event until it succeeds or its retries end (true), or the
   * worker stops (false). The retry window counts from the message's first
   * attempt in the log, so a restart does not open a new one.
   */
  private async deliver(message: Message, signal: AbortSignal): Promise<boolean> {
    for (;;) {
      const outcome = await this.attempt(message, signal);
      if (!outcome || signal.aborted) return false;
      const delay = outcome.error === null || outcome.final ? undefined : await this.retryDelay(message);
      // Sent, or given up: the log shows every failed attempt, and the next event goes.
      if (delay === undefined) {
        await this.context.channel.settled?.(this.target, message, outcome);
        return true;
      }
      if (this.context.channel.postpone) {
        await this.context.channel.postpone(this.target, message, new Date(this.context.now() + delay));
        return true;
      }
      const slept = await sleep(delay, true, { signal }).catch(() => false);
      if (!slept) return false;
    }
  }

  /** The pause before the message's next attempt, from its attempts so far; undefined when its window is over. */
  private async retryDelay(message: Message): Promise<number | undefined> {
    const history = await this.context.journal.history(this.consumer, { channel: this.context.channel.name, targetId: this.target.id, position: message.position, messageId: message.messageId });
    const now = this.context.now();
    return this.context.schedule.nextDelayMs(history?.attempts ?? 1, history ? Date.parse(history.firstAttemptedAt) : now, now);
  }
}
