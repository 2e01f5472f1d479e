import { InvalidError } from '@im/incidents';
import { jsonObjectBody } from '../http/json-body.parser';

/** Events one simulation takes: a batch's bound (MAX_BATCH_EVENTS), so a simulation is never larger than an append could be. */
export const MAX_SIMULATED_EVENTS = 1000;

export interface SimulationRequest {
  /** Each is checked as a CloudEvent when it is simulated: an invalid one is reported in `errors`, not refused. */
  events: unknown[];
  dryRun: boolean;
}

/** POST /api/v1/simulate: `{events, dry_run}` (dry_run defaults to true). */
export function parseSimulationBody(body: unknown): SimulationRequest {
  const { events, dry_run: dryRun = true } = jsonObjectBody(body);
  if (!Array.isArray(events)) throw new InvalidError('events must be an array of CloudEvents');
  if (events.length > MAX_SIMULATED_EVENTS) throw new InvalidError(`at most ${MAX_SIMULATED_EVENTS} events per simulation`);
  if (typeof dryRun !== 'boolean') throw new InvalidError('dry_run must be true or false');
  return { events, dryRun };
}
