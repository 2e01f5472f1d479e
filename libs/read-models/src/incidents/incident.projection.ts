import { ALERT_RESOLVE_TYPE, ALERT_TRIGGER_TYPE, evolve, type Incident, INCIDENT_STREAM_PREFIX } from '@im/incidents';
import { toLedgerEvent } from '@im/cloudevents';
import type { RecordedEvent } from '@im/event-store';
import { documentSchema, type Projection } from '../projection';

/**
 * Which of the incident's alerts fire now: an alert is one fingerprint, so a
 * repeated trigger counts once, a resolve removes it, and a later trigger of
 * the same fingerprint (a re-fire) counts it again.
 */
function withFiringAlerts(incident: Incident | undefined, { event }: RecordedEvent): Incident | undefined {
  const fingerprint = event['im.fingerprint'];
  if (!incident || fingerprint === undefined || (event.type !== ALERT_TRIGGER_TYPE && event.type !== ALERT_RESOLVE_TYPE)) return incident;
  const others = (incident.firingAlerts ?? []).filter((firing) => firing !== fingerprint);
  const firingAlerts = event.type === ALERT_TRIGGER_TYPE ? [...others, fingerprint] : others;
  const next: Incident = { ...incident, firingAlerts };
  // Absent rather than empty, as for an incident that never had an alert.
  if (firingAlerts.length === 0) delete next.firingAlerts;
  return next;
}

/**
 * The incident read model: the same fold the write side decides on. An
 * incident's timestamps are when the ledger recorded each change (UTC), not
 * the `time` a sender wrote into its event, which may be in any offset or era.
 */
export const incidentProjection: Projection<Incident> = {
  name: 'incidents',
  keyOf: ({ streamId }) =>
    streamId.startsWith(INCIDENT_STREAM_PREFIX) ? streamId.slice(INCIDENT_STREAM_PREFIX.length) : undefined,
  evolve: (doc, recorded) =>
    withFiringAlerts(
      evolve(doc, {
        ...toLedgerEvent(recorded.event, recorded.streamId.slice(INCIDENT_STREAM_PREFIX.length)),
        time: recorded.recordedAt,
      }),
      recorded,
    ),
  schema: documentSchema({
    fields: {
      status: { type: 'text', path: ['status'] },
      severity: { type: 'text', path: ['severity'] },
      createdAt: { type: 'text', path: ['createdAt'] },
      // Absent (null) for an incident declared without a visibility: every caller sees it.
      visibility: { type: 'text', path: ['visibility'] },
    },
    // Lists are newest first, ties broken by id (the key): every index ends in that order.
    indexes: [
      { name: 'by_created', on: ['-createdAt', '-key'] },
      { name: 'by_status', on: ['status', '-createdAt', '-key'] },
      { name: 'by_severity', on: ['severity', '-createdAt', '-key'] },
    ],
  }),
};
