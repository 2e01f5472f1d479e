import { Inject, Injectable } from '@nestjs/common';
import { type Incident, incidentNotFound } from '@im/incidents';
import { levelsCleared, type TimelinePolicy } from '@im/policy';
import type { Principal } from './principal';
import { TIMELINE_POLICY } from './policy-tokens';

/**
 * Who sees an incident (docs/decisions.md): one declared with a visibility is
 * withheld from callers whose clearance ranks below it, by the policy file's
 * ranking; one declared without is seen by everyone who may use the incident
 * endpoints. Lists filter in the read store's query (visibleLevels), so this
 * is decided in-process from the policy file in both PDP modes, never per row.
 * A withheld incident answers exactly like one that does not exist.
 */
@Injectable()
export class IncidentVisibility {
  constructor(@Inject(TIMELINE_POLICY) private readonly policy: TimelinePolicy) {}

  /** The explicit visibilities whose incidents the caller sees (for IncidentListQuery.visibleLevels). */
  levelsFor(caller: Principal): string[] {
    return levelsCleared(this.policy, caller.clearance);
  }

  shows(caller: Principal, incident: Incident): boolean {
    return incident.visibility === undefined || this.levelsFor(caller).includes(incident.visibility);
  }

  /** The incident as found for the caller: NotFound when it does not exist or is withheld. */
  reveal(caller: Principal, id: string, incident: Incident | undefined): Incident {
    if (!incident || !this.shows(caller, incident)) throw incidentNotFound(id);
    return incident;
  }
}
