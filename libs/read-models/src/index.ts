export * from './projection';
export * from './read-store.port';
export * from './projection-runner';
export * from './projection-fault';
export * from './projection-progress';
export * from './incidents/incident.projection';
export * from './incidents/incident-queries.port';
export * from './timeline/timeline.projection';
export * from './timeline/timeline-queries.port';
export * from './assignments/assignment.projection';
export * from './preferences/preferences.projection';
export * from './probes/probe.projection';
export * from './adapters/sqlite/sqlite-read-store';

import { incidentProjection } from './incidents/incident.projection';
import { timelineProjection } from './timeline/timeline.projection';
import { assignmentProjection } from './assignments/assignment.projection';
import { preferencesProjection } from './preferences/preferences.projection';
import { probeProjection } from './probes/probe.projection';
import type { Projection } from './projection';

/** Every read model the service keeps, in the order a rebuild replays them. */
export const ALL_PROJECTIONS: Projection<unknown>[] = [
  incidentProjection,
  timelineProjection,
  assignmentProjection,
  preferencesProjection,
  probeProjection,
] as Projection<unknown>[];
export * from './adapters/mongodb/mongodb-read-store';
