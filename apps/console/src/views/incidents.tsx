import { useState } from 'preact/hooks';
import { type IncidentSummary, SEVERITIES, type Severity, type Status } from '../api/documents';
import { type Incident, listIncidents } from '../api/rest';
import type { Session } from '../session';
import { ErrorMessage } from './error-message';
import { IncidentRows, useLiveIncidents } from './incident-rows';
import { severityLabel } from './labels';
import { useLoaded } from './use-loaded';

/** Still being worked on, in the order a responder takes them up; then the finished ones. */
const ACTIVE = ['open', 'acknowledged', 'mitigated'];
const FINISHED = ['resolved', 'closed', 'canceled', 'duplicate'];
const STATUS_CHOICES: [string, string][] = [
  ['', 'Any status'],
  ['active', 'Not resolved yet'],
  ...[...ACTIVE, ...FINISHED].map((status): [string, string] => [status, status]),
];
const PAGE = 50;
const MAX = 1000;

/** The REST Incident in the GraphQL spelling the console shows. */
const summary = (incident: Incident): IncidentSummary => ({
  id: incident.id,
  title: incident.title,
  severity: incident.severity.replace('-', '_') as Severity,
  status: incident.status.toUpperCase() as Status,
  lastUpdate: incident.updated_at,
});

/** One group of the list: the statuses of `group` the filter keeps, newest first, `limit` of them. */
async function readGroup(token: string, group: string[], status: string, severity: string, limit: number) {
  const statuses = group.filter((s) => status === '' || status === s || (status === 'active' && ACTIVE.includes(s)));
  if (statuses.length === 0) return { incidents: [], more: false };
  const page = await listIncidents(token, { status: statuses, severity: severity ? [severity] : [], limit });
  const rank = (incident: Incident) => group.indexOf(incident.status);
  // Newest first within a status (the api's order; sort is stable), open before acknowledged before mitigated.
  return { incidents: page.incidents.sort((a, b) => rank(a) - rank(b)).map(summary), more: page.more };
}

function Group({ title, label, group, empty, onMore }: { title: string; label: string; group: { incidents: IncidentSummary[]; more: boolean } | undefined; empty: string; onMore: () => void }) {
  if (!group) return null;
  return (
    <section aria-label={label}>
      <h2>{title}</h2>
      {group.incidents.length === 0 ? <p>{empty}</p> : <IncidentRows incidents={group.incidents} label={label} />}
      {group.more && (
        <button type="button" class="secondary" onClick={onMore}>
          Show more {title.toLowerCase()}
        </button>
      )}
    </section>
  );
}

/**
 * Every incident the caller may see (the api leaves out what their clearance does not cover),
 * the ones still being worked on first, filtered by status and severity, kept current by the incidents stream.
 */
export function Incidents({ session }: { session: Session }) {
  const [status, setStatus] = useState('');
  const [severity, setSeverity] = useState('');
  const [limits, setLimits] = useState({ active: PAGE, finished: PAGE });
  const key = `${session.token}|${status}|${severity}|${limits.active}|${limits.finished}`;
  const list = useLoaded(async () => {
    const [active, finished] = await Promise.all([
      readGroup(session.token, ACTIVE, status, severity, limits.active),
      readGroup(session.token, FINISHED, status, severity, limits.finished),
    ]);
    return { active, finished };
  }, key);
  useLiveIncidents(session.token, list.reload);
  const more = (group: 'active' | 'finished') => setLimits({ ...limits, [group]: Math.min(MAX, limits[group] + PAGE) });
  const showsFinished = status === '' || FINISHED.includes(status);
  const showsActive = status === '' || status === 'active' || ACTIVE.includes(status);

  return (
    <main id="main">
      <div class="title-row">
        <h1>Incidents</h1>
        <a class="button" href="/declare">
          Declare an incident
        </a>
      </div>
      <form class="list-filters" aria-label="Filter incidents" onSubmit={(event) => event.preventDefault()}>
        <label>
          Status
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            {STATUS_CHOICES.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </label>
        <label>
          Severity
          <select name="severity" value={severity} onChange={(e) => setSeverity(e.currentTarget.value)}>
            <option value="">Any severity</option>
            {SEVERITIES.map((level) => (
              <option key={level} value={severityLabel(level)}>
                {severityLabel(level)}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorMessage error={list.error} />
      {list.data === undefined && !list.error && <p aria-live="polite">Loading…</p>}
      {showsActive && <Group title="Being worked on" label="Incidents being worked on" group={list.data?.active} empty="None: no incident matching this is open, acknowledged or mitigated." onMore={() => more('active')} />}
      {showsFinished && <Group title="Finished" label="Finished incidents: resolved, closed, canceled or duplicate" group={list.data?.finished} empty="None match." onMore={() => more('finished')} />}
    </main>
  );
}
