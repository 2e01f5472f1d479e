import type { RecordedEvent } from '@im/event-store';
import {
  ALERT_TRIGGER_TYPE,
  DEFAULT_ALERT_SEVERITY,
  DUPLICATE_EVENT_TYPE,
  factsAtOpening,
  INCIDENT_EVENT_TYPES as T,
  INCIDENT_STREAM_PREFIX,
  type IncidentFacts,
  isSeverity,
  PAGING_EVENT_TYPES,
  SERVICE_ASSIGNED_TYPE,
  type Severity,
  SEVERITY_CHANGED_TYPE,
} from '@im/incidents';
import { documentSchema, type Projection } from '../projection';

/**
 * The events that change an incident's facts. Every other event of its stream
 * (notes, roles, mitigations, pages, alert resolutions…) has no key here, so
 * the runner neither loads nor writes a document for it.
 */
const FACT_TYPES = new Set<string>([
  T.declare,
  T.ack,
  T.resolve,
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
 * the ledger's record time, as the incident read model's. The ledger holds
 * only the moves its incident's lifecycle allowed (the decider refuses the
 * others before they are appended), so the first acknowledgement and
 * resolution recorded are the incident's, and a cancel or duplicate recorded
 * is final.
 */
export const incidentMetricsProjection: Projection<IncidentFacts> = {
  name: 'incident_metrics',
  keyOf: ({ streamId, event }) => (streamId.startsWith(INCIDENT_STREAM_PREFIX) && FACT_TYPES.has(event.type) ? streamId.slice(INCIDENT_STREAM_PREFIX.length) : undefined),
  evolve: (doc, recorded) => (doc ? evolveFacts(doc, recorded) : opened(recorded)),
  schema: documentSchema({
    // Every fact is a query field, so the window's read takes them from columns (or `q`), not from the documents' JSON.
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
    // The window (a range of declarations), the visibility filtered inside the index. Not covering every fact: SQLite
    // counts a generated column as reading them all, so it reads the rows anyway, and PostgreSQL scans the table for a
    // year; an index of every fact read no faster and is written at every change of one, where these two columns never
    // change after the opening (docs/benchmarks.md, "Response metrics (issue 51): where the time goes").
    // by_change: the latest change at once (lastChange), which keys the api's answers kept while no fact changes.
    indexes: [
      { name: 'by_declared', on: ['declaredAt', 'visibility'] },
      { name: 'by_change', on: ['position'] },
    ],
  }),
};

/** The facts of an incident as the event that opens it (a declaration, or an alert that names no incident) gives them; any other event opens nothing. */
function opened({ streamId, event, recordedAt }: RecordedEvent): IncidentFacts | undefined {
  if (event.type !== T.declare && event.type !== ALERT_TRIGGER_TYPE) return undefined;
  const data = (event.data ?? {}) as Record<string, unknown>;
  // As the incident's own fold: a declaration's severity was checked before it was appended; an alert's may be absent.
  const severity = event.type === T.declare || isSeverity(data.severity) ? (data.severity as Severity) : DEFAULT_ALERT_SEVERITY;
  return factsAtOpening({
    id: streamId.slice(INCIDENT_STREAM_PREFIX.length),
    declaredAt: recordedAt,
    severity,
    visibility: event['im.visibility'] ?? null,
    alerts: event.type === ALERT_TRIGGER_TYPE ? 1 : 0,
  });
}

/** The facts after one more event; the same document when the event changes none of them (the runner then writes nothing). */
function evolveFacts(doc: IncidentFacts, { event, recordedAt }: RecordedEvent): IncidentFacts {
  const data = (event.data ?? {}) as Record<string, unknown>;
  switch (event.type) {
    case T.ack:
      return doc.acknowledgedAt === null ? { ...doc, acknowledgedAt: recordedAt } : doc;
    case T.resolve:
      return doc.resolvedAt === null ? { ...doc, resolvedAt: recordedAt } : doc;
    case T.cancel:
      return doc.outcome === 'counted' ? { ...doc, outcome: 'canceled' } : doc;
    case DUPLICATE_EVENT_TYPE:
      return doc.outcome === 'counted' && typeof data.of === 'string' ? { ...doc, outcome: 'duplicate' } : doc;
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
