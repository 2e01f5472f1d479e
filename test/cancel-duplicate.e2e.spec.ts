import { EVENT_STORE, type EventStore } from '@im/event-store';
import firing from './fixtures/alertmanager-firing.json';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { ALL_TIMELINE_ROLES, bearer, token } from './support/tokens';

/**
 * Canceling an incident and marking it a duplicate (docs/api.md, "Escalate,
 * cancel, duplicate"), through REST and GraphQL, and where the alerts of such
 * an incident's fingerprint go.
 */

let t: TestApp;
let store: EventStore;
beforeAll(async () => {
  t = await startTestApp({ WAR_ROOM_URL: 'https://meet.example/{id}' });
  store = t.app.get<EventStore>(EVENT_STORE);
});
afterAll(() => t.close());

const AUTH = bearer(token({ sub: 'alice' }));
const WRITER = bearer(token({ sub: 'monitoring', roles: ['timeline.writer'] }));

async function declare(title = 'Checkout is down', headers = AUTH): Promise<string> {
  const res = await t.http().post('/api/v1/incidents').set(headers).send({ title, severity: 'SEV-2' }).expect(201);
  return res.body.id;
}
const move = (id: string, to: string, headers = AUTH) => t.http().post(`/api/v1/incidents/${id}/${to}`).set(headers);
const duplicate = (id: string, body: unknown, headers = AUTH) => t.http().post(`/api/v1/incidents/${id}/duplicate`).set(headers).send(body as object);
const incident = async (id: string) => (await t.http().get(`/api/v1/incidents/${id}`).set(AUTH).expect(200)).body;
const typesOf = async (id: string) => (await store.readStream(`incident-${id}`)).map((r) => r.event.type);

async function graphql(query: string, headers = AUTH) {
  const res = await t.http().post('/api/v1/graphql').set(headers).send({ query }).expect(200);
  return res.body as { data?: Record<string, any> | null; errors?: { message: string; extensions: { code: string } }[] };
}

describe('POST /api/v1/incidents/{id}/cancel', () => {
  it('cancels an open or acknowledged incident; again changes nothing; nothing moves it on', async () => {
    const open = await declare();
    expect((await move(open, 'cancel').expect(200)).body).toEqual({ status: 'canceled' });
    expect(await incident(open)).toMatchObject({ status: 'canceled' });
    expect((await move(open, 'cancel').expect(200)).body).toEqual({ status: 'canceled' });
    expect(await typesOf(open)).toEqual(['im.incident.declare', 'im.incident.cancel']);
    for (const next of ['ack', 'mitigate', 'resolve', 'close']) expectError(await move(open, next), 409, `it is canceled`);

    const acked = await declare();
    await move(acked, 'ack').expect(200);
    expect((await move(acked, 'cancel').expect(200)).body).toEqual({ status: 'canceled' });
  });

  it('refuses a mitigated or resolved incident (409) and an unknown one (404)', async () => {
    const id = await declare();
    await move(id, 'ack').expect(200);
    await move(id, 'mitigate').expect(200);
    expectError(await move(id, 'cancel'), 409, `Cannot cancel incident ${id}: it is mitigated`);
    await move(id, 'resolve').expect(200);
    expectError(await move(id, 'cancel'), 409, 'it is resolved');
    expectError(await move('INC-0000dead', 'cancel'), 404, 'Incident INC-0000dead not found');
  });
});

