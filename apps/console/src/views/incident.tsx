import { useEffect, useRef, useState } from 'preact/hooks';
// The domain's own lifecycle table (pure data, no I/O): the moves the api's quick actions do not cover yet follow the same rule the api decides with.
import { LIFECYCLE, REFUSED, UNCHANGED } from '../../../../libs/incidents/src/lifecycle';
import { type Action, ACK_INCIDENT, ADD_NOTE, ASSIGN_ROLE, CANCEL_INCIDENT, INCIDENT_PAGE, type IncidentView, MARK_DUPLICATE, RACI_ROLES, type RaciRole } from '../api/documents';
import { runGraphql } from '../api/graphql';
import { exportTimeline, type Move, moveIncident, postmortem } from '../api/rest';
import { openStream } from '../live/live-stream';
import { navigate } from '../router';
import { canExport, canReadTimeline, canWrite, type Session } from '../session';
import { ConfirmButton } from './confirm';
import { ErrorMessage } from './error-message';
import { Escalation } from './escalation';
import { formatTime, severityLabel, statusLabel } from './labels';
import { saveFile } from './save-file';
import { Timeline } from './timeline';
import { useLoaded } from './use-loaded';

const MOVES: { move: Move; label: string; done: string }[] = [
  { move: 'ack', label: 'Acknowledge', done: 'acknowledged' },
  { move: 'mitigate', label: 'Mitigate', done: 'mitigated' },
  { move: 'resolve', label: 'Resolve', done: 'resolved' },
  { move: 'close', label: 'Close', done: 'closed' },
];

/** Ack through GraphQL, which has the mutation; the other moves through REST, which alone has them. */
async function carryOut(session: Session, id: string, move: Move): Promise<void> {
  if (move === 'ack') await runGraphql(ACK_INCIDENT, { id }, session.token);
  else await moveIncident(session.token, id, move);
}

/**
 * The moves that change the incident now, and no other: acknowledging as the
 * api's quick actions say (its ACK), mitigating, resolving and closing as the
 * lifecycle table says from the current status (the quick actions have no
 * action for them). Both need timeline.writer. Read again live with the page.
 */
function possibleMoves(incident: IncidentView, actions: Action[], writer: boolean): typeof MOVES {
  const row = LIFECYCLE[incident.status.toLowerCase() as keyof typeof LIFECYCLE];
  return MOVES.filter(({ move }) => {
    if (move === 'ack') return actions.some((action) => action.actionType === 'ACK' && action.enabled);
    const outcome = row?.[move];
    return writer && outcome !== undefined && outcome !== REFUSED && outcome !== UNCHANGED;
  });
}

/** Why no move is offered, in words. */
function noMoveReason(incident: IncidentView, writer: boolean): string {
  if (!writer) return 'Moving the incident on needs the timeline.writer role, which your sign-in does not carry.';
  return `The incident is ${statusLabel(incident.status)}: nothing is left to move.`;
}

/**
 * Where a page's console link lands (`/incidents/<id>?ack=1`, the mail and
 * push of a page): there the tap on Acknowledge is the confirmation.
 */
const fromPage = () => new URLSearchParams(location.search).get('ack') === '1';

/**
 * The next steps of the lifecycle, first on the page; each asks first in a
 * modal dialog, which the keyboard and screen readers handle natively (and
 * which stays open when the incident moves meanwhile: the refusal then says
 * why). From a page's link, the tap on Acknowledge is the confirmation.
 */
