import type { paths } from './openapi-types';
import { answer, api, withToken } from './rest';

/** The on-call configuration over REST (services, escalation policies, schedules, overrides, who is on call, shifts). */

type Json<P extends keyof paths, M extends 'get' | 'post', S extends 200 | 201> = paths[P][M] extends { responses: { [K in S]: { content: { 'application/json': infer T } } } } ? T : never;
type Body<P extends keyof paths, M extends 'post' | 'put'> = paths[P][M] extends { requestBody: { content: { 'application/json': infer T } } } ? T : never;

export type Service = Json<'/api/v1/services/{id}', 'get', 200>;
export type ServiceInput = Body<'/api/v1/services', 'post'>;
export type Policy = Json<'/api/v1/escalation-policies/{id}', 'get', 200>;
export type PolicyInput = Body<'/api/v1/escalation-policies', 'post'>;
export type PolicyStep = PolicyInput['steps'][number];
export type Target = PolicyStep['targets'][number];
export type Schedule = Json<'/api/v1/schedules/{id}', 'get', 200>;
export type ScheduleInput = Body<'/api/v1/schedules', 'post'>;
export type Layer = ScheduleInput['layers'][number];
export type Restriction = NonNullable<Layer['restrictions']>[number];
export type Day = Restriction['days'][number];
export type Override = Schedule['overrides'][number];
export type Shift = Json<'/api/v1/schedules/{id}/shifts', 'get', 200>['shifts'][number];

export const DAYS: Day[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

const path = (id: string) => ({ params: { path: { id } } });

/** A DELETE answers 204 without a body: only a refusal is read. */
async function deleted(call: Promise<{ error?: unknown; response: Response }>): Promise<void> {
  const { error, response } = await call;
  if (!response.ok) answer({ error: error ?? {}, response });
}

export const listServices = async (token: string) => answer(await api.GET('/api/v1/services', withToken(token))).items;
export const createService = async (token: string, body: ServiceInput) => answer(await api.POST('/api/v1/services', { body, ...withToken(token) }));
export const updateService = async (token: string, id: string, body: ServiceInput) => answer(await api.PUT('/api/v1/services/{id}', { ...path(id), body, ...withToken(token) }));
export const deleteService = (token: string, id: string) => deleted(api.DELETE('/api/v1/services/{id}', { ...path(id), ...withToken(token) }));

export const listPolicies = async (token: string) => answer(await api.GET('/api/v1/escalation-policies', withToken(token))).items;
export const createPolicy = async (token: string, body: PolicyInput) => answer(await api.POST('/api/v1/escalation-policies', { body, ...withToken(token) }));
export const updatePolicy = async (token: string, id: string, body: PolicyInput) =>
  answer(await api.PUT('/api/v1/escalation-policies/{id}', { ...path(id), body, ...withToken(token) }));
export const deletePolicy = (token: string, id: string) => deleted(api.DELETE('/api/v1/escalation-policies/{id}', { ...path(id), ...withToken(token) }));

export const listSchedules = async (token: string) => answer(await api.GET('/api/v1/schedules', withToken(token))).items;
export const readSchedule = async (token: string, id: string) => answer(await api.GET('/api/v1/schedules/{id}', { ...path(id), ...withToken(token) }));
export const createSchedule = async (token: string, body: ScheduleInput) => answer(await api.POST('/api/v1/schedules', { body, ...withToken(token) }));
export const updateSchedule = async (token: string, id: string, body: ScheduleInput) => answer(await api.PUT('/api/v1/schedules/{id}', { ...path(id), body, ...withToken(token) }));
export const deleteSchedule = (token: string, id: string) => deleted(api.DELETE('/api/v1/schedules/{id}', { ...path(id), ...withToken(token) }));

export const createOverride = async (token: string, scheduleId: string, body: { user: string; start: string; end: string }) =>
  answer(await api.POST('/api/v1/schedules/{id}/overrides', { ...path(scheduleId), body, ...withToken(token) }));
export const deleteOverride = (token: string, scheduleId: string, overrideId: string) =>
  deleted(api.DELETE('/api/v1/schedules/{id}/overrides/{override_id}', { params: { path: { id: scheduleId, override_id: overrideId } }, ...withToken(token) }));

export const onCallNow = async (token: string, scheduleId: string) => answer(await api.GET('/api/v1/schedules/{id}/oncall', { ...path(scheduleId), ...withToken(token) })).user;
export const readShifts = async (token: string, scheduleId: string, window: { from: Date; to: Date }) =>
  answer(await api.GET('/api/v1/schedules/{id}/shifts', { params: { path: { id: scheduleId }, query: { from: window.from.toISOString(), to: window.to.toISOString() } }, ...withToken(token) })).shifts;
