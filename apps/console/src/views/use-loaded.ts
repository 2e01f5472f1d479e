import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  /** Reads again (live updates call it); the view keeps showing the last answer meanwhile. */
  reload: () => void;
}

/** What `load` answers, read when `key` changes and on reload; only the newest read is shown. */
export function useLoaded<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown }>({});
  const latest = useRef(0);
  const reload = useCallback(() => {
    const call = ++latest.current;
    load().then(
      (data) => call === latest.current && setState({ data }),
      (error: unknown) => call === latest.current && setState((previous) => ({ data: previous.data, error })),
    );
  }, [key]);
  useEffect(() => {
    setState({});
    reload();
  }, [reload]);
  return { data: state.data, error: state.error, reload };
}
