import type { RecordedEvent } from '@im/event-store';
import type { Principal } from '@im/access';

/** An event as a reader sees it, ready to send: its id and its redacted structured CloudEvent. */
export interface EventView {
  eventId: string;
  body: string;
}

/** The views of these events for the reader (keyed by position; an event withheld from it is absent). Throws when it cannot decide now. */
export type ViewWork = (reader: Principal, events: RecordedEvent[]) => Promise<Map<bigint, EventView>>;

/** How long a worked-out view is shared: a registration further behind works its events out again, as of then. */
export const VIEW_TTL_MS = 2000;

/**
 * The principal that stands for every registration with the same roles,
 * clearance and data access: the policy sees `webhooks:<clearance>:<data access>`.
 */
export function readerGroup(reader: Principal): Principal {
  const dataAccess = [...reader.dataAccess].sort();
  return { ...reader, sub: `webhooks:${reader.clearance}:${dataAccess.join(',')}`, roles: [...reader.roles].sort(), dataAccess };
}

/**
 * Each event as a group of registrations reading alike sees it, worked out
 * (policy decision, redaction, serialisation) once per group and shared by
 * its registrations for VIEW_TTL_MS: a hundred registrations cost one
 * decision per event, not a hundred. Only the signature is per registration.
 * Work that fails is forgotten at once, so it is done again when retried.
 */
export class ReaderViews {
  private readonly views = new Map<string, { until: number; view: Promise<EventView | undefined> }>();

  constructor(
    private readonly work: ViewWork,
    /** Elapsed time, not the service's clock (which tests may stop). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Each event's view, in the order given (undefined: withheld from this reader). */
  of(reader: Principal, events: RecordedEvent[]): Promise<(EventView | undefined)[]> {
    const now = this.now();
    this.forgetExpired(now);
    const group = readerGroup(reader);
    const keyOf = (recorded: RecordedEvent) => `${group.sub}|${group.roles.join(',')}|${recorded.position}`;
    const missing = events.filter((recorded) => !this.views.has(keyOf(recorded)));
    if (missing.length > 0) {
      const worked = this.work(group, missing);
      for (const recorded of missing) {
        const key = keyOf(recorded);
        const entry = { until: now + VIEW_TTL_MS, view: worked.then((views) => views.get(recorded.position)) };
        this.views.set(key, entry);
        entry.view.catch(() => this.views.get(key) === entry && this.views.delete(key));
      }
    }
    return Promise.all(events.map((recorded) => this.views.get(keyOf(recorded))!.view));
  }

  /** Entries are added in time order, so the expired ones are at the front. */
  private forgetExpired(now: number): void {
    for (const [key, { until }] of this.views) {
      if (until > now) return;
      this.views.delete(key);
    }
  }
}