describe('POST /api/v1/incidents/{id}/duplicate', () => {
  it('marks an open, acknowledged or mitigated incident a duplicate of another, shown with duplicate_of', async () => {
    const original = await declare('Payments down');
    for (const path of [[], ['ack'], ['ack', 'mitigate']]) {
      const id = await declare('Payments down again');
      for (const step of path) await move(id, step).expect(200);
      expect((await duplicate(id, { of: original }).expect(200)).body).toEqual({ status: 'duplicate', duplicate_of: original });
      expect(await incident(id)).toMatchObject({ status: 'duplicate', duplicate_of: original });
    }
    expect(await incident(original)).not.toHaveProperty('duplicate_of');
  });

  it('shows on the timeline as one event with `of`, and a cancel as one without data', async () => {
    const [a, b] = [await declare(), await declare()];
    await duplicate(a, { of: b }).expect(200);
    await move(b, 'cancel').expect(200);
    const timeline = async (id: string) => (await t.http().get(`/api/v1/incidents/${id}/timeline?order=asc`).set(AUTH).expect(200)).body.events;
    expect((await timeline(a))[1]).toMatchObject({ event_type: 'im.incident.duplicate', title: 'Incident marked a duplicate', actor: 'alice', data: { of: b } });
    expect((await timeline(b))[1]).toMatchObject({ event_type: 'im.incident.cancel', title: 'Incident canceled', actor: 'alice', data: {} });
  });

  it('changes nothing marked again with the same incident; another is 409', async () => {
    const [a, b, c] = [await declare(), await declare(), await declare()];
    await duplicate(a, { of: b }).expect(200);
    expect((await duplicate(a, { of: b }).expect(200)).body).toEqual({ status: 'duplicate', duplicate_of: b });
    expect(await typesOf(a)).toEqual(['im.incident.declare', 'im.incident.duplicate']);
    expectError(await duplicate(a, { of: c }), 409, `already a duplicate of ${b}`);
    for (const next of ['ack', 'resolve', 'cancel']) expectError(await move(a, next), 409, 'it is duplicate');
  });

  it('answers 400 without `of`, 404 for an unknown incident or `of`, 409 for itself, a canceled or duplicate `of`, or a resolved incident', async () => {
    const [id, other] = [await declare(), await declare()];
    expectError(await duplicate(id, {}), 400, /^of is required/);
    expectError(await duplicate(id, { of: 7 }), 400, /^of is required/);
    expectError(await duplicate('INC-0000dead', { of: other }), 404, 'Incident INC-0000dead not found');
    expectError(await duplicate(id, { of: 'INC-0000dead' }), 404, 'Incident INC-0000dead not found');
    expectError(await duplicate(id, { of: id }), 409, 'cannot be a duplicate of itself');
    const canceled = await declare();
    await move(canceled, 'cancel').expect(200);
    expectError(await duplicate(id, { of: canceled }), 409, `a duplicate of ${canceled}: it is canceled`);
    const dup = await declare();
    await duplicate(dup, { of: other }).expect(200);
    expectError(await duplicate(id, { of: dup }), 409, 'it is duplicate');
    const resolved = await declare();
    await move(resolved, 'resolve').expect(200);
    expectError(await duplicate(resolved, { of: other }), 409, `it is resolved`);
    // A resolved or closed incident may be the one duplicated.
    await duplicate(id, { of: resolved }).expect(200);
    expect(await incident(id)).toMatchObject({ status: 'duplicate', duplicate_of: resolved });
  });

  it('answers 404 for an `of` withheld from the caller, as for an unknown one', async () => {
    const officer = bearer(token({ sub: 'officer', clearance: 'confidential' }));
    const secret = (await graphql('mutation { declareIncident(input: { title: "Merger", severity: SEV_1, visibility: "confidential" }) { id } }', officer)).data!.declareIncident.id;
    const responder = bearer(token({ sub: 'resp', roles: ALL_TIMELINE_ROLES, clearance: 'restricted', data_access: [] }));
    const mine = await declare('Mine', responder);
    expectError(await duplicate(mine, { of: secret }, responder), 404, `Incident ${secret} not found`);
    await duplicate(mine, { of: secret }, officer).expect(200);
  });
});

describe('the new statuses in lists', () => {
  it('filters by canceled and duplicate, and names them among the statuses', async () => {
    const [canceled, dup, of] = [await declare(), await declare(), await declare()];
    await move(canceled, 'cancel').expect(200);
    await duplicate(dup, { of }).expect(200);
    const ids = async (status: string) => ((await t.http().get(`/api/v1/incidents?status=${status}&limit=1000`).set(AUTH).expect(200)).body as { id: string }[]).map((i) => i.id);
    expect(await ids('canceled')).toContain(canceled);
    expect(await ids('canceled')).not.toContain(dup);
    expect(await ids('duplicate')).toEqual(expect.arrayContaining([dup]));
    expect(await ids('open')).not.toEqual(expect.arrayContaining([canceled]));
    expectError(await t.http().get('/api/v1/incidents?status=cancelled').set(AUTH), 400, 'status "cancelled" is not one of open, acknowledged, mitigated, resolved, closed, canceled, duplicate');
  });
});

