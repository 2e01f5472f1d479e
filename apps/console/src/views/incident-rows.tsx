import { useEffect, useRef } from 'preact/hooks';
import type { IncidentSummary } from '../api/documents';
import { openStream } from '../live/live-stream';
import { formatTime, severityLabel, statusLabel } from './labels';

/** A list of incidents, each a link to its page: severity, title, status, id and last update. */
export function IncidentRows({ incidents, label }: { incidents: IncidentSummary[]; label: string }) {
  return (
    <ul class="incident-list" aria-label={label}>
      {incidents.map((incident) => (
        <li key={incident.id} data-incident={incident.id} data-status={incident.status}>
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
  );
}

/**
 * Reads a list again on every change any incident goes through (the incidents
 * stream) and on every (re)connection; a burst of changes is read once.
 */
export function useLiveIncidents(token: string, reload: () => void): void {
  const latest = useRef(reload);
  latest.current = reload;
  useEffect(() => {
    let pending: ReturnType<typeof setTimeout> | undefined;
    const soon = () => {
      pending ??= setTimeout(() => {
        pending = undefined;
        latest.current();
      }, 200);
    };
    const close = openStream({ path: '/api/v1/incidents/stream', token, event: 'incident', onEvent: soon, onOpen: soon });
    return () => {
      clearTimeout(pending);
      close();
    };
  }, [token]);
}
