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
import { READ_STORE, type ReadStore, type TimelineQuery, type TimelineRow } from '@im/read-models';
import type { Principal } from '../auth/principal';
import { IncidentVisibility } from '../policy/incident-visibility';
import { TIMELINE_POLICY } from '../policy/policy.module';
import { encodeTimelineCursor } from './timeline-filter';

export interface TimelinePage {
  entries: RedactedEntry[];
  nextCursor: string | null;
}

const EXPORT_BATCH = 1000;
/** How many more reads a page may take to fill up when the policy withholds events. */
const MAX_FILL_ROUNDS = 10;

/**
 * Every read of timeline data goes through here (single event, incident
 * timeline, search, export): each event is shown only as the policy decision
 * point allows, withheld or redacted. If the PDP cannot decide, the read fails
 * with PolicyUnavailableError and nothing is shown.
 */
@Injectable()
export class TimelineReader {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(PDP) private readonly pdp: PolicyDecisionPoint,
    @Inject(TIMELINE_POLICY) private readonly policy: TimelinePolicy,
    private readonly incidents: IncidentVisibility,
  ) {}

  async event(caller: Principal, eventId: string): Promise<RedactedEntry> {
    const row = await this.readStore.timeline.findByEventId(eventId);
    // A withheld event answers exactly like one that does not exist.
    const [shown] = row ? await this.authorize(caller, 'timeline.read', [row]) : [];
    if (!shown) throw new NotFoundError(`Timeline event ${eventId} not found`);
    return shown.entry;
  }

  async incidentTimeline(caller: Principal, incidentId: string, query: TimelineQuery): Promise<TimelinePage> {
    await this.requireIncident(caller, incidentId);
    return this.page(caller, 'timeline.read', query);
  }

  search(caller: Principal, query: TimelineQuery): Promise<TimelinePage> {
    return this.page(caller, 'timeline.query', query);
  }

  /** The whole timeline the caller may see, oldest first. */
  async export(caller: Principal, incidentId: string): Promise<RedactedEntry[]> {
    await this.requireIncident(caller, incidentId);
    const shown: RedactedEntry[] = [];
    let after: TimelineQuery['after'];
    for (;;) {
      const rows = await this.readStore.timeline.list({ incidentId, order: 'asc', limit: EXPORT_BATCH, after });
      shown.push(...(await this.authorize(caller, 'timeline.export', rows)).map((s) => s.entry));
      if (rows.length < EXPORT_BATCH) return shown;
      after = positionOf(rows[rows.length - 1]);
    }
  }

  /** A page of `limit` events the caller may see; reads on while the policy withholds some. */
  private async page(caller: Principal, action: PolicyAction, query: TimelineQuery): Promise<TimelinePage> {
    const shown: { entry: RedactedEntry; row: TimelineRow }[] = [];
    let after = query.after;
    let more = true;
    for (let round = 0; round < MAX_FILL_ROUNDS && more && shown.length <= query.limit; round++) {
      // One row more than asked tells whether another page exists.
      const rows = await this.readStore.timeline.list({ ...query, after, limit: query.limit + 1 });
      shown.push(...(await this.authorize(caller, action, rows)));
      more = rows.length > query.limit;
      if (rows.length) after = positionOf(rows[rows.length - 1]);
    }
    const page = shown.slice(0, query.limit);
    const resumeAt = shown.length > query.limit ? positionOf(page[page.length - 1].row) : after;
    return {
      entries: page.map((s) => s.entry),
      nextCursor: (shown.length > query.limit || more) && resumeAt ? encodeTimelineCursor(query, resumeAt) : null,
    };
  }

  /** Asks the PDP once for a batch; keeps what it shows, redacted as it says. */
  private async authorize(caller: Principal, action: PolicyAction, rows: TimelineRow[]) {
    if (rows.length === 0) return [];
    const decisions = await this.pdp.decide({
      subject: { sub: caller.sub, roles: caller.roles, clearance: caller.clearance, data_access: caller.dataAccess },
      action,
      resources: rows.map(({ entry }) => ({ visibility: entry.visibility, data_class: entry.dataClass })),
    });
    const withheld = await this.withheldIncidents(caller, rows);
    return rows.flatMap((row, i) =>
      decisions[i].visible && !withheld.has(row.entry.incidentId)
        ? [{ row, entry: redactEntry(row.entry, decisions[i], this.policy.redaction) }]
        : [],
    );
  }

  /** Incidents of these rows that are withheld from the caller: their events are withheld with them. */
  private async withheldIncidents(caller: Principal, rows: TimelineRow[]): Promise<Set<string>> {
    const found = await this.readStore.incidents.findMany(rows.map((row) => row.entry.incidentId));
    return new Set([...found.values()].filter((incident) => !this.incidents.shows(caller, incident)).map((incident) => incident.id));
  }

  /** A missing incident and one withheld from the caller answer alike: 404. */
  private async requireIncident(caller: Principal, incidentId: string): Promise<void> {
    this.incidents.reveal(caller, incidentId, await this.readStore.incidents.findById(incidentId));
  }
}

const positionOf = (row: TimelineRow) => ({ eventTime: row.entry.eventTime, position: row.position });
