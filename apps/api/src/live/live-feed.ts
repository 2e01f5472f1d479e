import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EVENT_STORE, type EventStore, type RecordedEvent, type Subscription } from '@im/event-store';
import { type Incident, incidentIdOfStream, incidentStreamId } from '@im/incidents';
import type { RedactedEntry } from '@im/policy';
import {
  incidentProjection,
  PROJECTION_PROGRESS,
  PROJECTION_STORE,
  type ProjectionProgress,
  type ProjectionStore,
  recordedTimelineRow,
  serviceProjection,
  type ServiceRecord,
  type StoredDocument,
  type TimelineEventView,
  toTimelineEventView,
} from '@im/read-models';
import { IncidentVisibility, type Principal } from '@im/access';
import { type LivePosition, type LiveScope, TimelineCursors } from '../timeline/timeline-cursor';
import { TimelineReader } from '../timeline/timeline-reader.service';
import { LiveStream, type Positioned } from './live-stream';
import { liveTrace } from './live-trace';

/** A timeline event as the subscriber may see it, with the cursor that resumes after it (Last-Event-ID). */
export interface LiveTimelineEvent {
  cursor: string;
  /** As the policy shows it to this subscriber (for GraphQL's summaries). */
  shown: RedactedEntry;
  /** Exactly what `GET /api/v1/incidents/{id}/timeline` returns for this event and caller. */
  event: TimelineEventView;
}

/** An incident as the read model holds it once the change has been projected, with the cursor that resumes after it. */
export interface LiveIncidentChange {
  cursor: string;
  incident: Incident;
  /** The service it belongs to; undefined for none, or one deleted since (the REST Incident's `service`). */
  service?: ServiceRecord;
}

/** The incidents of a batch as the read models hold them, and the services they belong to. */
interface IncidentDocs {
  incidents: Map<string, StoredDocument<Incident>>;
  services: Map<string, StoredDocument<ServiceRecord>>;
}

/** Which incident changes a watcher follows. */
export interface IncidentWatch {
  /** Only this incident's: changes of others never queue for the watcher. */
  incidentId?: string;
  /** Also each event of its timeline shown to the watcher (incidentUpdated: its view lists them), after the checks of a read of that timeline. Needs incidentId. */
  timeline?: boolean;
}

interface Subscriber<T> {
  principal: Principal;
  /** Subscribers with the same key get the same decisions: the policy is asked once per key and batch. */
  key: string;
  stream: LiveStream<T>;
  watch?: IncidentWatch;
}

/** Events of the log read per step of a replay: a bound on a resuming subscriber's memory, as the subscription's own batches are (up to 500). */
const REPLAY_BATCH = 500;

/** Everything the PDP and the cursor binding see of a caller, so equal keys mean equal answers. */
const subjectKey = (p: Principal) => JSON.stringify([p.sub, p.roles, p.clearance, p.dataAccess, p.integrationKey ?? null]);

function groupsOf<T>(subscribers: Iterable<Subscriber<T>> | undefined): Subscriber<T>[][] {
  const groups = new Map<string, Subscriber<T>[]>();
  for (const subscriber of subscribers ?? []) {
    const group = groups.get(subscriber.key);
    if (group) group.push(subscriber);
    else groups.set(subscriber.key, [subscriber]);
  }
  return [...groups.values()];
}

const failAll = <T>(group: Subscriber<T>[], error: unknown) => group.forEach((s) => s.stream.fail(error));

/** The incident events of `events`, by incident, in log order. */
function byIncidentOf(events: RecordedEvent[]): Map<string, RecordedEvent[]> {
  const byIncident = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    const incidentId = incidentIdOfStream(event.streamId);
    if (incidentId === undefined) continue;
    const of = byIncident.get(incidentId);
    if (of) of.push(event);
    else byIncident.set(incidentId, [event]);
  }
  return byIncident;
}

