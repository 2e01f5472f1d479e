import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { readTimeline, type TimelineEvent, type TimelineFilter } from '../api/rest';
import { openStream } from '../live/live-stream';
import type { Session } from '../session';
import { ErrorMessage } from './error-message';
import { eventLabel, formatTime } from './labels';
import { useLoaded } from './use-loaded';

const TYPE_CHOICES: [string, string][] = [
  ['', 'All events'],
  ['im.incident.note', 'Notes'],
  ['im.alert.*', 'Alerts'],
  ['im.incident.role_assigned', 'Role assignments'],
  ['im.incident.*', 'Everything on the incident'],
];
/** Live events kept beyond the last read, so a long-open page stays small. */
const LIVE_LIMIT = 500;

/** The same filter the api applies, for events that arrive live. */
export function matchesFilter(event: TimelineEvent, filter: TimelineFilter): boolean {
  if (filter.type && !(filter.type.endsWith('*') ? event.event_type.startsWith(filter.type.slice(0, -1)) : event.event_type === filter.type)) return false;
  if (filter.actor && event.actor !== filter.actor) return false;
  if (filter.from && event.event_time < filter.from) return false;
  return !(filter.to && event.event_time >= filter.to);
}

/** The events read and those that arrived live, once each, newest first. */
export function mergeEvents(read: TimelineEvent[], live: TimelineEvent[], filter: TimelineFilter): TimelineEvent[] {
  const byId = new Map(read.map((event) => [event.id, event]));
  for (const event of live) if (!byId.has(event.id) && matchesFilter(event, filter)) byId.set(event.id, event);
  return [...byId.values()].sort((a, b) => (a.event_time < b.event_time ? 1 : a.event_time > b.event_time ? -1 : 0));
}

const isoOrUndefined = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** What the event says beyond its type: its text, or for a role assignment who got which role. */
function describe(event: TimelineEvent): string {
  const { role, user_id: user } = event.data;
  if (event.event_type === 'im.incident.role_assigned' && typeof role === 'string' && typeof user === 'string') return `${user} is ${role}`;
  return event.content || (event.title !== eventLabel(event.event_type) ? event.title : '');
}

function EventBody({ event }: { event: TimelineEvent }) {
  const text = describe(event);
  return (
    <>
      {text && <p class="event-text">{text}</p>}
      {event.redacted.length > 0 && <p class="muted">Some of this event is hidden from you: {event.redacted.join(', ')}.</p>}
    </>
  );
}

/** The incident's timeline: filtered by the api, followed live through the timeline stream; `onChange` hears every live event. */
export function Timeline({ session, incidentId, revision, onChange }: { session: Session; incidentId: string; revision: number; onChange: () => void }) {
  const [draft, setDraft] = useState({ type: '', actor: '', from: '', to: '' });
  const [filter, setFilter] = useState<TimelineFilter>({});
  const [live, setLive] = useState<TimelineEvent[]>([]);
  const read = useLoaded(() => readTimeline(session.token, incidentId, filter), `${session.token}|${incidentId}|${JSON.stringify(filter)}`);
  // The stream outlives renders: it calls the newest of these.
  const latest = useRef({ onChange, reload: read.reload });
  latest.current = { onChange, reload: read.reload };

  useEffect(() => {
    setLive([]);
    return openStream({
      path: `/api/v1/incidents/${encodeURIComponent(incidentId)}/timeline/stream`,
      token: session.token,
      event: 'timeline',
      onEvent: (data) => {
        setLive((events) => [data as TimelineEvent, ...events].slice(0, LIVE_LIMIT));
        latest.current.onChange();
      },
      // Opened before the first read is shown, so nothing falls between the two; every reconnection reads again.
      onOpen: () => latest.current.reload(),
    });
  }, [session.token, incidentId]);

  useEffect(() => {
    if (revision > 0) latest.current.reload();
  }, [revision]);

  const events = useMemo(() => mergeEvents(read.data ?? [], live, filter), [read.data, live, filter]);

  const apply = (event: Event) => {
    event.preventDefault();
    setFilter({
      ...(draft.type ? { type: draft.type } : {}),
      ...(draft.actor ? { actor: draft.actor } : {}),
      ...(draft.from ? { from: isoOrUndefined(draft.from) } : {}),
      ...(draft.to ? { to: isoOrUndefined(draft.to) } : {}),
    });
  };

  return (
    <section aria-labelledby="timeline-heading" class="card">
      <h2 id="timeline-heading">Timeline</h2>
      {/* Folded: the events come first; a filter in force keeps it open, so it is never hidden. */}
      <details class="filters-fold" open={Object.keys(filter).length > 0}>
        <summary>Filter events</summary>
      <form class="filters" onSubmit={apply} aria-label="Timeline filters">
        <label>
          Show
          <select name="type" value={draft.type} onChange={(e) => setDraft({ ...draft, type: e.currentTarget.value })}>
            {TYPE_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          By
          <input name="actor" value={draft.actor} placeholder="anyone" onInput={(e) => setDraft({ ...draft, actor: e.currentTarget.value })} />
        </label>
        <label>
          From
          <input type="datetime-local" name="from" value={draft.from} onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })} />
        </label>
        <label>
          Until
          <input type="datetime-local" name="to" value={draft.to} onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })} />
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      </details>
      <ErrorMessage error={read.error} />
      {read.data === undefined && !read.error && <p>Loading the timeline…</p>}
      <ol class="timeline" aria-live="polite" aria-label="Timeline events, newest first">
        {events.map((event) => (
          <li key={event.id} data-event-type={event.event_type}>
            <div class="event-head">
              <strong>{eventLabel(event.event_type)}</strong>
              <span class="muted">
                {event.actor} · <time dateTime={event.event_time}>{formatTime(event.event_time)}</time>
              </span>
            </div>
            <EventBody event={event} />
          </li>
        ))}
      </ol>
      {read.data !== undefined && events.length === 0 && <p>No events match.</p>}
    </section>
  );
}
