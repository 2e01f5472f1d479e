import { EVENT_STORE, type EventStore } from '@im/event-store';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EscalationsDue, PagingPlans, TimerRunner } from '@im/paging';
import { INCIDENT_QUERIES, ONCALL_QUERIES, PROJECTION_PROGRESS } from '@im/read-models';
import { CLOCK, type Clock, CommandHandler, ID_GENERATOR, READ_YOUR_WRITES } from '@im/write-path';
import { RetryPolicy } from '../libs/write-path/src/retry-policy';
import firing from './fixtures/alertmanager-firing.json';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { bearer, token } from './support/tokens';

jest.setTimeout(60_000);

/**
 * Paging (docs/api.md, "Paging"): an incident's service fixed as it opens,
 * the escalation timers (the injected clock is moved on instead of waiting
 * for delays), who a schedule target pages, a responder's escalation through
 * REST and GraphQL, and two runners deciding the same timers.
 */
const ADMIN = bearer(token({ sub: 'ops-admin', roles: ['oncall.admin', 'integrations.admin'] }));
const ALICE = bearer(token({ sub: 'alice' }));
const READER = bearer(token({ sub: 'rita', roles: ['timeline.reader'] }));

let t: TestApp;
let offset = 0;
/** The injected clock runs `offset` ahead of the wall clock: moving it on makes delays pass. */
const advance = (seconds: number) => (offset += seconds * 1000);

beforeAll(async () => {
  t = await startTestApp();
  jest.spyOn(t.app.get<Clock>(CLOCK), 'now').mockImplementation(() => new Date(Date.now() + offset));
});
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
});

let names = 0;
const unique = (name: string) => `${name} ${++names}`;
const post = (path: string, body: object, as = ADMIN) => t.http().post(path).set(as).send(body);
const graphql = async (query: string, as = ALICE) => (await t.http().post('/api/v1/graphql').set(as).send({ query }).expect(200)).body;

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface TimelineEvent {
  event_type: string;
  actor: string;
  data: Record<string, unknown>;
}
const paging = async (id: string) =>
  ((await t.http().get(`/api/v1/incidents/${id}/timeline?type=im.paging.*&order=asc`).set(ALICE).expect(200)).body.events as TimelineEvent[]).map(
    ({ event_type, actor, data }) => {
      const { 'im.sender': _sender, ...rest } = data;
      return { type: event_type, actor, data: rest };
    },
  );
const pages = async (id: string) => (await paging(id)).filter((event) => event.type === 'im.paging.page');
const pagingUntil = (id: string, count: number) => waitFor(() => paging(id), (events) => events.length >= count);

const policy = async (steps: object[], repeat = 0) => (await post('/api/v1/escalation-policies', { name: unique('Policy'), steps, repeat }).expect(201)).body as { id: string };
const service = async (policyId: string | null) =>
  (await post('/api/v1/services', { name: unique('Checkout'), escalation_policy_id: policyId }).expect(201)).body as { id: string; name: string };
const user = (id: string) => ({ type: 'user', id });
/** Declared through GraphQL, whose declaration takes `services` (REST's takes none): the incident as REST shows it. */
async function declare(services: string[] = []): Promise<{ id: string; service: unknown }> {
  const input = `{ title: "${unique('Down')}", severity: SEV_1, services: ${JSON.stringify(services)} }`;
  const { id } = (await graphql(`mutation { declareIncident(input: ${input}) { id } }`)).data.declareIncident;
  return (await t.http().get(`/api/v1/incidents/${id}`).set(ALICE).expect(200)).body;
}

/** An Alertmanager alert sent with an integration key of the service: the incident it opened. */
async function alertOf(serviceId: string): Promise<string> {
  const key = (await post('/api/v1/integration-keys', { name: unique('prometheus'), roles: ['timeline.writer'], service_id: serviceId }).expect(201)).body.key as string;
  const alert = { ...firing.alerts[0], fingerprint: unique('fp').replace(' ', '-') };
  const res = await t.http().post('/api/v1/integrations/alertmanager').set(bearer(key)).send({ ...firing, alerts: [alert] }).expect(200);
  return res.body.results[0].incident_id as string;
}


