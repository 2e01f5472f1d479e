import { useEffect, useState } from 'preact/hooks';
import { ESCALATE_INCIDENT, type EscalationState, INCIDENT_ESCALATION } from '../api/documents';
import { runGraphql } from '../api/graphql';
import type { Session } from '../session';
import { ConfirmButton } from './confirm';
import { ErrorMessage } from './error-message';
import { formatTime } from './labels';
import { useLoaded } from './use-loaded';

function State({ escalation }: { escalation: EscalationState }) {
  return (
    <dl class="facts">
      <div>
        <dt>Policy</dt>
        <dd data-testid="escalation-policy">{escalation.policyName}</dd>
      </div>
      <div>
        <dt>Step</dt>
        <dd data-testid="escalation-step">{escalation.step}</dd>
      </div>
      <div>
        <dt>Round</dt>
        <dd data-testid="escalation-round">{escalation.round}</dd>
      </div>
      <div>
        <dt>Paged</dt>
        <dd data-testid="escalation-paged">{escalation.paged.length ? escalation.paged.join(', ') : 'no one (no one on call)'}</dd>
      </div>
      <div>
        <dt>Next escalation</dt>
        <dd data-testid="escalation-next">
          {escalation.exhausted ? (
            <span class="exhausted">None: escalation is exhausted</span>
          ) : escalation.nextEscalationAt ? (
            <time dateTime={escalation.nextEscalationAt}>{formatTime(escalation.nextEscalationAt)}</time>
          ) : (
            'none (the incident is no longer open)'
          )}
        </dd>
      </div>
    </dl>
  );
}

/**
 * Who the incident's escalation policy paged, where it stands, and when it
 * escalates next; Escalate pages the next step now, offered as the api's
 * ESCALATE quick action says. Read again with the incident (`revision`) and
 * when the next escalation falls due.
 */
export function Escalation({ session, incidentId, enabled, revision, onDone }: { session: Session; incidentId: string; enabled: boolean; revision: string; onDone: () => void }) {
  const [due, setDue] = useState(0);
  const loaded = useLoaded(() => runGraphql(INCIDENT_ESCALATION, { id: incidentId }, session.token), `${session.token}|${incidentId}|${revision}|${due}`);
  const [error, setError] = useState<unknown>(null);
  const escalation = loaded.data?.incidentStatus?.escalation;
  const next = escalation?.nextEscalationAt;
  useEffect(() => {
    if (!next) return;
    // A little after it falls due: the api pages within seconds of it.
    const timer = setTimeout(() => setDue((n) => n + 1), Math.max(0, Date.parse(next) - Date.now()) + 3000);
    return () => clearTimeout(timer);
  }, [next]);
  const escalate = async () => {
    setError(null);
    try {
      await runGraphql(ESCALATE_INCIDENT, { incidentId }, session.token);
    } catch (refused) {
      setError(refused);
    }
    onDone();
  };
  return (
    <section class="card escalation" aria-labelledby="escalation-heading">
      <h2 id="escalation-heading">Escalation</h2>
      <ErrorMessage error={loaded.error} />
      {escalation ? (
        <State escalation={escalation} />
      ) : (
        loaded.data && <p>No escalation policy: this incident pages no one.</p>
      )}
      <ConfirmButton
        label="Escalate"
        disabled={!enabled}
        question="Escalate now?"
        detail="The next step of the escalation policy is paged now, without waiting for its delay."
        yes="Yes, escalate"
        onConfirm={escalate}
      />
      {!enabled && <p class="muted">Escalating is possible while the incident is open or acknowledged and a step or repeat is left; it needs the timeline.writer role.</p>}
      <ErrorMessage error={error} />
    </section>
  );
}
