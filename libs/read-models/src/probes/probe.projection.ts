import { DIAGNOSTICS_STREAM_PREFIX, PROBE_EVENT_TYPE } from '@im/incidents';
import type { Projection } from '../projection';

export interface Probe {
  id: string;
  time: string;
}

/** Lets the self-test see its probe come out of the projection pipeline. */
export const probeProjection: Projection<Probe> = {
  name: 'probes',
  writeOnce: true,
  keyOf: ({ streamId, event }) => (streamId.startsWith(DIAGNOSTICS_STREAM_PREFIX) && event.type === PROBE_EVENT_TYPE ? event.id : undefined),
  evolve: (doc, { event }) => doc ?? { id: event.id, time: event.time },
};