describe('an incident of a service with a policy', () => {
  it('opened by an alert with the service’s key: step 1 at once, step 2 after its delay, the repeat, then exhausted, all by system:escalation', async () => {
    const { id: policyId } = await policy([{ delay_seconds: 60, targets: [user('ann')] }, { delay_seconds: 30, targets: [user('bob'), user('ann')] }], 1);
    const svc = await service(policyId);
    const id = await alertOf(svc.id);
    expect((await t.http().get(`/api/v1/incidents/${id}`).set(ALICE).expect(200)).body.service).toEqual({ id: svc.id, name: svc.name });
    const assigned = (await t.http().get(`/api/v1/incidents/${id}/timeline?type=im.incident.service_assigned`).set(ALICE).expect(200)).body.events;
    expect(assigned).toEqual([expect.objectContaining({ actor: 'system:oncall', data: expect.objectContaining({ service_id: svc.id, escalation_policy_id: policyId }) })]);

    expect(await pagingUntil(id, 1)).toEqual([
      { type: 'im.paging.page', actor: 'system:escalation', data: { step: 1, round: 1, paged: [{ user: 'ann', via: 'user' }], unstaffed: [] } },
    ]);
    advance(61);
    expect((await pagingUntil(id, 3)).slice(1)).toEqual([
      { type: 'im.paging.escalate', actor: 'system:escalation', data: { from_step: 1, to_step: 2, reason: 'timeout' } },
      { type: 'im.paging.page', actor: 'system:escalation', data: { step: 2, round: 1, paged: [{ user: 'bob', via: 'user' }, { user: 'ann', via: 'user' }], unstaffed: [] } },
    ]);
    advance(31);
    expect((await pagingUntil(id, 5)).slice(3).map((e) => e.data)).toEqual([{ from_step: 2, to_step: 1, reason: 'timeout' }, expect.objectContaining({ step: 1, round: 2 })]);
    advance(61);
    await pagingUntil(id, 7);
    advance(31);
    const all = await pagingUntil(id, 8);
    expect(all[7]).toEqual({ type: 'im.paging.exhausted', actor: 'system:escalation', data: { rounds: 2 } });
    advance(600);
    await t.app.get(TimerRunner).pass();
    expect((await pages(id)).map((p) => `${p.data.step}/${p.data.round}`)).toEqual(['1/1', '2/1', '1/2', '2/2']);
  });

  it('pages nothing more once acknowledged, however much time passes', async () => {
    const { id: policyId } = await policy([{ delay_seconds: 60, targets: [user('ann')] }, { delay_seconds: 60, targets: [user('bob')] }]);
    const id = await alertOf((await service(policyId)).id);
    await pagingUntil(id, 1);
    await t.http().post(`/api/v1/incidents/${id}/ack`).set(ALICE).expect(200);
    advance(3600);
    await t.app.get(TimerRunner).pass();
    expect(await paging(id)).toHaveLength(1);
  });

  it('pages whoever is on call in a schedule target, and lists a schedule with no one on call as unstaffed', async () => {
    const layer = { name: 'all day', start: '2026-01-01T00:00:00Z', rotation: { every: 1, unit: 'weeks' }, users: ['carol'] };
    const staffed = (await post('/api/v1/schedules', { name: unique('Primary'), time_zone: 'Europe/Berlin', layers: [layer] }).expect(201)).body.id as string;
    const empty = (await post('/api/v1/schedules', { name: unique('Nobody'), time_zone: 'UTC', layers: [] }).expect(201)).body.id as string;
    const { id: policyId } = await policy([{ delay_seconds: 300, targets: [{ type: 'schedule', id: staffed }, { type: 'schedule', id: empty }, user('carol')] }]);
    const svc = await service(policyId);
    // A declaration's services: the first naming a service is the incident's (names whatever their case).
    const declared = await declare(['billing', svc.name.toUpperCase()]);
    expect(declared.service).toEqual({ id: svc.id, name: svc.name });
    const [page] = await pagingUntil(declared.id, 1);
    expect(page.data).toEqual({ step: 1, round: 1, paged: [{ user: 'carol', via: `schedule:${staffed}` }], unstaffed: [empty] });
  });

  it('leaves an incident of no service, or of a service without a policy, unpaged', async () => {
    const plain = await declare(['nothing-by-this-name']);
    expect(plain.service).toBeNull();
    const svc = await service(null);
    const quiet = await declare([svc.id]);
    expect(quiet.service).toEqual({ id: svc.id, name: svc.name });
    await t.app.get(TimerRunner).pass();
    expect(await paging(plain.id)).toEqual([]);
    expect(await paging(quiet.id)).toEqual([]);
    const view = (await graphql(`{ incidentStatus(id: "${quiet.id}") { escalation { step } service { id name } } }`)).data.incidentStatus;
    expect(view).toEqual({ escalation: null, service: { id: svc.id, name: svc.name } });
  });

  it('refuses to delete a service while an unresolved incident belongs to it (409), and deletes it once resolved', async () => {
    const svc = await service(null);
    const { id } = await declare([svc.name]);
    expectError(await t.http().delete(`/api/v1/services/${svc.id}`).set(ADMIN), 409, `Service ${svc.id}`);
    await t.http().post(`/api/v1/incidents/${id}/resolve`).set(ALICE).expect(200);
    await t.http().delete(`/api/v1/services/${svc.id}`).set(ADMIN).expect(204);
    expect((await t.http().get(`/api/v1/incidents/${id}`).set(ALICE).expect(200)).body.service).toBeNull();
  });
});

