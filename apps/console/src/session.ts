import { useEffect, useState } from 'preact/hooks';

/** Who is signed in, from the claims of their bearer token. */
export interface Session {
  token: string;
  method: 'development' | 'oidc';
  sub: string;
  roles: string[];
  clearance: string;
  dataAccess: string[];
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

const KEY = 'incident-console.session';
const listeners = new Set<() => void>();

/** A JWT's payload, read (not verified: the api verifies every call). */
function claimsOf(token: string): Record<string, unknown> {
  const payload = token.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)))) as Record<string, unknown>;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

export function sessionFromToken(token: string, method: Session['method']): Session {
  const claims = claimsOf(token);
  return {
    token,
    method,
    sub: String(claims.sub),
    roles: strings(claims.roles),
    clearance: typeof claims.clearance === 'string' ? claims.clearance : 'public',
    dataAccess: strings(claims.data_access),
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : Date.now(),
  };
}

/** The session of this tab: kept for reloads, gone when the tab closes. */
export function currentSession(): Session | null {
  const stored = sessionStorage.getItem(KEY);
  if (!stored) return null;
  const session = JSON.parse(stored) as Session;
  return session.expiresAt > Date.now() ? session : null;
}

export function setSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
  listeners.forEach((listener) => listener());
}

export function useSession(): Session | null {
  const [session, update] = useState(currentSession);
  useEffect(() => {
    const listener = () => update(currentSession());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return session;
}

export const canWrite = (session: Session) => session.roles.includes('timeline.writer');
export const canReadTimeline = (session: Session) => session.roles.includes('timeline.reader');
export const canExport = (session: Session) => session.roles.includes('timeline.exporter');
/** Editing services, schedules and policies, and anyone's overrides (the api decides; the console only offers what will work). */
export const canAdminOnCall = (session: Session) => session.roles.includes('oncall.admin');