/**
 * Live delivery, driven by the ledger: one subscription to the whole log per
 * api process, shared by every subscriber, so an event reaches the subscribers
 * of every instance whichever instance (or the projector) wrote it. Each batch
 * is delivered once the read models have passed it, through the same policy
 * path as a read (TimelineReader, IncidentVisibility), asked once per batch
 * and kind of subscriber. A subscriber resumes from a cursor: its stream
 * replays the log after it, then follows, with no gap and no repeat.
 */
@Injectable()
export class LiveFeed implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('LiveFeed');
  private readonly timelines = new Map<string, Set<Subscriber<LiveTimelineEvent>>>();
  private readonly incidentWatchers = new Set<Subscriber<LiveIncidentChange>>();
  private following?: Subscription;
  /** Every event up to here has been handed to the subscribers of its time; later subscribers replay up to it. */
  private position = 0n;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PROJECTION_PROGRESS) private readonly progress: ProjectionProgress,
    @Inject(PROJECTION_STORE) private readonly readStore: ProjectionStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reader: TimelineReader,
    private readonly cursors: TimelineCursors,
    private readonly visibility: IncidentVisibility,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.position = await this.store.headPosition();
    this.following = this.store.subscribeToAll(
      this.position,
      (batch) => this.deliver(batch),
      (error) => this.logger.error(`Following the log failed and will retry: ${String(error)}`),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.endAll();
    await this.following?.stop();
    this.following = undefined;
  }

  /** Ends every open stream (shutdown): their clients resume with their last cursor, here after a restart or on another instance. */
  endAll(): void {
    for (const subscribers of [...this.timelines.values()]) for (const s of [...subscribers]) void s.stream.return();
    for (const s of [...this.incidentWatchers]) void s.stream.return();
  }

  /** Open subscriptions, for diagnostics and tests. */
  get subscriberCount(): number {
    let count = this.incidentWatchers.size;
    for (const subscribers of this.timelines.values()) count += subscribers.size;
    return count;
  }

  /**
   * The incident's timeline as `principal` may read it, from after `after` (a
   * cursor this stream sent) or from now. Throws before anything is sent:
   * InvalidError for a cursor that is not this caller's for this incident (400),
   * PolicyUnavailableError (503), NotFound for an incident that is missing or
   * withheld (404). Later, the stream itself fails with the error.
   */
  async timeline(principal: Principal, incidentId: string, after?: string): Promise<LiveStream<LiveTimelineEvent>> {
    const scope: LiveScope = { kind: 'timeline', incidentId };
    const from = after === undefined ? undefined : this.cursors.openLive(principal, scope, after);
    await this.reader.openIncidentTimeline(principal, incidentId);
    const head = from ? undefined : await this.store.headPosition();
    const subscribers = this.timelines.get(incidentId) ?? new Set<Subscriber<LiveTimelineEvent>>();
    this.timelines.set(incidentId, subscribers);
    const subscriber = this.subscribe(principal, subscribers, from, head, (upTo) => this.replayTimeline(principal, incidentId, from!, upTo), () => {
      subscribers.delete(subscriber);
      if (subscribers.size === 0 && this.timelines.get(incidentId) === subscribers) this.timelines.delete(incidentId);
    });
    return subscriber.stream;
  }

  /**
   * Changes of every incident `principal` may see (or of the one `watch` names),
   * from after `after` or from now; InvalidError (400) for a cursor not sent to
   * this caller. A change is an event that changed the incident as the read
   * model holds it, never one that merely joined its stream (a note, perhaps
   * withheld from this caller): what arrives, and when, tells nothing more
   * than a read of the incident.
   */
  async incidentChanges(principal: Principal, after?: string, watch: IncidentWatch = {}): Promise<LiveStream<LiveIncidentChange>> {
    const from = after === undefined ? undefined : this.cursors.openLive(principal, { kind: 'incidents' }, after);
    if (watch.timeline) await this.reader.openIncidentTimeline(principal, watch.incidentId!);
    const head = from ? undefined : await this.store.headPosition();
    const subscriber = this.subscribe(
      principal,
      this.incidentWatchers,
      from,
      head,
      (upTo) => this.replayIncidents(principal, watch, from!, upTo),
      () => this.incidentWatchers.delete(subscriber),
      watch,
    );
    return subscriber.stream;
  }

  /**
   * Registers at the feed's position in one synchronous step: live items come
   * after it, the replay (with a cursor) reads the log up to it. Without a
   * cursor, what the log held when the stream was asked for is left out.
   */
  private subscribe<T>(
    principal: Principal,
    into: Set<Subscriber<T>>,
    from: LivePosition | undefined,
    head: bigint | undefined,
    replay: (upTo: bigint) => AsyncIterator<Positioned<T>>,
    unsubscribe: () => void,
    watch?: IncidentWatch,
  ): Subscriber<T> {
    const upTo = this.position;
    const last = from ? from.position : head! > upTo ? head! : upTo;
    const stream = new LiveStream<T>(this.config.live.queueLimit, last, from && from.position < upTo ? replay(upTo) : undefined, unsubscribe);
    const subscriber: Subscriber<T> = { principal, key: subjectKey(principal) + JSON.stringify(watch ?? null), stream, watch };
    into.add(subscriber);
    return subscriber;
  }

  private async *replayTimeline(principal: Principal, incidentId: string, from: LivePosition, upTo: bigint): AsyncGenerator<Positioned<LiveTimelineEvent>> {
    await this.progress.waitFor(upTo, this.config.projectionWaitMs);
    const recorded = await this.store.readStream(incidentStreamId(incidentId), from.revision === undefined ? 0n : from.revision + 1n);
    const due = recorded.filter((event) => event.position > from.position && event.position <= upTo);
    for (let i = 0; i < due.length; i += REPLAY_BATCH) {
      yield* await this.shownTimeline(principal, incidentId, due.slice(i, i + REPLAY_BATCH));
    }
  }

  private async *replayIncidents(principal: Principal, watch: IncidentWatch, from: LivePosition, upTo: bigint): AsyncGenerator<Positioned<LiveIncidentChange>> {
    await this.progress.waitFor(upTo, this.config.projectionWaitMs);
    let after = from.position;
    while (after < upTo) {
      const events = (await this.store.readAll(after, REPLAY_BATCH)).filter((event) => event.position <= upTo);
      if (events.length === 0) break;
      after = events[events.length - 1].position;
      const byIncident = byIncidentOf(events);
      yield* await this.shownIncidents(principal, watch, byIncident, await this.incidentDocs([...byIncident.keys()]));
    }
  }

  /** The incidents as the read model holds them, each with the position of the last event that changed it, and their services. */
  private async incidentDocs(ids: string[]): Promise<IncidentDocs> {
    const incidents = await this.readStore.load<Incident>(incidentProjection.name, ids);
    const serviceIds = [...new Set([...incidents.values()].flatMap(({ doc }) => (doc.escalation ? [doc.escalation.serviceId] : [])))];
    const services = serviceIds.length === 0 ? new Map() : await this.readStore.load<ServiceRecord>(serviceProjection.name, serviceIds);
    return { incidents, services };
  }

  /** Items of one incident's recorded events, as `principal` reads them. */
  private async shownTimeline(principal: Principal, incidentId: string, recorded: RecordedEvent[]): Promise<Positioned<LiveTimelineEvent>[]> {
    const revisions = new Map(recorded.map((event) => [event.position, event.revision]));
    const shown = await this.reader.showTimeline(principal, recorded.flatMap((r) => recordedTimelineRow(r) ?? []));
    return shown.map(({ row, entry }) => ({
      position: row.position,
      value: {
        cursor: this.cursors.sealLive(principal, { kind: 'timeline', incidentId }, { position: row.position, revision: revisions.get(row.position) }),
        shown: entry,
        event: toTimelineEventView(entry),
      },
    }));
  }

  /**
   * Items of the incidents `events` (by incident) changed that `principal`
   * sees under `watch`, in the order of their last change. An incident changed
   * when the event its read model document was last changed by is one of
   * them; a later one (the read model is already further) is left to the
   * batch that holds it, which then shows the incident once, as it is.
   */
  private async shownIncidents(
    principal: Principal,
    watch: IncidentWatch,
    byIncident: Map<string, RecordedEvent[]>,
    { incidents, services }: IncidentDocs,
  ): Promise<Positioned<LiveIncidentChange>[]> {
    const items: Positioned<LiveIncidentChange>[] = [];
    for (const [id, events] of byIncident) {
      const stored = incidents.get(id);
      if ((watch.incidentId !== undefined && id !== watch.incidentId) || !stored || !this.visibility.shows(principal, stored.doc)) continue;
      let position = events.some((event) => event.position === stored.position) ? stored.position : undefined;
      // An event of its timeline the watcher is shown (a note) changes its view too; the policy is asked only then.
      if (position === undefined && watch.timeline) position = (await this.reader.showTimeline(principal, events.flatMap((r) => recordedTimelineRow(r) ?? []))).at(-1)?.row.position;
      if (position === undefined) continue;
      const service = stored.doc.escalation && services.get(stored.doc.escalation.serviceId)?.doc;
      items.push({ position, value: { cursor: this.cursors.sealLive(principal, { kind: 'incidents' }, { position }), incident: stored.doc, ...(service && { service }) } });
    }
    return items.sort((a, b) => (a.position < b.position ? -1 : 1));
  }

  /**
   * One batch of the log to the subscribers registered now. Nothing here
   * throws into the subscription: a failure fails the subscribers it concerns,
   * who resume with their cursor, and the feed goes on.
   */
  private async deliver(batch: RecordedEvent[]): Promise<void> {
    const upTo = batch[batch.length - 1].position;
    const traced = liveTrace.on ? liveTrace.sequences(batch) : [];
    liveTrace.stage(traced, 'read');
    const byIncident = byIncidentOf(batch);
    // The snapshot and the new position in one synchronous step: see subscribe().
    this.position = upTo;
    const timelineGroups = [...byIncident].flatMap(([incidentId, events]) => groupsOf(this.timelines.get(incidentId)).map((group) => ({ incidentId, events, group })));
    const watcherGroups = byIncident.size > 0 ? groupsOf(this.incidentWatchers) : [];
    if (timelineGroups.length === 0 && watcherGroups.length === 0) return;
    try {
      // Withholding and the incident objects come from the read models: they must show this batch first.
      await this.progress.waitFor(upTo, this.config.projectionWaitMs);
      liveTrace.stage(traced, 'projected');
    } catch (error) {
      timelineGroups.forEach(({ group }) => failAll(group, error));
      watcherGroups.forEach((group) => failAll(group, error));
      return;
    }
    await Promise.all([
      ...timelineGroups.map(async ({ incidentId, events, group }) => {
        try {
          const items = await this.shownTimeline(group[0].principal, incidentId, events);
          if (liveTrace.on) items.forEach((item) => liveTrace.item(item.value, item.value.event.content));
          for (const item of items) for (const s of group) s.stream.offer(item);
          liveTrace.stage(traced, 'offered');
        } catch (error) {
          failAll(group, error);
        }
      }),
      this.deliverIncidents(watcherGroups, byIncident),
    ]);
  }

  private async deliverIncidents(groups: Subscriber<LiveIncidentChange>[][], byIncident: Map<string, RecordedEvent[]>): Promise<void> {
    if (groups.length === 0) return;
    let docs: IncidentDocs;
    try {
      docs = await this.incidentDocs([...byIncident.keys()]);
    } catch (error) {
      groups.forEach((group) => failAll(group, error));
      return;
    }
    await Promise.all(
      groups.map(async (group) => {
        try {
          const items = await this.shownIncidents(group[0].principal, group[0].watch ?? {}, byIncident, docs);
          for (const item of items) for (const s of group) s.stream.offer(item);
        } catch (error) {
          failAll(group, error);
        }
      }),
    );
  }
}