describe('a responder’s escalation', () => {
  const escalateGql = (id: string, as = ALICE) => graphql(`mutation { escalateIncident(incidentId: "${id}") { id status } }`, as);
  const escalateEnabled = async (id: string, as = ALICE) =>
    ((await graphql(`{ quickActions(incidentId: "${id}") { actionType enabled } }`, as)).data.quickActions as { actionType: string; enabled: boolean }[]).find(
      (action) => action.actionType === 'ESCALATE',
    )?.enabled;

  it('pages the next step now (manual) while open or acknowledged, through REST and GraphQL; 409 with no step left; the quick action follows', async () => {
    const { id: policyId } = await policy([{ delay_seconds: 3600, targets: [user('ann')] }, { delay_seconds: 3600, targets: [user('bob')] }, { delay_seconds: 3600, targets: [user('cy')] }]);
    const svc = await service(policyId);
    const { id } = await declare([svc.name]);
    await pagingUntil(id, 1);
    expect(await escalateEnabled(id)).toBe(true);
    expect(await escalateEnabled(id, READER)).toBe(false);
    // As for ack: GraphQL needs timeline.writer; REST any caller of the incident endpoints.
    expect((await escalateGql(id, READER)).errors[0].extensions.code).toBe('FORBIDDEN');

    const rest = await t.http().post(`/api/v1/incidents/${id}/escalate`).set(ALICE).expect(200);
    expect(rest.body).toEqual(expect.objectContaining({ id, status: 'open', service: { id: svc.id, name: svc.name } }));
    expect((await paging(id)).slice(1)).toEqual([
      { type: 'im.paging.escalate', actor: 'system:escalation', data: { from_step: 1, to_step: 2, reason: 'manual' } },
      { type: 'im.paging.page', actor: 'system:escalation', data: { step: 2, round: 1, paged: [{ user: 'bob', via: 'user' }], unstaffed: [] } },
    ]);

    await t.http().post(`/api/v1/incidents/${id}/ack`).set(ALICE).expect(200);
    expect(await escalateEnabled(id)).toBe(true);
    expect((await escalateGql(id)).data.escalateIncident).toEqual({ id, status: 'ACKNOWLEDGED' });
    expect((await pages(id)).map((p) => p.data.step)).toEqual([1, 2, 3]);
    const view = (await graphql(`{ incidentStatus(id: "${id}") { status escalation { policyName step round nextEscalationAt exhausted paged } } }`)).data.incidentStatus;
    expect(view).toEqual({ status: 'ACKNOWLEDGED', escalation: { policyName: expect.stringMatching(/^Policy/), step: 3, round: 1, nextEscalationAt: null, exhausted: false, paged: ['cy'] } });

    expect(await escalateEnabled(id)).toBe(false);
    expectError(await t.http().post(`/api/v1/incidents/${id}/escalate`).set(ALICE), 409, 'no step is left');
    expect((await escalateGql(id)).errors[0].extensions.code).toBe('CONFLICT');
    await t.http().post(`/api/v1/incidents/${id}/resolve`).set(ALICE).expect(200);
  });

  it('is refused (409) for an incident of no policy or past acknowledged, and 404 for one that does not exist', async () => {
    const { id } = await declare();
    expect(await escalateEnabled(id)).toBe(false);
    expectError(await t.http().post(`/api/v1/incidents/${id}/escalate`).set(ALICE), 409, 'no escalation policy');
    const { id: policyId } = await policy([{ delay_seconds: 3600, targets: [user('ann')] }], 2);
    const paged = await declare([(await service(policyId)).name]);
    await t.http().post(`/api/v1/incidents/${paged.id}/ack`).set(ALICE).expect(200);
    await t.http().post(`/api/v1/incidents/${paged.id}/mitigate`).set(ALICE).expect(200);
    expect(await escalateEnabled(paged.id)).toBe(false);
    expectError(await t.http().post(`/api/v1/incidents/${paged.id}/escalate`).set(ALICE), 409, 'it is mitigated');
    expectError(await t.http().post('/api/v1/incidents/INC-00000000/escalate').set(ALICE), 404);
  });

  it('shows the escalation state while open: the next escalation is the current step’s delay after its page', async () => {
    const { id: policyId } = await policy([{ delay_seconds: 120, targets: [user('ann')] }, { delay_seconds: 60, targets: [user('bob')] }]);
    const { id } = await declare([(await service(policyId)).name]);
    await pagingUntil(id, 1);
    const { escalation } = (await graphql(`{ incidentStatus(id: "${id}") { escalation { step round nextEscalationAt exhausted paged } } }`)).data.incidentStatus;
    const pagedAt = (await t.app.get(INCIDENT_QUERIES).findById(id))!.escalation!.pagedAt as string;
    expect(escalation).toEqual({ step: 1, round: 1, nextEscalationAt: new Date(Date.parse(pagedAt) + 120_000).toISOString(), exhausted: false, paged: ['ann'] });
    await t.http().post(`/api/v1/incidents/${id}/resolve`).set(ALICE).expect(200);
  });
});

