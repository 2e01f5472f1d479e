import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  /** Reads again (live updates call it); the view keeps showing the last answer meanwhile. */
  reload: () => void;
}

/**
 * What `load` answers, read when `key` changes and on reload; only the newest
 * read is shown, and only under the key it was read for: after a filter
 * changes, the rows of the previous filter are not shown, not even for the
 * render before the new read starts.
 */
export function useLoaded<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ key?: string; data?: T; error?: unknown }>({});
  const latest = useRef(0);
  const reload = useCallback(() => {
    const call = ++latest.current;
    load().then(
      (data) => call === latest.current && setState({ key, data }),
      (error: unknown) => call === latest.current && setState((previous) => ({ key, data: previous.key === key ? previous.data : undefined, error })),
    );
  }, [key]);
  useEffect(() => reload(), [reload]);
  const current = state.key === key ? state : {};
  return { data: current.data, error: current.error, reload };
}
