export * from './projection';
export * from './read-store.port';
export * from './projection-runner';
export * from './incidents/incident.projection';
export * from './incidents/incident-queries.port';
export * from './adapters/sqlite/sqlite-read-store';

import { incidentProjection } from './incidents/incident.projection';
import type { Projection } from './projection';

/** Every read model the service keeps, in the order a rebuild replays them. */
export const ALL_PROJECTIONS: Projection<unknown>[] = [incidentProjection as Projection<unknown>];
