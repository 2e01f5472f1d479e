import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '@im/incidents';
import {
  PDP,
  type PolicyAction,
  type PolicyDecisionPoint,
  type RedactedEntry,
  redactEntry,
  type TimelinePolicy,
} from '@im/policy';
import { TIMELINE_QUERIES, type TimelineQueries, type TimelineQuery, type TimelineRow } from '@im/read-models';
import type { Principal } from '../auth/principal';
import { IncidentQueryService } from '../incidents/incident-query.service';
import { TIMELINE_POLICY } from '../policy/policy.module';
import { TimelineCursors } from './timeline-cursor';
import { matchesAsShown } from './timeline-filter';

export interface TimelinePage {
  entries: RedactedEntry[];
  nextCursor: string | null;
}

/** Rows per read of an export, and the most a page reads at once while the policy withholds events. */
const BATCH = 1000;

/**
 * Every read of timeline data goes through here (single event, incident
 * timeline, search, export): each event is shown only as the policy decision
 * point allows, withheld or redacted. If the PDP cannot decide, the read fails
 * with PolicyUnavailableError and nothing is shown. The PDP is asked on every
 * read, even when nothing was found, and before any 404, so an unavailable PDP
 * answers 503 whatever is stored (no existence oracle).
 */
@Injectable()
export class TimelineReader {
  constructor(
    @Inject(TIMELINE_QUERIES) private readonly timeline: TimelineQueries,
    @Inject(PDP) private readonly pdp: PolicyDecisionPoint,
    @Inject(TIMELINE_POLICY) private readonly policy: TimelinePolicy,
    private readonly cursors: TimelineCursors,
    private readonly incidents: IncidentQueryService,
  ) {}

  async event(caller: Principal, eventId: string): Promise<RedactedEntry> {
    const row = await this.timeline.findByEventId(eventId);
    // A withheld event answers exactly like one that does not exist.
    const [shown] = await this.authorize(caller, 'timeline.read', row ? [row] : []);
    if (!shown) throw new NotFoundError(`Timeline event ${eventId} not found`);
    return shown.entry;
  }

  async incidentTimeline(caller: Principal, incidentId: string, query: TimelineQuery, cursor?: string): Promise<TimelinePage> {
    const page = await this.page(caller, 'timeline.read', query, cursor);
    await this.requireIncident(caller, incidentId);
    return page;
  }

  /**
   * The check of a live timeline before it starts, in the order of a read:
   * the PDP must answer (503), then the incident must exist for the caller (404).
   */
  async openIncidentTimeline(caller: Principal, incidentId: string): Promise<void> {
    await this.authorize(caller, 'timeline.read', []);
    await this.requireIncident(caller, incidentId);
  }

  /** Events as a read of the incident timeline shows them to the caller (live delivery): withheld ones left out, the rest redacted. */
  showTimeline(caller: Principal, rows: TimelineRow[]): Promise<{ row: TimelineRow; entry: RedactedEntry }[]> {
    return this.authorize(caller, 'timeline.read', rows);
  }

  search(caller: Principal, query: TimelineQuery, cursor?: string): Promise<TimelinePage> {
    return this.page(caller, 'timeline.query', query, cursor);
  }

  /** The whole timeline the caller may see, oldest first. */
  async export(caller: Principal, incidentId: string): Promise<RedactedEntry[]> {
    const shown: RedactedEntry[] = [];
    let after: TimelineQuery['after'];
    for (;;) {
      const rows = await this.timeline.list({ incidentId, order: 'asc', limit: BATCH, after });
      shown.push(...(await this.authorize(caller, 'timeline.export', rows)).map((s) => s.entry));
      if (rows.length < BATCH) break;
      after = positionOf(rows[rows.length - 1]);
    }
    await this.requireIncident(caller, incidentId);
    return shown;
  }

  /**
   * A page of `limit` events the caller may see and that match the filters as
   * shown to the caller. It reads on, in growing batches, past every event the
   * policy withholds or that matches only on a hidden value, until it has one
   * shown event beyond the page or the store has no more: so the page and its
   * `next_cursor` are the same whether or not hidden matches exist, and a
   * cursor always resumes after a shown event.
   */
  private async page(caller: Principal, action: PolicyAction, query: TimelineQuery, cursor?: string): Promise<TimelinePage> {
    const shown: { entry: RedactedEntry; row: TimelineRow }[] = [];
    let after = cursor === undefined ? undefined : this.cursors.open(caller, query, cursor);
    let batch = query.limit + 1;
    for (;;) {
      const rows = await this.timeline.list({ ...query, after, limit: batch });
      shown.push(...(await this.authorize(caller, action, rows)).filter((s) => matchesAsShown(query, s.entry)));
      if (rows.length < batch || shown.length > query.limit) break;
      after = positionOf(rows[rows.length - 1]);
      batch = Math.min(batch * 2, BATCH);
    }
    const page = shown.slice(0, query.limit);
    return {
      entries: page.map((s) => s.entry),
      nextCursor: shown.length > query.limit ? this.cursors.seal(caller, query, positionOf(page[page.length - 1].row)) : null,
    };
  }

  /** Asks the PDP once for a batch, even an empty one; keeps what it shows, redacted as it says. */
  private async authorize(caller: Principal, action: PolicyAction, rows: TimelineRow[]) {
    const decisions = await this.pdp.decide({
      subject: { sub: caller.sub, roles: caller.roles, clearance: caller.clearance, data_access: caller.dataAccess },
      action,
      resources: rows.map(({ entry }) => ({ visibility: entry.visibility, data_class: entry.dataClass })),
    });
    const withheld = await this.incidents.withheld(caller, rows.map((row) => row.entry.incidentId));
    return rows.flatMap((row, i) =>
      decisions[i].visible && !withheld.has(row.entry.incidentId)
        ? [{ row, entry: redactEntry(row.entry, decisions[i], this.policy.redaction) }]
        : [],
    );
  }

  /** A missing incident and one withheld from the caller answer alike: 404. */
  private async requireIncident(caller: Principal, incidentId: string): Promise<void> {
    await this.incidents.get(caller, incidentId);
  }
}

const positionOf = (row: TimelineRow) => ({ eventTime: row.entry.eventTime, position: row.position });