function Lifecycle({ session, incident, actions, onDone }: { session: Session; incident: IncidentView; actions: Action[]; onDone: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [asked, setAsked] = useState<(typeof MOVES)[number] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [oneTapAck] = useState(fromPage);
  const moves = possibleMoves(incident, actions, canWrite(session));
  const run = async (move: Move) => {
    try {
      await carryOut(session, incident.id, move);
      if (move === 'ack' && oneTapAck) navigate(`/incidents/${encodeURIComponent(incident.id)}`, true);
    } catch (refused) {
      setError(refused);
    }
    onDone();
  };
  const ask = (choice: (typeof MOVES)[number]) => {
    setError(null);
    if (choice.move === 'ack' && oneTapAck) return void run('ack');
    setAsked(choice);
    dialog.current?.showModal();
  };
  const confirm = async () => {
    dialog.current?.close();
    if (asked) await run(asked.move);
  };
  return (
    <section aria-labelledby="lifecycle-heading" class="next-steps">
      <h2 id="lifecycle-heading">Next step</h2>
      {moves.length === 0 ? (
        <p class="muted">{noMoveReason(incident, canWrite(session))}</p>
      ) : (
        <div class="actions">
          {moves.map((choice, i) => (
            <button type="button" key={choice.move} class={i === 0 ? '' : 'secondary'} onClick={() => ask(choice)}>
              {choice.label}
            </button>
          ))}
        </div>
      )}
      <ErrorMessage error={error} />
      <dialog ref={dialog} aria-labelledby="confirm-heading">
        <h2 id="confirm-heading">{asked?.label} this incident?</h2>
        <p>
          {incident.id} “{incident.title}” is {statusLabel(incident.status)}. Everyone following it will see it {asked?.done}.
        </p>
        <div class="actions">
          <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" onClick={confirm}>
            Yes, {asked?.label.toLowerCase()}
          </button>
        </div>
      </dialog>
    </section>
  );
}

/** Ending an incident that is not one to work on: canceled, or a duplicate of another (timeline.writer; the lifecycle table says from which states). */
function OtherOutcomes({ session, incident, onDone }: { session: Session; incident: IncidentView; onDone: () => void }) {
  const [of, setOf] = useState('');
  const [error, setError] = useState<unknown>(null);
  const row = LIFECYCLE[incident.status.toLowerCase() as keyof typeof LIFECYCLE];
  const possible = (move: 'cancel' | 'duplicate') => canWrite(session) && row !== undefined && row[move] !== REFUSED && row[move] !== UNCHANGED;
  if (!possible('cancel') && !possible('duplicate')) return null;
  const run = async (mutate: () => Promise<unknown>) => {
    setError(null);
    try {
      await mutate();
    } catch (refused) {
      setError(refused);
    }
    onDone();
  };
  return (
    <section class="card" aria-labelledby="outcomes-heading">
      <h2 id="outcomes-heading">Not an incident to work on?</h2>
      <div class="actions">
        {possible('cancel') && (
          <ConfirmButton
            label="Cancel incident"
            secondary
            question="Cancel this incident?"
            detail={`${incident.id} “${incident.title}” ends as canceled, and its paging stops.`}
            yes="Yes, cancel the incident"
            onConfirm={() => run(() => runGraphql(CANCEL_INCIDENT, { incidentId: incident.id }, session.token))}
          />
        )}
        {possible('duplicate') && (
          <ConfirmButton
            label="Mark duplicate"
            secondary
            question="Mark this incident a duplicate?"
            detail={`${incident.id} ends as a duplicate, its paging stops, and its alerts go to the other incident.`}
            yes="Mark duplicate"
            onConfirm={() => run(() => runGraphql(MARK_DUPLICATE, { incidentId: incident.id, of: of.trim() }, session.token))}
          >
            <label>
              Duplicate of (incident id)
              <input name="of" required value={of} placeholder="INC-…" onInput={(e) => setOf(e.currentTarget.value)} />
            </label>
          </ConfirmButton>
        )}
      </div>
      <ErrorMessage error={error} />
    </section>
  );
}

function Note({ session, incidentId, enabled, onDone }: { session: Session; incidentId: string; enabled: boolean; onDone: () => void }) {
  const [content, setContent] = useState('');
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await runGraphql(ADD_NOTE, { incidentId, content }, session.token);
      setContent('');
      setError(null);
      onDone();
    } catch (refused) {
      setError(refused);
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="note-heading">
      <h2 id="note-heading">Add a note</h2>
      <label>
        Note
        <textarea name="note" rows={3} required value={content} onInput={(e) => setContent(e.currentTarget.value)} />
      </label>
      <ErrorMessage error={error} />
      <button type="submit" disabled={!enabled}>
        Add note
      </button>
    </form>
  );
}

function Roles({ session, incident, enabled, onDone }: { session: Session; incident: IncidentView; enabled: boolean; onDone: () => void }) {
  const [role, setRole] = useState<RaciRole>('OPS');
  const [userId, setUserId] = useState('');
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await runGraphql(ASSIGN_ROLE, { incidentId: incident.id, role, userId }, session.token);
      setUserId('');
      setError(null);
    } catch (refused) {
      setError(refused);
    }
    onDone();
  };
  return (
    <section class="card" aria-labelledby="roles-heading">
      <h2 id="roles-heading">Roles</h2>
      {incident.responders.length === 0 ? (
        <p>Nobody holds a role yet.</p>
      ) : (
        <dl class="roles">
          {incident.responders.map((responder) => (
            <div key={responder.role}>
              <dt>{responder.role}</dt>
              <dd>{responder.id}</dd>
            </div>
          ))}
        </dl>
      )}
      <form class="inline-form" onSubmit={submit} aria-label="Assign a role">
        <label>
          Role
          <select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as RaciRole)}>
            {RACI_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Responder
          <input name="userId" required value={userId} onInput={(e) => setUserId(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={!enabled}>
          Assign
        </button>
      </form>
      <ErrorMessage error={error} />
    </section>
  );
}

function Export({ session, incidentId }: { session: Session; incidentId: string }) {
  const [error, setError] = useState<unknown>(null);
  const download = async (format: 'json' | 'markdown') => {
    try {
      saveFile(await exportTimeline(session.token, incidentId, format), `${incidentId}-timeline.${format === 'json' ? 'json' : 'md'}`);
      setError(null);
    } catch (refused) {
      setError(refused);
    }
  };
  return (
    <section class="card" aria-labelledby="export-heading">
      <h2 id="export-heading">Export the timeline</h2>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => download('json')}>
          Download JSON
        </button>
        <button type="button" class="secondary" onClick={() => download('markdown')}>
          Download Markdown
        </button>
      </div>
      <ErrorMessage error={error} />
    </section>
  );
}

