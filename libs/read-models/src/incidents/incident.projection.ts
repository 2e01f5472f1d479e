import { evolve, type Incident, INCIDENT_STREAM_PREFIX } from '@im/incidents';
import { toLedgerEvent } from '@im/cloudevents';
import { documentSchema, type Projection } from '../projection';

/**
 * The incident read model: the domain's fold, the one the write side decides on. An
 * incident's timestamps are when the ledger recorded each change (UTC), not
 * the `time` a sender wrote into its event, which may be in any offset or era.
 */
export const incidentProjection: Projection<Incident> = {
  name: 'incidents',
  keyOf: ({ streamId }) =>
    streamId.startsWith(INCIDENT_STREAM_PREFIX) ? streamId.slice(INCIDENT_STREAM_PREFIX.length) : undefined,
  evolve: (doc, recorded) => evolve(doc, toLedgerEvent(recorded.event, recorded.streamId.slice(INCIDENT_STREAM_PREFIX.length), recorded.recordedAt)),
  schema: documentSchema({
    fields: {
      status: { type: 'text', path: ['status'] },
      severity: { type: 'text', path: ['severity'] },
      createdAt: { type: 'text', path: ['createdAt'] },
      // Absent (null) for an incident declared without a visibility: every caller sees it.
      visibility: { type: 'text', path: ['visibility'] },
      // Paging (docs/decisions.md, "Paging and its timers"): absent (null) for an incident of no service.
      serviceId: { type: 'text', path: ['escalation', 'serviceId'] },
      escalationPolicyId: { type: 'text', path: ['escalation', 'policyId'] },
      pagingExhausted: { type: 'integer', path: ['escalation', 'exhausted'] },
    },
    // Lists are newest first, ties broken by id (the key): every index ends in that order.
    indexes: [
      { name: 'by_created', on: ['-createdAt', '-key'] },
      { name: 'by_status', on: ['status', '-createdAt', '-key'] },
      { name: 'by_severity', on: ['severity', '-createdAt', '-key'] },
      // Only incidents of a service: who belongs to one (deleting it), and what the escalation timers look at.
      { name: 'by_service', on: ['serviceId', 'status'], sparse: true },
      { name: 'by_paging', on: ['pagingExhausted', 'status', 'key'], sparse: true },
    ],
  }),
};