describe('GraphQL cancelIncident and markDuplicate', () => {
  const declareGql = async (title: string) => (await graphql(`mutation { declareIncident(input: { title: "${title}", severity: SEV_2 }) { id } }`)).data!.declareIncident.id as string;

  it('cancels and marks duplicates, with the statuses CANCELED and DUPLICATE and the one duplicated', async () => {
    const [a, b] = [await declareGql('Search slow'), await declareGql('Search slow again')];
    expect(await graphql(`mutation { cancelIncident(incidentId: "${a}") { id status duplicateOf } }`)).toEqual({ data: { cancelIncident: { id: a, status: 'CANCELED', duplicateOf: null } } });
    const c = await declareGql('Search slow, third');
    expect(await graphql(`mutation { markDuplicate(incidentId: "${b}", of: "${c}") { id status duplicateOf } }`)).toEqual({
      data: { markDuplicate: { id: b, status: 'DUPLICATE', duplicateOf: c } },
    });
    const mine = await graphql('{ myIncidents(status: [CANCELED, DUPLICATE]) { id status } }');
    expect(mine.data!.myIncidents).toEqual(expect.arrayContaining([{ id: a, status: 'CANCELED' }, { id: b, status: 'DUPLICATE' }]));
    expect((await graphql(`{ incidentStatus(id: "${b}") { status } }`)).data).toEqual({ incidentStatus: { status: 'DUPLICATE' } });
  });

  it('answers NOT_FOUND and CONFLICT as REST answers 404 and 409, and needs timeline.writer', async () => {
    const a = await declareGql('Queue backlog');
    const codes = async (query: string, headers = AUTH) => ((await graphql(query, headers)).errors ?? []).map((e) => e.extensions.code);
    expect(await codes(`mutation { markDuplicate(incidentId: "${a}", of: "INC-0000dead") { id } }`)).toEqual(['NOT_FOUND']);
    expect(await codes(`mutation { markDuplicate(incidentId: "${a}", of: "${a}") { id } }`)).toEqual(['CONFLICT']);
    const reader = bearer(token({ sub: 'reader', roles: ['timeline.reader'] }));
    expect(await codes(`mutation { cancelIncident(incidentId: "${a}") { id } }`, reader)).toEqual(['FORBIDDEN']);
    await graphql(`mutation { cancelIncident(incidentId: "${a}") { id } }`);
    expect(await codes(`mutation { cancelIncident(incidentId: "${a}") { id } }`)).toEqual([]);
    expect(await codes(`mutation { ackIncident(id: "${a}") { id } }`)).toEqual(['CONFLICT']);
  });

  it('offers no acknowledgement and no war room on a canceled incident; notes still', async () => {
    const a = await declareGql('Cache cold');
    await graphql(`mutation { cancelIncident(incidentId: "${a}") { id } }`);
    const actions = (await graphql(`{ quickActions(incidentId: "${a}") { actionType enabled } }`)).data!.quickActions as { actionType: string; enabled: boolean }[];
    const enabled = Object.fromEntries(actions.map((action) => [action.actionType, action.enabled]));
    expect(enabled).toMatchObject({ ACK: false, JOIN_WAR_ROOM: false, ADD_NOTE: true });
  });
});

describe('alerts of a canceled or duplicate incident (Alertmanager)', () => {
  /** One Alertmanager alert of `fingerprint`, firing since `startsAt` or resolved. */
  const alert = (fingerprint: string, startsAt: string, status: 'firing' | 'resolved' = 'firing') => ({
    ...firing,
    status,
    alerts: [{ ...firing.alerts[0], fingerprint, startsAt, status, ...(status === 'resolved' ? { endsAt: '2026-11-23T16:00:00.000Z' } : {}) }],
  });
  const send = async (body: unknown) => {
    const res = await t.http().post('/api/v1/integrations/alertmanager').set(WRITER).send(body as object).expect(200);
    expect(res.body.results).toEqual([expect.objectContaining({ status: 201 })]);
    return res.body.results[0].incident_id as string;
  };

  it('sends a fingerprint whose incident is a duplicate to the incident it duplicates, link after link, its resolution too', async () => {
    const opened = await send(alert('dup-fp-1', '2026-11-23T14:00:00.000Z'));
    const [original, last] = [await declare('Payments down'), await declare('Payments outage')];
    await duplicate(opened, { of: original }).expect(200);
    expect(await send(alert('dup-fp-1', '2026-11-23T15:00:00.000Z'))).toBe(original);
    expect(await incident(original)).toMatchObject({ status: 'open', alerts_firing: 1 });
    await duplicate(original, { of: last }).expect(200);
    expect(await send(alert('dup-fp-1', '2026-11-23T15:30:00.000Z'))).toBe(last);
    expect(await send(alert('dup-fp-1', '2026-11-23T15:30:00.000Z', 'resolved'))).toBe(last);
    expect(await incident(last)).toMatchObject({ status: 'open', alerts_firing: 0 });
    // The incident it duplicates resolved: the next firing opens a new incident, as for any resolved one.
    await move(last, 'resolve').expect(200);
    const fresh = await send(alert('dup-fp-1', '2026-11-23T17:00:00.000Z'));
    expect([opened, original, last]).not.toContain(fresh);
  });

  it('opens a new incident for a fingerprint whose incident was canceled; its resolution is recorded on the canceled one', async () => {
    const opened = await send(alert('cancel-fp-1', '2026-11-23T14:00:00.000Z'));
    await move(opened, 'cancel').expect(200);
    expect(await send(alert('cancel-fp-1', '2026-11-23T14:00:00.000Z', 'resolved'))).toBe(opened);
    expect(await incident(opened)).toMatchObject({ status: 'canceled', alerts_firing: 0 });
    const again = await send(alert('cancel-fp-1', '2026-11-23T15:00:00.000Z'));
    expect(again).not.toBe(opened);
    expect(await incident(again)).toMatchObject({ status: 'open', alerts_firing: 1 });
  });
});
