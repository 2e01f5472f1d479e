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
import { OnCall } from './views/oncall';
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

type ViewProps = { session: Session; id: string };
type LazyView = { title: string; load: () => Promise<(props: ViewProps) => preact.JSX.Element> };

/**
 * Views used by few (the GraphQL playground and the graphql package it uses;
 * the on-call configuration; Insights) are loaded when opened, keeping the console's first load small.
 */
const PLAYGROUND: LazyView = { title: 'GraphQL playground', load: () => import('./views/playground').then((module) => module.Playground) };
const SERVICES: LazyView = { title: 'Services', load: () => import('./views/services').then((module) => module.ServicesPage) };
const POLICIES: LazyView = { title: 'Escalation policies', load: () => import('./views/policies').then((module) => module.PoliciesPage) };
const NEW_SCHEDULE: LazyView = { title: 'New schedule', load: () => import('./views/schedule').then((module) => module.NewSchedule) };
const INSIGHTS: LazyView = { title: 'Insights', load: () => import('./views/insights').then((module) => module.InsightsPage) };
const SCHEDULE: LazyView = { title: 'Schedule', load: () => import('./views/schedule').then((module) => module.SchedulePage) };

function Lazy({ view, ...props }: ViewProps & { view: LazyView }) {
  const [loaded, setLoaded] = useState<((props: ViewProps) => preact.JSX.Element) | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    view.load().then((component) => setLoaded(() => component), setError);
  }, [view]);
  if (loaded) return h(loaded, props);
  return (
    <main id="main">
      <h1>{view.title}</h1>
      {error ? <p class="error">{describeError(error)}</p> : <p aria-live="polite">Loading…</p>}
    </main>
  );
}

const NAV: [string, string][] = [
  ['/', 'Incidents'],
  ['/mine', 'My incidents'],
  ['/declare', 'Declare'],
  ['/oncall', 'On call'],
  ['/insights', 'Insights'],
];

const current = (path: string, href: string) => (path === href || (href !== '/' && path.startsWith(`${href}/`)) ? 'page' : undefined);

function Header({ session, path }: { session: Session; path: string }) {
  return (
    <header class="top">
      <nav class="main-nav" aria-label="Main">
        {NAV.map(([href, text]) => (
          <a key={href} href={href} aria-current={current(path, href)}>
            {text}
          </a>
        ))}
      </nav>
      <LinkIndicator />
      {/* One's own settings beside one's name: the main links stay on one line of a 390-px phone. */}
      <nav class="who" aria-label="Account">
        <a href="/settings" aria-current={current(path, '/settings')}>
          Settings
        </a>
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
      </nav>
    </header>
  );
}

function View({ session, path }: { session: Session; path: string }) {
  const incident = /^\/incidents\/([^/]+)$/.exec(path);
  if (incident) return <IncidentPage session={session} id={decodeURIComponent(incident[1])} />;
  if (path === '/declare') return <Declare session={session} />;
  if (path === '/settings') return <Settings session={session} />;
  if (path === '/mine') return <MyIncidents session={session} />;
  if (path === '/oncall') return <OnCall session={session} />;
  const schedule = /^\/oncall\/schedules\/([^/]+)$/.exec(path);
  const lazy = (view: LazyView, id = '') => <Lazy key={path} view={view} session={session} id={id} />;
  if (schedule) return schedule[1] === 'new' ? lazy(NEW_SCHEDULE) : lazy(SCHEDULE, decodeURIComponent(schedule[1]));
  if (path === '/oncall/services') return lazy(SERVICES);
  if (path === '/oncall/policies') return lazy(POLICIES);
  if (path === '/insights') return lazy(INSIGHTS);
  if (path === PLAYGROUND_PATH) return lazy(PLAYGROUND);
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
    finishOidcSignIn(settings.oidc).then((back) => navigate(back, true), setError);
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