/**
 * The postmortem draft to fill in (timeline.exporter, as the exports): offered
 * only to a sign-in that may have it; anyone else reads why.
 */
function Postmortem({ session, incidentId }: { session: Session; incidentId: string }) {
  const [error, setError] = useState<unknown>(null);
  const download = async () => {
    try {
      saveFile(await postmortem(session.token, incidentId), `${incidentId}-postmortem.md`);
      setError(null);
    } catch (refused) {
      setError(refused);
    }
  };
  return (
    <section class="card" aria-labelledby="postmortem-heading">
      <h2 id="postmortem-heading">Postmortem</h2>
      {canExport(session) ? (
        <>
          <p class="muted">A Markdown draft from the timeline: summary, responders, events, and empty sections for the team.</p>
          <button type="button" class="secondary" onClick={download}>
            Download postmortem
          </button>
        </>
      ) : (
        <p class="muted">Drafting a postmortem needs the timeline.exporter role, which your sign-in does not carry.</p>
      )}
      <ErrorMessage error={error} />
    </section>
  );
}

/** One incident: its state, who holds which role, the actions, and the live timeline. */
export function IncidentPage({ session, id }: { session: Session; id: string }) {
  const page = useLoaded(() => runGraphql(INCIDENT_PAGE, { id }, session.token), `${session.token}|${id}`);
  const reload = useRef(page.reload);
  reload.current = page.reload;
  // The responder's own changes show at once, whether or not the live streams are connected.
  const [revision, setRevision] = useState(0);
  const changed = () => {
    page.reload();
    setRevision((n) => n + 1);
  };
  // Status, severity and roles change through any client: the incidents stream says when.
  useEffect(
    () =>
      openStream({
        path: '/api/v1/incidents/stream',
        token: session.token,
        event: 'incident',
        onEvent: (incident) => (incident as { id?: string }).id === id && reload.current(),
        onOpen: () => reload.current(),
      }),
    [session.token, id],
  );

  const incident = page.data?.incidentStatus;
  const enabled = (type: string) => page.data?.quickActions.some((action) => action.actionType === type && action.enabled) ?? false;
  if (!incident) {
    return (
      <main id="main">
        <h1>Incident {id}</h1>
        <ErrorMessage error={page.error} />
        {!page.error && <p>Loading…</p>}
      </main>
    );
  }
  return (
    <main id="main" class="incident">
      <header class="incident-head card">
        <p class="muted">{incident.id}</p>
        <h1>{incident.title}</h1>
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd class={`status status-${incident.status}`} data-testid="status">
              {statusLabel(incident.status)}
            </dd>
          </div>
          <div>
            <dt>Severity</dt>
            <dd>
              <span class={`badge sev-${incident.severity}`}>{severityLabel(incident.severity)}</span>
            </dd>
          </div>
          <div>
            <dt>Commander</dt>
            <dd>{incident.assignedTo?.id ?? 'nobody yet'}</dd>
          </div>
          <div>
            <dt>Alerts firing</dt>
            <dd data-testid="alerts-firing">{incident.alertsFiring}</dd>
          </div>
          <div>
            <dt>Last update</dt>
            <dd>
              <time dateTime={incident.lastUpdate}>{formatTime(incident.lastUpdate)}</time>
            </dd>
          </div>
        </dl>
        <Lifecycle session={session} incident={incident} actions={page.data?.quickActions ?? []} onDone={changed} />
        {incident.warRoomLink && (
          <a class="button secondary" href={incident.warRoomLink} target="_blank" rel="noopener noreferrer">
            Join the war room
          </a>
        )}
      </header>
      <ErrorMessage error={page.error} />
      {/* The newest events before the forms: on a phone they come right after the status and the next step. */}
      <div class="columns">
        <div>
          {canReadTimeline(session) ? (
            <Timeline session={session} incidentId={id} revision={revision} onChange={page.reload} />
          ) : (
            <p class="card">Reading the timeline needs the timeline.reader role.</p>
          )}
        </div>
        <div>
          <Escalation session={session} incidentId={id} enabled={enabled('ESCALATE')} revision={`${revision}|${incident.lastUpdate}|${incident.status}`} onDone={changed} />
          <Note session={session} incidentId={id} enabled={enabled('ADD_NOTE')} onDone={changed} />
          <Roles session={session} incident={incident} enabled={enabled('ASSIGN_ROLE')} onDone={changed} />
          <OtherOutcomes session={session} incident={incident} onDone={changed} />
          {canExport(session) && <Export session={session} incidentId={id} />}
          <Postmortem session={session} incidentId={id} />
        </div>
      </div>
    </main>
  );
}
