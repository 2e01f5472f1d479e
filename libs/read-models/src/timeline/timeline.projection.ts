import { type CloudEvent, type DataClass, parseTimestamp, SENDER, senderOf, TIMESTAMP_RULE, type Visibility } from '@im/cloudevents';
import type { RecordedEvent } from '@im/event-store';
import { INCIDENT_STREAM_PREFIX } from '@im/incidents';
import { documentSchema, type Projection } from '../projection';
import type { TimelineEntry } from './timeline-entry';
import { unredactedViewJson } from './timeline-event.view';
import type { TimelineRow } from './timeline-queries.port';

export type { TimelineEntry } from './timeline-entry';

/** What the timeline read model stores per event: the event itself and the keys it is sorted and found by. */
export interface TimelineRecord {
  incidentId: string;
  /** The CloudEvent `time` in UTC: what timelines sort and filter on. */
  eventTime: string;
  /** When the ledger stored the event. */
  createdAt: string;
  event: CloudEvent;
}

/** Events without im.visibility are internal. */
export const DEFAULT_VISIBILITY: Visibility = 'internal';

/** What a timeline line says when the event data has no title. */
const SUMMARIES: Record<string, string> = {
  'im.incident.declare': 'Incident declared',
  'im.incident.ack': 'Incident acknowledged',
  'im.incident.mitigate': 'Incident mitigated',
  'im.incident.resolve': 'Incident resolved',
  'im.incident.close': 'Incident closed',
  'im.incident.cancel': 'Incident canceled',
  'im.incident.duplicate': 'Incident marked a duplicate',
  'im.incident.note': 'Note',
  'im.incident.role_assigned': 'Role assigned',
  'im.incident.severity': 'Severity changed',
  'im.alert.trigger': 'Alert triggered',
  'im.alert.resolve': 'Alert resolved',
  'im.ticketing_a.sync': 'Ticket created or updated',
  'im.ticketing_b.sync': 'Issue created or updated',
  'im.paging.escalate': 'Escalation triggered',
};

const firstString = (...values: unknown[]) => values.find((v): v is string => typeof v === 'string');

/**
 * The timeline document of a stored event. The time is read with the parser the edge validated it
 * with; a time stored past that check (an older version, a direct write) cannot be ordered, and
 * the runner records the event as a projection fault instead of placing it at a made-up time.
 */
export function toTimelineRecord(recorded: RecordedEvent): TimelineRecord {
  const eventTime = parseTimestamp(recorded.event.time);
  if (eventTime === undefined) throw new Error(`time ${JSON.stringify(recorded.event.time)} is not ${TIMESTAMP_RULE}`);
  return {
    incidentId: recorded.streamId.slice(INCIDENT_STREAM_PREFIX.length),
    eventTime,
    createdAt: recorded.recordedAt,
    event: recorded.event,
  };
}

/** Event data apart from its title and its sender; data without either is used as it is, not copied (a page reads a thousand). */
function splitData(eventData: Record<string, unknown> | undefined): { title: unknown; sender: unknown; data: Record<string, unknown> } {
  if (eventData === undefined || eventData === null) return { title: undefined, sender: undefined, data: {} };
  if (Object.getPrototypeOf(eventData) === Object.prototype && !Object.hasOwn(eventData, 'title') && !Object.hasOwn(eventData, SENDER)) {
    return { title: undefined, sender: undefined, data: eventData };
  }
  const { title, [SENDER]: sender, ...data } = eventData;
  return { title, sender, data };
}

/** The read view of a stored event: derived per row on read, so the stored document stays small. */
export function toTimelineEntry({ incidentId, eventTime, createdAt, event }: TimelineRecord): TimelineEntry {
  const { title, data } = splitData(event.data);
  const sender = senderOf(event);
  const entry: TimelineEntry = {
    id: event.id,
    incidentId,
    eventTime,
    eventType: event.type,
    actor: event['im.actor'] ?? event.source,
    title: firstString(title) ?? SUMMARIES[event.type] ?? event.type,
    content: firstString(data.content, data.description, data.message) ?? '',
    source: event.source,
    data,
    createdAt,
    visibility: (event['im.visibility'] as Visibility | undefined) ?? DEFAULT_VISIBILITY,
    dataClass: (event['im.data_class'] as DataClass[] | undefined) ?? [],
    event,
  };
  if (sender !== undefined) entry.sender = sender;
  if (event['im.correlation_key'] !== undefined) entry.correlationKey = event['im.correlation_key'];
  if (event['im.fingerprint'] !== undefined) entry.fingerprint = event['im.fingerprint'];
  return entry;
}

