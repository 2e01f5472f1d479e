import { EventSource } from 'eventsource';
import { useEffect, useState } from 'preact/hooks';

/**
 * The live streams of docs/api.md (server-sent events), read with fetch so the
 * bearer token goes in the Authorization header (a browser's own EventSource
 * cannot send one). A dropped connection is retried by the library with
 * Last-Event-ID; a refused one (401, 503, `event: error`) is opened again here
 * after a growing pause, resuming after the last event seen. The state of every
 * open stream is shown in the header until each is live again.
 */

export type LinkState = 'connecting' | 'live' | 'lost';

interface StreamOptions {
  path: string;
  token: string;
  /** The SSE event name: `timeline` or `incident`. */
  event: string;
  onEvent: (data: unknown) => void;
  /** After every (re)connection: the caller reads again what it may have missed. */
  onOpen?: () => void;
}

const MAX_PAUSE_MS = 15_000;
const states = new Map<symbol, LinkState>();
const listeners = new Set<() => void>();

function report(stream: symbol, state: LinkState | null): void {
  if (state === null) states.delete(stream);
  else states.set(stream, state);
  listeners.forEach((listener) => listener());
}

/** The worst state of the open streams: lost if any is, else connecting if any is, else live (or null with none open). */
export function linkState(): LinkState | null {
  const all = [...states.values()];
  if (all.length === 0) return null;
  return all.includes('lost') ? 'lost' : all.includes('connecting') ? 'connecting' : 'live';
}

export function useLinkState(): LinkState | null {
  const [state, update] = useState(linkState);
  useEffect(() => {
    const listener = () => update(linkState());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return state;
}

/** Opens the stream and keeps it open until the returned function is called. */
export function openStream({ path, token, event, onEvent, onOpen }: StreamOptions): () => void {
  const id = Symbol(path);
  let source: EventSource | undefined;
  let lastEventId: string | undefined;
  let pause = 1000;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const connect = () => {
    const url = new URL(path, location.origin);
    if (lastEventId) url.searchParams.set('after', lastEventId);
    source = new EventSource(url, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } }),
    });
    source.addEventListener('open', () => {
      pause = 1000;
      report(id, 'live');
      onOpen?.();
    });
    source.addEventListener(event, (message) => {
      if (message.lastEventId) lastEventId = message.lastEventId;
      onEvent(JSON.parse(message.data));
    });
    source.addEventListener('error', (error) => {
      report(id, 'lost');
      // The library retries a dropped connection itself; a refused one (or the server's `event: error`) ends here.
      if ('data' in error || source?.readyState === EventSource.CLOSED) {
        source?.close();
        retry = setTimeout(() => !stopped && connect(), pause);
        pause = Math.min(pause * 2, MAX_PAUSE_MS);
      }
    });
  };

  report(id, 'connecting');
  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    source?.close();
    report(id, null);
  };
}
