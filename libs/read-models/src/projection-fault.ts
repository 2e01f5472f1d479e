import type { RecordedEvent } from '@im/event-store';

/**
 * An event a projection could not fold, skipped after a bounded number of
 * attempts so that one event cannot stop the read models. The event stays in
 * the ledger; only this projection's read model lacks it.
 */
export interface ProjectionFault {
  projection: string;
  /** Log position of the event: with the projection, what identifies the fault. */
  position: bigint;
  eventId: string;
  streamId: string;
  /** What the fold threw. */
  error: string;
  /** When this projection first and last failed on the event (RFC 3339 UTC). */
  firstSeen: string;
  lastSeen: string;
}

/**
 * The projection's own code (keyOf/evolve) threw on an event: a fault of that
 * event, unlike an error of the store, which is transient and retried forever.
 */
export class FoldError extends Error {
  constructor(
    readonly projection: string,
    readonly event: RecordedEvent,
    readonly reason: unknown,
  ) {
    super(`projection ${projection} cannot fold event ${event.event.id} (position ${event.position}, stream ${event.streamId}): ${messageOf(reason)}`);
    this.name = 'FoldError';
  }

  toFault(firstSeen: string, lastSeen = new Date().toISOString()): ProjectionFault {
    const { projection, event } = this;
    return { projection, position: event.position, eventId: event.event.id, streamId: event.streamId, error: messageOf(this.reason), firstSeen, lastSeen };
  }
}

const messageOf = (reason: unknown) => (reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason));
