import type { DataClass, Visibility } from '@im/cloudevents';
import type { TimelineEntry } from './timeline-entry';

export interface TimelineQuery {
  incidentId?: string;
  correlationKey?: string;
  fingerprint?: string;
  /** Exact type, or every type starting with `prefix` (from a `im.incident.*` pattern). */
  type?: { exact: string } | { prefix: string };
  actor?: string;
  /** Inclusive bounds on eventTime, UTC ISO strings. */
  from?: string;
  to?: string;
  order: 'asc' | 'desc';
  limit: number;
  /** Keyset: continue strictly after this entry in the query's order. */
  after?: TimelinePosition;
}

export interface TimelinePosition {
  eventTime: string;
  position: bigint;
}

/**
 * An event of the timeline read model. What the policy decides on and a page
 * is ordered by is read without the document (the store keeps it in columns);
 * the entry is parsed from the document only when first asked for.
 */
export interface TimelineRow {
  readonly position: bigint;
  readonly incidentId: string;
  readonly eventTime: string;
  readonly visibility: Visibility;
  readonly dataClass: DataClass[];
  readonly entry: TimelineEntry;
  /** The entry's read view with nothing redacted, as JSON text: as stored, or serialised when first asked for. */
  readonly viewJson: string;
}

/** Nest injection token of the TimelineQueries port. */
export const TIMELINE_QUERIES = Symbol('TIMELINE_QUERIES');

/** Query side of the timeline read model. */
export interface TimelineQueries {
  /** The first stored event with this CloudEvent id. */
  findByEventId(id: string): Promise<TimelineRow | undefined>;
  /** Ordered by (eventTime, position), ascending or descending. */
  list(query: TimelineQuery): Promise<TimelineRow[]>;
}
