import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '@im/event-store';
import { type Incident, incidentNotFound, incidentStreamId, NotFoundError } from '@im/incidents';
import type { PolicyAction, RedactedEntry } from '@im/policy';
import { recordedTimelineRow, TIMELINE_QUERIES, type TimelineQueries, type TimelineQuery, type TimelineRow } from '@im/read-models';
import { IncidentQueryService, type Principal, type ShownRow, TimelineAuthorizer } from '@im/access';
import { TimelineCursors } from './timeline-cursor';
import { matchesAsShown } from './timeline-filter';

/** A stored event of an incident's stream and how the caller is shown it (undefined: withheld). */
export interface LedgerEntry {
  recorded: RecordedEvent;
  shown: RedactedEntry | undefined;
}

export interface TimelinePage {
  /** The events of the page as the caller is shown them, in the page's order. */
  shown: ShownRow[];
  nextCursor: string | null;
}

/** Rows per read of an export, and the most a page reads at once while the policy withholds events: a page's largest `limit`, so a full page is one read (docs/benchmarks.md, "Timeline reads at 1,000,000 stored events"). */
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
    private readonly authorizer: TimelineAuthorizer,
    private readonly cursors: TimelineCursors,
    private readonly incidents: IncidentQueryService,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async event(caller: Principal, eventId: string): Promise<RedactedEntry> {
    const row = await this.timeline.findByEventId(eventId);
    // A withheld event answers exactly like one that does not exist.
    const [shown] = await this.authorize(caller, 'timeline.read', row ? [row] : []);
    if (!shown) throw new NotFoundError(`Timeline event ${eventId} not found`);
    return shown.entry;
  }

  async incidentTimeline(caller: Principal, incidentId: string, query: TimelineQuery, cursor?: string): Promise<TimelinePage> {
    const incident = await this.incidents.find(caller, incidentId);
    const page = await this.page(caller, 'timeline.read', query, cursor, incident);
    // Only after the page: the PDP answers (503) before any 404.
    if (!incident) throw incidentNotFound(incidentId);
    return page;
  }

  /** A page of the timeline of an incident the caller was already shown (IncidentVisibility), which is not looked up again. */
  revealedIncidentTimeline(caller: Principal, incident: Incident, query: TimelineQuery): Promise<TimelinePage> {
    return this.page(caller, 'timeline.read', query, undefined, incident);
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
  showTimeline(caller: Principal, rows: TimelineRow[]): Promise<ShownRow[]> {
    return this.authorize(caller, 'timeline.read', rows);
  }

  search(caller: Principal, query: TimelineQuery, cursor?: string): Promise<TimelinePage> {
    return this.page(caller, 'timeline.query', query, cursor);
  }

  /**
   * The incident's stream as stored (with its ledger records, in stream order), each event
   * shown or withheld and redacted exactly as an export shows it: what the ledger export and
   * its verification are made of. An event whose time cannot be read is withheld.
   */
  async ledger(caller: Principal, incidentId: string): Promise<LedgerEntry[]> {
    const stream = await this.eventStore.readStream(incidentStreamId(incidentId));
    const shown = new Map<bigint, RedactedEntry>();
    for (let from = 0; from === 0 || from < stream.length; from += BATCH) {
      const rows = stream.slice(from, from + BATCH).flatMap((recorded) => recordedTimelineRow(recorded) ?? []);
      for (const { row, entry } of await this.authorize(caller, 'timeline.export', rows)) shown.set(row.position, entry);
    }
    await this.requireIncident(caller, incidentId);
    return stream.map((recorded) => ({ recorded, shown: shown.get(recorded.position) }));
  }

  /**
   * A page of `limit` events the caller may see and that match the filters as
   * shown to the caller. It reads on, in growing batches, past every event the
   * policy withholds or that matches only on a hidden value, until it has one
   * shown event beyond the page or the store has no more: so the page and its
   * `next_cursor` are the same whether or not hidden matches exist, and a
   * cursor always resumes after a shown event.
   */
  private async page(caller: Principal, action: PolicyAction, query: TimelineQuery, cursor?: string, revealed?: Incident): Promise<TimelinePage> {
    const shown: ShownRow[] = [];
    let after = cursor === undefined ? undefined : this.cursors.open(caller, query, cursor);
    let batch = query.limit + 1;
    const matches = matchesAsShown(query);
    for (;;) {
      const rows = await this.timeline.list({ ...query, after, limit: batch });
      for (const s of await this.authorize(caller, action, rows, revealed)) if (matches(s)) shown.push(s);
      if (rows.length < batch || shown.length > query.limit) break;
      after = positionOf(rows[rows.length - 1]);
      batch = Math.min(batch * 2, BATCH);
    }
    return new ReadTimelinePage(shown.slice(0, query.limit), shown.length > query.limit, this.cursors, caller, query);
  }

  private authorize(caller: Principal, action: PolicyAction, rows: TimelineRow[], revealed?: Incident) {
    return this.authorizer.show(caller, action, rows, revealed);
  }

  /** A missing incident and one withheld from the caller answer alike: 404. */
  private async requireIncident(caller: Principal, incidentId: string): Promise<void> {
    await this.incidents.get(caller, incidentId);
  }
}

const positionOf = (row: TimelineRow) => ({ eventTime: row.eventTime, position: row.position });

/**
 * A page as read. Its cursor is sealed (AES-GCM) only when asked for: a
 * phone's quick timeline never pages on. The getter is the class's, not an
 * object literal's: V8 keeps a literal's accessor in the old generation, so
 * the getter's closure, and through it every row the page read, survived
 * each young collection until the next full one. That was about half of what
 * a limit-1000 page allocates (docs/benchmarks.md).
 */
class ReadTimelinePage implements TimelinePage {
  constructor(
    readonly shown: ShownRow[],
    private readonly more: boolean,
    private readonly cursors: TimelineCursors,
    private readonly caller: Principal,
    private readonly query: TimelineQuery,
  ) {}

  get nextCursor(): string | null {
    return this.more ? this.cursors.seal(this.caller, this.query, positionOf(this.shown[this.shown.length - 1].row)) : null;
  }
}
