import { useEffect } from 'preact/hooks';
import { MY_INCIDENTS } from '../api/documents';
import { runGraphql } from '../api/graphql';
import { openStream } from '../live/live-stream';
import type { Session } from '../session';
import { ErrorMessage } from './error-message';
import { formatTime, severityLabel, statusLabel } from './labels';
import { useLoaded } from './use-loaded';

/** The incidents where the signed-in responder holds a role, newest first, read again on every change any incident goes through. */
export function MyIncidents({ session }: { session: Session }) {
  const mine = useLoaded(() => runGraphql(MY_INCIDENTS, { limit: 50 }, session.token), session.token);
  useEffect(
    () => openStream({ path: '/api/v1/incidents/stream', token: session.token, event: 'incident', onEvent: mine.reload, onOpen: mine.reload }),
    [session.token, mine.reload],
  );
  const incidents = mine.data?.myIncidents;
  return (
    <main id="main">
      <div class="title-row">
        <h1>My incidents</h1>
        <a class="button" href="/declare">
          Declare an incident
        </a>
      </div>
      <ErrorMessage error={mine.error} />
      {incidents === undefined && !mine.error && <p aria-live="polite">Loading…</p>}
      {incidents?.length === 0 && <p>You hold no role on any incident. Incidents you declare or are assigned to appear here as they happen.</p>}
      {incidents && incidents.length > 0 && (
        <ul class="incident-list" aria-label="My incidents">
          {incidents.map((incident) => (
            <li key={incident.id} data-incident={incident.id}>
              <a href={`/incidents/${incident.id}`}>
                <span class={`badge sev-${incident.severity}`}>{severityLabel(incident.severity)}</span>
                <span class="incident-title">{incident.title}</span>
                <span class={`status status-${incident.status}`}>{statusLabel(incident.status)}</span>
                <span class="muted">
                  {incident.id} · updated <time dateTime={incident.lastUpdate}>{formatTime(incident.lastUpdate)}</time>
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