/** Every event of every incident stream, keyed by its log position. */
export const timelineProjection: Projection<TimelineRecord> = {
  name: 'timeline',
  writeOnce: true,
  keyOf: ({ streamId, position }) => (streamId.startsWith(INCIDENT_STREAM_PREFIX) ? String(position) : undefined),
  evolve: (doc, recorded) => doc ?? toTimelineRecord(recorded),
  schema: documentSchema({
    fields: {
      incidentId: { type: 'text', path: ['incidentId'] },
      eventTime: { type: 'text', path: ['eventTime'] },
      eventId: { type: 'text', path: ['event', 'id'] },
      type: { type: 'text', path: ['event', 'type'] },
      actor: { type: 'text', path: ['event', 'im.actor'], fallback: ['event', 'source'] },
      correlationKey: { type: 'text', path: ['event', 'im.correlation_key'] },
      fingerprint: { type: 'text', path: ['event', 'im.fingerprint'] },
      // What the policy decides on, read by a page without the document (JSON: exactly the stored value, whatever it is).
      visibility: { type: 'json', path: ['event', 'im.visibility'] },
      dataClass: { type: 'json', path: ['event', 'im.data_class'] },
    },
    // Timelines are ordered by (eventTime, position): every filter has an index that ends in that order.
    indexes: [
      { name: 'by_incident', on: ['incidentId', 'eventTime', 'position'] },
      { name: 'by_correlation', on: ['correlationKey', 'eventTime', 'position'], sparse: true },
      { name: 'by_fingerprint', on: ['fingerprint', 'eventTime', 'position'], sparse: true },
      { name: 'by_type', on: ['type', 'eventTime', 'position'] },
      { name: 'by_actor', on: ['actor', 'eventTime', 'position'] },
      { name: 'by_time', on: ['eventTime', 'position'] },
      { name: 'by_event_id', on: ['eventId', 'position'] },
    ],
    // The answer a page gives for an event shown unredacted (renamed if the view changes: stored files are then folded again).
    texts: { view: (record: TimelineRecord) => unredactedViewJson(toTimelineEntry(record)) },
  }),
};

/**
 * A stored document's text, or how to read it when first needed: a page shows
 * most events from their stored view, and reads the document only for an
 * event shown redacted.
 */
export type StoredDoc = string | ((position: bigint) => string);

const docText = (doc: StoredDoc, position: bigint): string => (typeof doc === 'string' ? doc : doc(position));

/** What a store keeps of a timeline document beside it: the incident, the time, the policy's inputs and the unredacted view. */
export interface StoredTimelineColumns {
  incidentId: string;
  eventTime: string;
  /** The JSON values of `im.visibility` and `im.data_class`; undefined where the event has none. */
  visibility: unknown;
  dataClass: unknown;
  view: string;
}

class TimelineRowOf implements TimelineRow {
  private parsed: TimelineEntry | undefined;
  private view: string | undefined;

  constructor(
    readonly position: bigint,
    readonly incidentId: string,
    readonly eventTime: string,
    readonly visibility: Visibility,
    readonly dataClass: DataClass[],
    private readonly source: { entry: TimelineEntry } | { doc: StoredDoc; view: string },
  ) {}

  get entry(): TimelineEntry {
    return (this.parsed ??= 'entry' in this.source ? this.source.entry : toTimelineEntry(JSON.parse(docText(this.source.doc, this.position)) as TimelineRecord));
  }

  get viewJson(): string {
    return (this.view ??= 'view' in this.source ? this.source.view : unredactedViewJson(this.entry));
  }
}

/** The row of an entry at hand (a recorded event, a document written before the store kept its columns). */
export const timelineRowOf = (entry: TimelineEntry, position: bigint): TimelineRow =>
  new TimelineRowOf(position, entry.incidentId, entry.eventTime, entry.visibility, entry.dataClass, { entry });

/**
 * A stored timeline document as the row queries return it; its columns spare
 * parsing it (or, given a reader, reading it) where they are kept.
 */
export function storedTimelineRow(doc: StoredDoc, position: bigint, columns?: StoredTimelineColumns): TimelineRow {
  return columns === undefined
    ? timelineRowOf(toTimelineEntry(JSON.parse(docText(doc, position)) as TimelineRecord), position)
    : new TimelineRowOf(
        position,
        columns.incidentId,
        columns.eventTime,
        (columns.visibility as Visibility | undefined) ?? DEFAULT_VISIBILITY,
        (columns.dataClass as DataClass[] | undefined) ?? [],
        { doc, view: columns.view },
      );
}

/** The row of a recorded incident event; undefined for one the projection could not place either (a projection fault). */
export function recordedTimelineRow(recorded: RecordedEvent): TimelineRow | undefined {
  try {
    return timelineRowOf(toTimelineEntry(toTimelineRecord(recorded)), recorded.position);
  } catch {
    return undefined;
  }
}
