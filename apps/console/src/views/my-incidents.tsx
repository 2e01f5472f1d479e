import { MY_INCIDENTS } from '../api/documents';
import { runGraphql } from '../api/graphql';
import type { Session } from '../session';
import { ErrorMessage } from './error-message';
import { IncidentRows, useLiveIncidents } from './incident-rows';
import { useLoaded } from './use-loaded';

/** The incidents where the signed-in responder holds a role, newest first, read again on every change any incident goes through. */
export function MyIncidents({ session }: { session: Session }) {
  const mine = useLoaded(() => runGraphql(MY_INCIDENTS, { limit: 50 }, session.token), session.token);
  useLiveIncidents(session.token, mine.reload);
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
      {incidents?.length === 0 && (
        <p>
          You hold no role on any incident. Incidents you declare or are assigned to appear here as they happen; <a href="/">every incident</a> you may see is under Incidents.
        </p>
      )}
      {incidents && incidents.length > 0 && <IncidentRows incidents={incidents} label="My incidents" />}
    </main>
  );
}
