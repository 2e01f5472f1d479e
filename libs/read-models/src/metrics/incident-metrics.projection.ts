import type { RecordedEvent } from '@im/event-store';
import {
  ALERT_TRIGGER_TYPE,
  DEFAULT_ALERT_SEVERITY,
  DUPLICATE_EVENT_TYPE,
  factsAtOpening,
  INCIDENT_EVENT_TYPES as T,
  LIFECYCLE,
  type LifecycleMove,
  REFUSED,
  type Status,
  transitionOf,
  UNCHANGED,
  INCIDENT_STREAM_PREFIX,
  type IncidentFacts,
  isSeverity,
  PAGING_EVENT_TYPES,
  SERVICE_ASSIGNED_TYPE,
  type Severity,
  SEVERITY_CHANGED_TYPE,
} from '@im/incidents';
import { documentSchema, type Projection } from '../projection';

/** The facts as stored, with the status the lifecycle table is read at (not a fact: no query reads it). */
type FactsDocument = IncidentFacts & { status: Status };

/**
 * The events that change an incident's facts. Every other event of its stream
 * (notes, roles, pages, alert resolutions…) has no key here, so
 * the runner neither loads nor writes a document for it.
 */
const FACT_TYPES = new Set<string>([
  T.declare,
  T.ack,
  T.mitigate,
  T.resolve,
  T.close,
  T.cancel,
  DUPLICATE_EVENT_TYPE,
  SEVERITY_CHANGED_TYPE,
  SERVICE_ASSIGNED_TYPE,
  PAGING_EVENT_TYPES.escalate,
  ALERT_TRIGGER_TYPE,
]);

/**
 * The `incident_metrics` read model: what the response metrics need of each
 * incident (docs/api.md, "Insights"), keyed by incident id. Every time is
 * the ledger's record time, as the incident read model's. Each document also
 * keeps the incident's status, so a move is taken only where the lifecycle
 * table allows it, as the incident's own fold does: a ledger written before
 * cancel and duplicate were lifecycle moves may hold them after a resolution,
 * and such an incident stays resolved here as it does everywhere else.
 */
export const incidentMetricsProjection: Projection<FactsDocument> = {
  name: 'incident_metrics',
  keyOf: ({ streamId, event }) => (streamId.startsWith(INCIDENT_STREAM_PREFIX) && FACT_TYPES.has(event.type) ? streamId.slice(INCIDENT_STREAM_PREFIX.length) : undefined),
  evolve: (doc, recorded) => (doc ? evolveFacts(doc, recorded) : opened(recorded)),
  schema: documentSchema({
    // Every fact is a query field, so the changes are read from columns (or `q`), not from the documents' JSON.
    fields: {
      declaredAt: { type: 'text', path: ['declaredAt'] },
      visibility: { type: 'text', path: ['visibility'] },
      severity: { type: 'text', path: ['severity'] },
      serviceId: { type: 'text', path: ['serviceId'] },
      outcome: { type: 'text', path: ['outcome'] },
      acknowledgedAt: { type: 'text', path: ['acknowledgedAt'] },
      resolvedAt: { type: 'text', path: ['resolvedAt'] },
      escalated: { type: 'integer', path: ['escalated'] },
      alerts: { type: 'integer', path: ['alerts'] },
    },
    // The changes after a position (changedSince), which each api applies to its copy in memory; windows are read from that copy, so no index of declarations.
    indexes: [{ name: 'by_change', on: ['position'] }],
  }),
};

/** The facts of an incident as the event that opens it (a declaration, or an alert that names no incident) gives them; any other event opens nothing. */
function opened({ streamId, event, recordedAt }: RecordedEvent): FactsDocument | undefined {
  if (event.type !== T.declare && event.type !== ALERT_TRIGGER_TYPE) return undefined;
  const data = (event.data ?? {}) as Record<string, unknown>;
  // As the incident's own fold: a declaration's severity was checked before it was appended; an alert's may be absent.
  const severity = event.type === T.declare || isSeverity(data.severity) ? (data.severity as Severity) : DEFAULT_ALERT_SEVERITY;
  const facts = factsAtOpening({
    id: streamId.slice(INCIDENT_STREAM_PREFIX.length),
    declaredAt: recordedAt,
    severity,
    visibility: event['im.visibility'] ?? null,
    alerts: event.type === ALERT_TRIGGER_TYPE ? 1 : 0,
  });
  return { ...facts, status: 'open' };
}

/** The facts after one more event; the same document when the event changes none of them (the runner then writes nothing). */
function evolveFacts(doc: FactsDocument, { event, recordedAt }: RecordedEvent): FactsDocument {
  const data = (event.data ?? {}) as Record<string, unknown>;
  const transition = transitionOf(event.type);
  if (transition) return moved(doc, transition, recordedAt);
  switch (event.type) {
    case DUPLICATE_EVENT_TYPE:
      return typeof data.of === 'string' ? moved(doc, 'duplicate', recordedAt) : doc;
    case SEVERITY_CHANGED_TYPE:
      return isSeverity(data.severity) && data.severity !== doc.severity ? { ...doc, severity: data.severity } : doc;
    case SERVICE_ASSIGNED_TYPE:
      // The first assignment is the incident's service, as its escalation state keeps it.
      return doc.serviceId === null && typeof data.service_id === 'string' ? { ...doc, serviceId: data.service_id } : doc;
    case PAGING_EVENT_TYPES.escalate:
      return doc.escalated ? doc : { ...doc, escalated: true };
    case ALERT_TRIGGER_TYPE:
      return { ...doc, alerts: doc.alerts + 1 };
    default:
      return doc;
  }
}

/** A lifecycle move, where the table allows it from the incident's status: the first acknowledgement and resolution, and how the incident ended. */
function moved(doc: FactsDocument, move: LifecycleMove, recordedAt: string): FactsDocument {
  const status = LIFECYCLE[doc.status][move];
  if (status === REFUSED || status === UNCHANGED) return doc;
  const next = { ...doc, status };
  if (move === 'ack' && doc.acknowledgedAt === null) next.acknowledgedAt = recordedAt;
  if (move === 'resolve' && doc.resolvedAt === null) next.resolvedAt = recordedAt;
  if (status === 'canceled' || status === 'duplicate') next.outcome = status;
  return next;
}
