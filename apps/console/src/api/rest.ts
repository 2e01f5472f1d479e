import createClient from 'openapi-fetch';
import { ApiError } from './errors';
import type { paths } from './openapi-types';

/** REST through openapi-fetch over the types generated from the api's OpenAPI document (scripts/openapi-types.ts). */

export type TimelineEvent = paths['/api/v1/incidents/{id}/timeline']['get']['responses'][200]['content']['application/json']['events'][number];
export type ConsoleSettings = paths['/api/v1/console/config']['get']['responses'][200]['content']['application/json'];
export type Incident = paths['/api/v1/incidents']['get']['responses'][200]['content']['application/json'][number];
export type Move = 'ack' | 'mitigate' | 'resolve' | 'close';
export type TimelineFilter = { type?: string; actor?: string; from?: string; to?: string };

export const api = createClient<paths>({ baseUrl: location.origin });

export const withToken = (token: string): { headers: { authorization: string } } => ({ headers: { authorization: `Bearer ${token}` } });

/** The `{error, status}` body as an ApiError; a body that is not one keeps the HTTP status. */
function refused(response: Response, error: unknown): ApiError {
  const body = error as { error?: unknown } | undefined;
  return new ApiError(response.status, typeof body?.error === 'string' ? body.error : response.statusText);
}

export function answer<T>({ data, error, response }: { data?: T; error?: unknown; response: Response }): T {
  if (error !== undefined || data === undefined) throw refused(response, error);
  return data;
}

export const fetchConsoleSettings = async (): Promise<ConsoleSettings> => answer(await api.GET('/api/v1/console/config'));

export const signInAs = async (claims: { sub: string; roles: string[]; clearance: 'public' | 'internal' | 'restricted' | 'confidential'; data_access: ('pii' | 'phi' | 'legal_hold')[] }) =>
  answer(await api.POST('/api/v1/console/development-token', { body: claims }));

/**
 * The newest `limit` incidents the caller may see with one of these statuses and
 * severities (REST spelling; none given: any), and whether more exist (the Link rel="next").
 */
export async function listIncidents(token: string, filter: { status: string[]; severity: string[]; limit: number }): Promise<{ incidents: Incident[]; more: boolean }> {
  const query = {
    limit: filter.limit,
    ...(filter.status.length ? { status: filter.status.join(',') } : {}),
    ...(filter.severity.length ? { severity: filter.severity.join(',') } : {}),
  };
  const answered = await api.GET('/api/v1/incidents', { params: { query }, ...withToken(token) });
  return { incidents: answer(answered), more: /rel="next"/.test(answered.response.headers.get('link') ?? '') };
}

const MOVES = {
  ack: '/api/v1/incidents/{id}/ack',
  mitigate: '/api/v1/incidents/{id}/mitigate',
  resolve: '/api/v1/incidents/{id}/resolve',
  close: '/api/v1/incidents/{id}/close',
} as const;

export async function moveIncident(token: string, id: string, move: Move): Promise<string> {
  return answer(await api.POST(MOVES[move], { params: { path: { id } }, ...withToken(token) })).status;
}

export async function readTimeline(token: string, id: string, filter: TimelineFilter): Promise<TimelineEvent[]> {
  const query = { order: 'desc' as const, limit: 100, ...filter };
  return answer(await api.GET('/api/v1/incidents/{id}/timeline', { params: { path: { id }, query }, ...withToken(token) })).events;
}

/** A file the api answered (read with `parseAs: 'blob'`), or its refusal. */
export function file({ data, error, response }: { data?: unknown; error?: unknown; response: Response }): Blob {
  if (error !== undefined || !data) throw refused(response, error);
  return data as Blob;
}

/** The export as a file to save: JSON (the CloudEvents) or Markdown. */
export const exportTimeline = async (token: string, id: string, format: 'json' | 'markdown'): Promise<Blob> =>
  file(await api.GET('/api/v1/incidents/{id}/timeline/export', { params: { path: { id }, query: { format } }, parseAs: 'blob', ...withToken(token) }));

/** The postmortem draft (Markdown, timeline.exporter), a file to save. */
export const postmortem = async (token: string, id: string): Promise<Blob> =>
  file(await api.GET('/api/v1/incidents/{id}/postmortem', { params: { path: { id } }, parseAs: 'blob', ...withToken(token) }));

