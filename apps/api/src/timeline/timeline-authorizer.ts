import { Inject, Injectable } from '@nestjs/common';
import { PDP, type PolicyAction, type PolicyDecisionPoint, type RedactedEntry, redactEntry, type TimelinePolicy } from '@im/policy';
import type { TimelineRow } from '@im/read-models';
import type { Principal } from '../auth/principal';
import { IncidentQueryService } from '../incidents/incident-query.service';
import { TIMELINE_POLICY } from '../policy/policy-tokens';

export interface ShownRow {
  row: TimelineRow;
  entry: RedactedEntry;
}

/**
 * What a caller may see of timeline events, by the one rule of every read
 * path and outbound delivery: the PDP decides per event (withheld, or
 * redacted), and an event of an incident withheld from the caller is withheld
 * with it. An unavailable PDP throws PolicyUnavailableError: nothing is shown.
 */
@Injectable()
export class TimelineAuthorizer {
  constructor(
    @Inject(PDP) private readonly pdp: PolicyDecisionPoint,
    @Inject(TIMELINE_POLICY) private readonly policy: TimelinePolicy,
    private readonly incidents: IncidentQueryService,
  ) {}

  /** Asks the PDP once for a batch, even an empty one; keeps what it shows, redacted as it says. */
  async show(caller: Principal, action: PolicyAction, rows: TimelineRow[]): Promise<ShownRow[]> {
    const decisions = await this.pdp.decide({
      subject: { sub: caller.sub, roles: caller.roles, clearance: caller.clearance, data_access: caller.dataAccess },
      action,
      resources: rows.map(({ entry }) => ({ visibility: entry.visibility, data_class: entry.dataClass })),
    });
    const withheld = await this.incidents.withheld(caller, rows.map((row) => row.entry.incidentId));
    const shown: ShownRow[] = [];
    rows.forEach((row, i) => {
      if (decisions[i].visible && !withheld.has(row.entry.incidentId)) shown.push({ row, entry: redactEntry(row.entry, decisions[i], this.policy.redaction) });
    });
    return shown;
  }
}
