import { InvalidError } from '@im/incidents';

/**
 * Where a live stream resumes: the `Last-Event-ID` header, else `?after=`.
 * The header wins because an EventSource reconnecting keeps the URL it was
 * opened with (and its `after`) and sends the id of the last event it received.
 * An empty value means "from now", as the SSE specification resets the id.
 */
export function parseLiveResume(query: Record<string, unknown>, lastEventId: unknown): string | undefined {
  const fromHeader = single(lastEventId, 'the Last-Event-ID header');
  if (fromHeader !== undefined) return fromHeader || undefined;
  return single(query.after, 'after') || undefined;
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw new InvalidError(`${name} must be given once: the id of the last event received`);
}
