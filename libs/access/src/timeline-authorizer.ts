import { Inject, Injectable } from '@nestjs/common';
import { PDP, type PolicyAction, type PolicyDecision, type PolicyDecisionPoint, type RedactedEntry, redactEntry, type TimelinePolicy } from '@im/policy';
import { type TimelineEventView, type TimelineRow, toTimelineEventView } from '@im/read-models';
import type { Incident } from '@im/incidents';
import type { Principal } from './principal';
import { IncidentQueryService } from './incident-query.service';
import { TIMELINE_POLICY } from './policy-tokens';

/** A row the caller is shown, and how: its entry redacted as the decision says, derived (and parsed) only when asked for. */
export class ShownRow {
  private shown: RedactedEntry | undefined;

  constructor(
    readonly row: TimelineRow,
    private readonly decision: PolicyDecision,
    private readonly rules: TimelinePolicy['redaction'],
  ) {}

  get entry(): RedactedEntry {
    return (this.shown ??= redactEntry(this.row.entry, this.decision, this.rules));
  }

  /** The read view as JSON text: the stored one when the decision redacts nothing, so that event is never parsed. */
  get viewJson(): string {
    return this.decision.redact.length === 0 ? this.row.viewJson : JSON.stringify(toTimelineEventView(this.entry));
  }

  /** The read view: the stored one parsed when the decision redacts nothing, so that event's document is never read. */
  get view(): TimelineEventView {
    return this.decision.redact.length === 0 ? (JSON.parse(this.row.viewJson) as TimelineEventView) : toTimelineEventView(this.entry);
  }
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

  /**
   * Asks the PDP once for a batch, even an empty one; keeps what it shows,
   * redacted as it says. `revealed`: an incident the caller was already shown
   * (IncidentVisibility), whose rows need no second look at it.
   */
  async show(caller: Principal, action: PolicyAction, rows: TimelineRow[], revealed?: Incident): Promise<ShownRow[]> {
    const decisions = await this.pdp.decide({
      subject: { sub: caller.sub, roles: caller.roles, clearance: caller.clearance, data_access: caller.dataAccess },
      action,
      resources: rows.map((row) => ({ visibility: row.visibility, data_class: row.dataClass })),
    });
    const others = revealed === undefined ? rows : rows.filter((row) => row.incidentId !== revealed.id);
    const withheld = await this.incidents.withheld(caller, others.map((row) => row.incidentId));
    const shown: ShownRow[] = [];
    rows.forEach((row, i) => {
      if (decisions[i].visible && !withheld.has(row.incidentId)) shown.push(new ShownRow(row, decisions[i], this.policy.redaction));
    });
    return shown;
  }
}
