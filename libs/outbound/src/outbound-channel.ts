import type { RecordedEvent } from '@im/event-store';

/** Someone a channel delivers to (a webhook registration; the notifications' mail or push). */
export interface OutboundTarget {
  id: string;
  /** Its first event is the first after this ledger position: a new target receives no history. */
  startAfter: bigint;
}

/** One event, made ready for one target. */
export interface OutboundMessage {
  eventId: string;
  position: bigint;
  /** The id the receiver de-duplicates on: the same on every attempt and re-send of the event. */
  messageId: string;
}

export interface SendOutcome {
  /** The answer's status; null when none came. */
  statusCode: number | null;
  /** null on success; else a short code, e.g. `timeout`, `blocked_address`, `unsuccessful_status`. */
  error: string | null;
  /** The target said it is gone for good (a webhook's 410): deliveries to it end. */
  gone?: boolean;
  /** The failure is permanent for this message (a mail server's 5xx for its recipient): it is not retried, the next one goes. */
  final?: boolean;
}

/**
 * What differs between outbound channels; everything else (following the
 * ledger from a checkpoint per target, retries, isolation, the attempt log,
 * re-sends) is the dispatcher's.
 */
export interface OutboundChannel<Target extends OutboundTarget, Message extends OutboundMessage> {
  /** Names the channel in the attempt log and the checkpoints (`<name>:<target id>`). */
  readonly name: string;
  /**
   * The messages for these events, in ledger order, leaving out what the
   * target must not receive. Throws when it cannot decide now (a policy
   * decision point down): the same events are prepared again later, never skipped.
   */
  prepare(target: Target, events: RecordedEvent[]): Promise<Message[]>;
  /** One attempt; resolves (never rejects) with its outcome, `aborted` when the signal stopped it. */
  send(target: Target, message: Message, signal: AbortSignal): Promise<SendOutcome>;
  /** Called once when the target answered that it is gone. */
  retire(target: Target): Promise<void>;
  /**
   * Messages the channel put off (a responder's quiet hours) whose time has
   * come, including those put off before a restart: the worker delivers them
   * between ledger batches like any other, retries included.
   */
  due?(target: Target): Promise<Message[]>;
  /**
   * Takes over a failed message's retry at `retryAt` (stored, and handed back
   * by `due` then): the worker goes on to the next message at once. For
   * channels whose messages need no order among them (notifications), so
   * one failing recipient never holds up the others. Without it the worker
   * waits and retries in place, keeping the target's order (webhooks).
   */
  postpone?(target: Target, message: Message, retryAt: Date): Promise<void>;
  /** A message's last attempt is made: it succeeded, or its retries are over (`outcome.error` set). */
  settled?(target: Target, message: Message, outcome: SendOutcome): Promise<void>;
}

/** The outcome of an attempt cut short by a shutdown: not recorded, the event is delivered again after the restart. */
export const ABORTED = 'aborted';
