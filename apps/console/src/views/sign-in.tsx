import { useState } from 'preact/hooks';
import { type ConsoleSettings, signInAs } from '../api/rest';
import { startOidcSignIn } from '../oidc';
import { sessionFromToken, setSession } from '../session';
import { ErrorMessage } from './error-message';

const ROLES = ['timeline.writer', 'timeline.reader', 'timeline.exporter', 'incidents.admin', 'integrations.admin', 'oncall.admin'];
const CLEARANCES = ['public', 'internal', 'restricted', 'confidential'] as const;
const DATA_CLASSES = ['pii', 'phi', 'legal_hold'] as const;

type Clearance = (typeof CLEARANCES)[number];
type DataClass = (typeof DATA_CLASSES)[number];

const toggled = <T,>(list: T[], value: T, on: boolean) => (on ? [...list, value] : list.filter((v) => v !== value));

/** Development: pick who to be; the server mints the token. Refused by the server outside development. */
function SignInAs() {
  const [sub, setSub] = useState('alice');
  const [roles, setRoles] = useState(['timeline.writer', 'timeline.reader', 'timeline.exporter']);
  const [clearance, setClearance] = useState<Clearance>('internal');
  const [dataAccess, setDataAccess] = useState<DataClass[]>([]);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      const { token } = await signInAs({ sub, roles, clearance, data_access: dataAccess });
      setSession(sessionFromToken(token, 'development'));
    } catch (refused) {
      setError(refused);
    }
  };

  return (
    <form class="card" onSubmit={submit} aria-labelledby="sign-in-as">
      <h2 id="sign-in-as">Sign in as (development)</h2>
      <label>
        User
        <input name="sub" value={sub} required onInput={(e) => setSub(e.currentTarget.value)} autoComplete="username" />
      </label>
      <fieldset>
        <legend>Roles</legend>
        {ROLES.map((role) => (
          <label class="check" key={role}>
            <input type="checkbox" name="roles" value={role} checked={roles.includes(role)} onChange={(e) => setRoles(toggled(roles, role, e.currentTarget.checked))} />
            {role}
          </label>
        ))}
      </fieldset>
      <label>
        Clearance
        <select name="clearance" value={clearance} onChange={(e) => setClearance(e.currentTarget.value as Clearance)}>
          {CLEARANCES.map((level) => (
            <option key={level} value={level}>
              {level}
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Data access</legend>
        {DATA_CLASSES.map((dataClass) => (
          <label class="check" key={dataClass}>
            <input
              type="checkbox"
              name="data_access"
              value={dataClass}
              checked={dataAccess.includes(dataClass)}
              onChange={(e) => setDataAccess(toggled(dataAccess, dataClass, e.currentTarget.checked))}
            />
            {dataClass}
          </label>
        ))}
      </fieldset>
      <ErrorMessage error={error} />
      <button type="submit">Sign in as {sub || '…'}</button>
    </form>
  );
}

export function SignIn({ settings }: { settings: ConsoleSettings }) {
  const [error, setError] = useState<unknown>(null);
  const { oidc } = settings;
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to the incident console</h1>
      {oidc && (
        <div class="card">
          <p>Sign in with your organisation's account at {new URL(oidc.issuer).host}.</p>
          <button type="button" onClick={() => startOidcSignIn(oidc).catch(setError)}>
            Sign in with single sign-on
          </button>
          <ErrorMessage error={error} />
        </div>
      )}
      {settings.development_sign_in && <SignInAs />}
      {!oidc && !settings.development_sign_in && (
        <p class="error" role="alert">
          No sign-in is configured: set CONSOLE_OIDC_CLIENT_ID and JWT_ISSUER for single sign-on.
        </p>
      )}
    </main>
  );
}
