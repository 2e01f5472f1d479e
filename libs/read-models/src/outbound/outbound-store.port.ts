/** Nest injection token of the OutboundStore port. */
export const OUTBOUND_STORE = Symbol('OUTBOUND_STORE');

/**
 * One attempt to deliver one ledger event to one target of an outbound
 * channel (a webhook registration; later a responder's mail or push).
 */
export interface DeliveryAttempt {
  /** Ordered: a later attempt of the same target has a greater id. */
  id: string;
  channel: string;
  targetId: string;
  eventId: string;
  /** Ledger position of the event: what a re-send reads back. */
  position: bigint;
  /** The message id the receiver sees (webhook-id), the same on every attempt of the event. */
  messageId: string;
  /** From 1 per event (its ledger position) and target, re-sends included: numbered by the store as it records the attempt, one past the event's last. */
  attempt: number;
  attemptedAt: string;
  /** null when no answer came. */
  statusCode: number | null;
  /** null on success. */
  error: string | null;
  durationMs: number;
}

export type NewDeliveryAttempt = Omit<DeliveryAttempt, 'attempt'>;

/** One message to one target: its event's ledger position and its message id (a channel may send one event as several messages, to several people). */
export type MessageOfTarget = Pick<DeliveryAttempt, 'channel' | 'targetId' | 'position' | 'messageId'>;

/** What a consumer has finished since its last commit: the attempts it made, and how far through the ledger it is. */
export interface OutboundProgress {
  /** One checkpoint per consumer: `<channel>:<target id>`. */
  consumer: string;
  /** Every event up to here is done with; undefined: attempts only (a re-send). */
  position?: bigint;
  attempts: NewDeliveryAttempt[];
}

/** The channel of a consumer (`<channel>:<target id>`): whose lease fences its commits. */
export const channelOfConsumer = (consumer: string) => consumer.split(':', 1)[0];

/** The attempts made so far of one message to one target (a retry window counts from the first, whatever restarted since). */
export interface AttemptHistory {
  attempts: number;
  firstAttemptedAt: string;
}

/** A re-send asked for through the api, carried out by whichever process delivers. */
export interface ResendRequest {
  id: string;
  channel: string;
  targetId: string;
  /** The attempt whose event is sent again. */
  attemptId: string;
  requestedAt: string;
}

/**
 * Storage of outbound deliveries: the consumers' checkpoints, the log of
 * attempts, and the re-sends waiting. Kept beside the read models (the same
 * SQLite file, MongoDB or PostgreSQL database), but none of it is rebuilt from the log:
 * a rebuild of the read models leaves it alone.
 */
export interface OutboundStore {
  /** Where the consumer resumes; undefined before its first commit. */
  checkpoint(consumer: string): Promise<bigint | undefined>;
  /**
   * Records the attempts (numbering each) and moves the checkpoints forward
   * (never back), atomically where the store allows it; a crash before it
   * returns delivers those events again (at least once).
   */
  commit(progress: OutboundProgress[]): Promise<void>;
  /** The target's attempts, newest first. */
  attempts(channel: string, targetId: string, limit: number): Promise<DeliveryAttempt[]>;
  findAttempt(channel: string, targetId: string, attemptId: string): Promise<DeliveryAttempt | undefined>;
  /** How often the message was tried on the target, and when first; undefined: never. */
  history(message: MessageOfTarget): Promise<AttemptHistory | undefined>;
  requestResend(request: ResendRequest): Promise<void>;
  /** Re-sends of the channel not yet carried out, oldest first. */
  pendingResends(channel: string): Promise<ResendRequest[]>;
  /** Called once the re-send's attempt is committed. */
  completeResend(id: string): Promise<void>;
  /**
   * Removes from the log up to `limit` of the channel's attempts whose id
   * sorts before `before`, oldest first (ids begin with the time they were
   * made: see AttemptIds); answers how many it removed. An event's later
   * attempts keep their numbers, and the next one is numbered after them.
   */
  pruneAttempts(channel: string, before: string, limit: number): Promise<number>;
}
