import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { describeError } from './api/errors';
import { type ConsoleSettings, fetchConsoleSettings } from './api/rest';
import { type LinkState, useLinkState } from './live/live-stream';
import { CALLBACK_PATH, finishOidcSignIn } from './oidc';
import { followLink, navigate, usePath } from './router';
import { type Session, setSession, useSession } from './session';
import { Declare } from './views/declare';
import { IncidentPage } from './views/incident';
import { Incidents } from './views/incidents';
import { MyIncidents } from './views/my-incidents';
import { Settings } from './views/settings';
import { SignIn } from './views/sign-in';

const LINK_TEXT: Record<LinkState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  lost: 'Connection lost: reconnecting…',
};

/** The state of the live streams, always visible: a responder must know whether what they see is current. */
function LinkIndicator() {
  const state = useLinkState();
  if (!state) return null;
  return (
    <p class={`link link-${state}`} role="status" data-link={state}>
      {LINK_TEXT[state]}
    </p>
  );
}

/** Served by the api in development only (apps/api/src/graphql/playground.controller.ts). */
const PLAYGROUND_PATH = '/graphql/playground';

/** The playground's code (and the graphql package it uses) is loaded only when it is opened, keeping the console's first load small. */
function LazyPlayground({ session }: { session: Session }) {
  const [view, setView] = useState<((props: { session: Session }) => preact.JSX.Element) | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    import('./views/playground').then((module) => setView(() => module.Playground), setError);
  }, []);
  if (view) return h(view, { session });
  return (
    <main id="main">
      <h1>GraphQL playground</h1>
      {error ? <p class="error">{describeError(error)}</p> : <p aria-live="polite">Loading…</p>}
    </main>
  );
}

const NAV: [string, string][] = [
  ['/', 'Incidents'],
  ['/mine', 'My incidents'],
  ['/declare', 'Declare'],
  ['/settings', 'Settings'],
];

function Header({ session, path }: { session: Session; path: string }) {
  return (
    <header class="top">
      <nav aria-label="Main">
        {NAV.map(([href, text]) => (
          <a key={href} href={href} aria-current={path === href ? 'page' : undefined}>
            {text}
          </a>
        ))}
      </nav>
      <LinkIndicator />
      <p class="who">
        <span>{session.sub}</span>
        <button
          type="button"
          class="link-button"
          onClick={() => {
            setSession(null);
            navigate('/');
          }}
        >
          Sign out
        </button>
      </p>
    </header>
  );
}

function View({ session, path }: { session: Session; path: string }) {
  const incident = /^\/incidents\/([^/]+)$/.exec(path);
  if (incident) return <IncidentPage session={session} id={decodeURIComponent(incident[1])} />;
  if (path === '/declare') return <Declare session={session} />;
  if (path === '/settings') return <Settings session={session} />;
  if (path === '/mine') return <MyIncidents session={session} />;
  if (path === PLAYGROUND_PATH) return <LazyPlayground session={session} />;
  return <Incidents session={session} />;
}

export function App() {
  const session = useSession();
  const path = usePath();
  const [settings, setSettings] = useState<ConsoleSettings | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    fetchConsoleSettings().then(setSettings, setError);
  }, []);
  useEffect(() => {
    if (path !== CALLBACK_PATH || !settings?.oidc) return;
    finishOidcSignIn(settings.oidc).then(() => navigate('/', true), setError);
  }, [path, settings]);

  if (error) {
    return (
      <main id="main">
        <h1>Incident console</h1>
        <p class="error" role="alert">
          {describeError(error)}
        </p>
      </main>
    );
  }
  if (!settings) return <p aria-live="polite">Loading…</p>;
  if (!session) return path === CALLBACK_PATH ? <p aria-live="polite">Signing you in…</p> : <SignIn settings={settings} />;
  return (
    <div onClick={followLink}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Header session={session} path={path} />
      <View session={session} path={path} />
    </div>
  );
}
