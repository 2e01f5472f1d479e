import { type IncidentState, initialState } from '@im/incidents';
import { incidentProjection } from '@im/read-models';
import type { StreamModel } from '@im/write-path';

/** An incident's stream, folded as the incident read model folds it (times are when the ledger recorded each change). */
export const incidentStream: StreamModel<IncidentState> = {
  subject: 'incident',
  initialState,
  evolve: incidentProjection.evolve,
};
