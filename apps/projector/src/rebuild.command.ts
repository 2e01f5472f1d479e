import type { INestApplicationContext } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { ALL_PROJECTIONS, PROJECTION_STORE, type ProjectionStore, rebuildProjections } from '@im/read-models';

/** Empties every read model and replays the whole log into it (main holds DATA_DIR's lock: no api writes meanwhile). */
export async function rebuildCommand(app: INestApplicationContext): Promise<string> {
  const eventStore = app.get<EventStore>(EVENT_STORE);
  const store = app.get<ProjectionStore>(PROJECTION_STORE);
  const started = process.hrtime.bigint();
  const count = await rebuildProjections(eventStore, store, ALL_PROJECTIONS);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rate = seconds > 0 ? Math.round(count / seconds) : count;
  const faults = await store.projectionFaults();
  // Skipped events do not fail the rebuild: they are recorded, and GET /api/v1/validate names them.
  const skipped = faults.length
    ? `; ${faults.length} event(s) could not be folded and were recorded as projection faults: ${faults.map((f) => `${f.projection} skipped ${f.eventId} (${f.error})`).join('; ')}`
    : '';
  return `Rebuilt ${ALL_PROJECTIONS.map((p) => p.name).join(', ')} from ${count} events in ${seconds.toFixed(2)} s (${rate} events/s)${skipped}`;
}
