import { INCIDENT_STREAM_PREFIX, isRaciRole, type RaciRole, ROLE_ASSIGNED_TYPE } from '@im/incidents';
import { documentSchema, type Projection } from '../projection';

/** One RACI role on one incident and who holds it: the index behind "my incidents". */
export interface Assignment {
  incidentId: string;
  role: RaciRole;
  userId: string;
}

export const assignmentProjection: Projection<Assignment> = {
  name: 'assignments',
  keyOf: ({ streamId, event }) =>
    event.type === ROLE_ASSIGNED_TYPE && streamId.startsWith(INCIDENT_STREAM_PREFIX) && isRaciRole(event.data?.role)
      ? `${streamId.slice(INCIDENT_STREAM_PREFIX.length)}/${event.data.role}`
      : undefined,
  evolve: (_, { streamId, event }) => ({
    incidentId: streamId.slice(INCIDENT_STREAM_PREFIX.length),
    role: event.data!.role as RaciRole,
    userId: String(event.data!.user_id),
  }),
  schema: documentSchema({
    fields: {
      incidentId: { type: 'text', path: ['incidentId'] },
      userId: { type: 'text', path: ['userId'] },
    },
    indexes: [{ name: 'by_user', on: ['userId', 'incidentId'] }],
  }),
};
