import { useState } from 'preact/hooks';
import { DECLARE_INCIDENT, SEVERITIES, type Severity } from '../api/documents';
import { runGraphql } from '../api/graphql';
import { navigate } from '../router';
import { canWrite, type Session } from '../session';
import { ErrorMessage } from './error-message';
import { severityLabel } from './labels';

const VISIBILITIES = ['public', 'internal', 'restricted', 'confidential'];

/** Declares an incident with the responder as its commander, then opens it. */
export function Declare({ session }: { session: Session }) {
  const [title, setTitle] = useState('');
  const [severity, setSeverity] = useState<Severity>('SEV_2');
  const [description, setDescription] = useState('');
  const [services, setServices] = useState('');
  const [visibility, setVisibility] = useState('internal');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const input = {
        title,
        severity,
        visibility,
        ...(description ? { description } : {}),
        services: services.split(',').map((s) => s.trim()).filter(Boolean),
      };
      const { declareIncident } = await runGraphql(DECLARE_INCIDENT, { input }, session.token);
      navigate(`/incidents/${declareIncident.id}`);
    } catch (refused) {
      setError(refused);
      setBusy(false);
    }
  };

  return (
    <main id="main">
      <h1>Declare an incident</h1>
      {!canWrite(session) && <p class="error">Declaring needs the timeline.writer role, which your sign-in does not carry.</p>}
      <form class="card" onSubmit={submit}>
        <label>
          Title
          <input name="title" value={title} required maxLength={200} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Severity
          <select name="severity" value={severity} onChange={(e) => setSeverity(e.currentTarget.value as Severity)}>
            {SEVERITIES.map((level) => (
              <option key={level} value={level}>
                {severityLabel(level)}
              </option>
            ))}
          </select>
        </label>
        <label>
          What is happening (optional)
          <textarea name="description" rows={3} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <label>
          Services affected, comma-separated (optional)
          <input name="services" value={services} onInput={(e) => setServices(e.currentTarget.value)} />
        </label>
        <label>
          Who may see it
          <select name="visibility" value={visibility} onChange={(e) => setVisibility(e.currentTarget.value)}>
            {VISIBILITIES.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </select>
        </label>
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          Declare
        </button>
      </form>
    </main>
  );
}