describe('two runners', () => {
  it('page each step once when both decide every timer', async () => {
    const get = <T>(token: unknown) => t.app.get<T>(token as string);
    // A runner of its own: its own write path (cache and queue), as another process has, on the same ledger and read models.
    const clock = get<Clock>(CLOCK);
    const commands = new CommandHandler(get<EventStore>(EVENT_STORE), clock, new RetryPolicy(clock), get(ID_GENERATOR), get(READ_YOUR_WRITES));
    const due = new EscalationsDue(get(INCIDENT_QUERIES), get(ONCALL_QUERIES), clock, get(PagingPlans), commands);
    const second = new TimerRunner(get<AppConfig>(APP_CONFIG), get(EVENT_STORE), get(PROJECTION_PROGRESS), clock, due);
    const first = get<TimerRunner>(TimerRunner);
    await second.start();
    try {
      const { id: policyId } = await policy([{ delay_seconds: 10, targets: [user('ann')] }, { delay_seconds: 10, targets: [user('bob')] }], 1);
      const svc = await service(policyId);
      const ids = await Promise.all([alertOf(svc.id), alertOf(svc.id), alertOf(svc.id)]);
      for (let round = 0; round < 5; round++) {
        await Promise.all([first.pass(), second.pass(), first.pass(), second.pass()]);
        await Promise.all(ids.map((id) => waitFor(() => paging(id), (events) => events.length >= [1, 3, 5, 7, 8][round])));
        advance(11);
      }
      for (const id of ids) {
        expect((await pages(id)).map((p) => `${p.data.step}/${p.data.round}`)).toEqual(['1/1', '2/1', '1/2', '2/2']);
        expect((await paging(id)).filter((e) => e.type === 'im.paging.exhausted')).toHaveLength(1);
      }
    } finally {
      await second.stop();
    }
  });
});
