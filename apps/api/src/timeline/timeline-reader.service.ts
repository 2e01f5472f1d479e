import { Inject, Injectable } from '@nestjs/common';
import { incidentNotFound, NotFoundError } from '@im/incidents';
import { READ_STORE, type ReadStore, type TimelineEntry, type TimelineQuery } from '@im/read-models';
import { encodeTimelineCursor } from './timeline-filter';

export interface TimelinePage {
  entries: TimelineEntry[];
  nextCursor: string | null;
}

const EXPORT_PAGE = 1000;

/** Every read of timeline data goes through here: single event, incident timeline, search, export. */
@Injectable()
export class TimelineReader {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async event(eventId: string): Promise<TimelineEntry> {
    const row = await this.readStore.timeline.findByEventId(eventId);
    if (!row) throw new NotFoundError(`Timeline event ${eventId} not found`);
    return row.entry;
  }

  async incidentTimeline(incidentId: string, query: TimelineQuery): Promise<TimelinePage> {
    await this.requireIncident(incidentId);
    return this.page(query);
  }

  search(query: TimelineQuery): Promise<TimelinePage> {
    return this.page(query);
  }

  /** The whole timeline, oldest first. */
  async export(incidentId: string): Promise<TimelineEntry[]> {
    await this.requireIncident(incidentId);
    const entries: TimelineEntry[] = [];
    let after: TimelineQuery['after'];
    for (;;) {
      const rows = await this.readStore.timeline.list({ incidentId, order: 'asc', limit: EXPORT_PAGE, after });
      entries.push(...rows.map((row) => row.entry));
      if (rows.length < EXPORT_PAGE) return entries;
      const last = rows[rows.length - 1];
      after = { eventTime: last.entry.eventTime, position: last.position };
    }
  }

  private async page(query: TimelineQuery): Promise<TimelinePage> {
    // One row more than asked tells whether another page exists.
    const rows = await this.readStore.timeline.list({ ...query, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      entries: page.map((row) => row.entry),
      nextCursor:
        rows.length > query.limit ? encodeTimelineCursor(query, { eventTime: last.entry.eventTime, position: last.position }) : null,
    };
  }

  private async requireIncident(incidentId: string): Promise<void> {
    if (!(await this.readStore.incidents.findById(incidentId))) throw incidentNotFound(incidentId);
  }
}
