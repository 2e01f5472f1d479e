import { ApolloClient, gql as apolloGql, HttpLink, InMemoryCache } from '@apollo/client';
import { cacheExchange, Client, fetchExchange, gql } from '@urql/core';
import { requireConsoleBuild } from './support/console-build';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ WAR_ROOM_URL: 'https://meet.example.com/{id}' });
});
afterAll(() => t.close());

// Responders: mutations need timeline.writer.
const as = (sub: string, claims: Record<string, unknown> = {}) =>
  bearer(token({ sub, roles: ['timeline.reader', 'timeline.writer'], clearance: 'internal', data_access: [], ...claims }));
const ALICE = as('alice');
const BOB = as('bob');

async function graphql(query: string, variables?: object, headers: Record<string, string> = ALICE) {
  const res = await t.http().post('/api/v1/graphql').set(headers).send({ query, variables });
  return { status: res.status, body: res.body as { data?: Record<string, any> | null; errors?: { message: string; extensions: { code: string } }[] } };
}

/** The app's URL, listening once for every real-client test (through Nest, so closing the app closes the listener too). */
let url: string | undefined;
async function listening(): Promise<string> {
  if (!url) {
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}/api/v1/graphql`;
  }
  return url;
}

const codes = (body: { errors?: { extensions: { code: string } }[] }) => (body.errors ?? []).map((e) => e.extensions.code);

const DECLARE = `mutation Declare($input: DeclareIncidentInput!) {
  declareIncident(input: $input) { id title description severity status services labels createdAt updatedAt }
}`;

async function declare(input: object = {}, headers = ALICE): Promise<string> {
  const res = await graphql(DECLARE, { input: { title: 'Checkout is down', severity: 'SEV_1', ...input } }, headers);
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.declareIncident.id;
}

describe('authentication', () => {
  it.each([
    ['no token', {}],
    ['an expired token', bearer(token({ sub: 'alice' }, { expiresIn: -5 }))],
    ['a forged token', bearer(token({ sub: 'alice' }, {}, 'not-the-secret-not-the-secret-not-the-secret'))],
  ])('answers HTTP 401 UNAUTHENTICATED to %s, in every mode', async (_, headers) => {
    const res = await graphql('{ myIncidents { id } }', undefined, headers as Record<string, string>);
    expect(res.status).toBe(401);
    expect(codes(res.body)).toEqual(['UNAUTHENTICATED']);
    expect(res.body.data).toBeUndefined();
  });
});

describe('declareIncident, myIncidents and the REST view', () => {
  it('declares with services, labels and visibility, makes the caller IC, and REST shows the same incident', async () => {
    const cleared = as('alice', { clearance: 'restricted' });
    const res = await graphql(DECLARE, {
      input: { title: 'Payments failing', severity: 'SEV_2', description: '5xx at 30%', services: ['payments'], labels: { team: 'core' }, visibility: 'restricted' },
    }, cleared);
    const incident = res.body.data!.declareIncident;
    expect(incident).toEqual({
      id: expect.stringMatching(/^INC-[0-9a-f]{8}$/),
      title: 'Payments failing',
      description: '5xx at 30%',
      severity: 'SEV_2',
      status: 'OPEN',
      services: ['payments'],
      labels: { team: 'core' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const rest = (await t.http().get(`/api/v1/incidents/${incident.id}`).set(cleared).expect(200)).body;
    expect(rest).toMatchObject({ id: incident.id, title: 'Payments failing', severity: 'SEV-2', status: 'open', created_at: incident.createdAt });

    const view = await graphql(`{ incidentStatus(id: "${incident.id}") { assignedTo { id role } } }`, undefined, cleared);
    expect(view.body.data!.incidentStatus.assignedTo).toEqual({ id: 'alice', role: 'IC' });
    const stored = await t.http().get(`/api/v1/incidents/${incident.id}/timeline/export`).set(bearer(token({ roles: ['timeline.exporter'] })));
    expect(stored.body[0]).toMatchObject({ type: 'im.incident.declare', 'im.visibility': 'restricted', 'im.actor': 'alice' });
  });

  it("lists the caller's incidents newest first, filtered by status and severity, limited", async () => {
    const carol = as('carol');
    const a = await declare({ title: 'A', severity: 'SEV_1' }, carol);
    const b = await declare({ title: 'B', severity: 'SEV_3' }, carol);
    const c = await declare({ title: 'C', severity: 'SEV_1' }, carol);
    await t.http().post(`/api/v1/incidents/${c}/resolve`).expect(200);
    await declare({ title: 'not carol’s' }, BOB);
    const list = async (args: string) => (await graphql(`{ myIncidents${args} { id title severity status lastUpdate } }`, undefined, carol)).body.data!.myIncidents;
    expect((await list('')).map((i: { id: string }) => i.id)).toEqual([c, b, a]);
    expect((await list('(status: [OPEN])')).map((i: { title: string }) => i.title)).toEqual(['B', 'A']);
    expect((await list('(severity: [SEV_1], status: [RESOLVED, OPEN])')).map((i: { title: string }) => i.title)).toEqual(['C', 'A']);
    expect((await list('(status: [DUPLICATE, CANCELED])'))).toEqual([]);
    expect(await list('(limit: 1)')).toHaveLength(1);
    expect((await list('(limit: 1)'))[0]).toEqual({ id: c, title: 'C', severity: 'SEV_1', status: 'RESOLVED', lastUpdate: expect.any(String) });
  });

  it('defaults myIncidents to 20, also for an explicit null, and refuses a limit out of range', async () => {
    const dave = as('dave');
    for (let i = 0; i < 22; i++) await declare({ title: `storm ${i}` }, dave);
    expect((await graphql('{ myIncidents { id } }', undefined, dave)).body.data!.myIncidents).toHaveLength(20);
    expect((await graphql('{ myIncidents(limit: null) { id } }', undefined, dave)).body.data!.myIncidents).toHaveLength(20);
    const variable = await graphql('query Mine($limit: Int) { myIncidents(limit: $limit) { id } }', { limit: null }, dave);
    expect(variable.body.errors).toBeUndefined();
    expect(variable.body.data!.myIncidents).toHaveLength(20);
    const res = await graphql('{ myIncidents(limit: 0) { id } }', undefined, dave);
    expect(codes(res.body)).toEqual(['BAD_USER_INPUT']);
  });

  it.each([
    ['an empty title', { title: ' ' }],
    ['an unknown visibility', { visibility: 'top-secret' }],
    ['labels that are not flat text', { labels: { nested: { a: 1 } } }],
  ])('refuses %s with BAD_USER_INPUT and stores nothing', async (_, input) => {
    const before = (await t.http().get('/api/v1/incidents?limit=1000')).body.length;
    const res = await graphql(DECLARE, { input: { title: 'x', severity: 'SEV_1', ...input } });
    expect(codes(res.body)).toEqual(['BAD_USER_INPUT']);
    expect((await t.http().get('/api/v1/incidents?limit=1000')).body.length).toBe(before);
  });

  it('refuses an unknown severity in variables with BAD_USER_INPUT', async () => {
    const res = await graphql(DECLARE, { input: { title: 'x', severity: 'SEV-1' } });
    expect(res.status).toBe(400);
    expect(codes(res.body)).toEqual(['BAD_USER_INPUT']);
  });
});

describe('ackIncident, addNote, assignRole', () => {
  it('acknowledges following the lifecycle table: a repeat is no change, a forbidden move is CONFLICT', async () => {
    const id = await declare();
    const ack = `mutation { ackIncident(id: "${id}") { id status updatedAt } }`;
    expect((await graphql(ack)).body.data!.ackIncident.status).toBe('ACKNOWLEDGED');
    expect((await graphql(ack)).body.data!.ackIncident.status).toBe('ACKNOWLEDGED');
    expect((await t.http().get(`/api/v1/incidents/${id}`)).body.status).toBe('acknowledged');
    await t.http().post(`/api/v1/incidents/${id}/resolve`).expect(200);
    const refused = await graphql(ack);
    expect(codes(refused.body)).toEqual(['CONFLICT']);
    expect(refused.body.errors![0].message).toMatch(/it is resolved/);
    expect(refused.body.data).toBeNull();
  });

  it('answers NOT_FOUND for an unknown incident on every operation', async () => {
    const missing = 'INC-00000000';
    for (const op of [
      `mutation { ackIncident(id: "${missing}") { id } }`,
      `mutation { addNote(incidentId: "${missing}", content: "x") { id } }`,
      `mutation { assignRole(incidentId: "${missing}", role: OPS, userId: "bob") { id } }`,
      `{ incidentStatus(id: "${missing}") { id } }`,
      `{ quickActions(incidentId: "${missing}") { id } }`,
    ]) {
      const res = await graphql(op);
      expect(codes(res.body)).toEqual(['NOT_FOUND']);
      expect(res.body.errors![0].message).toBe(`Incident ${missing} not found`);
    }
  });

  it('adds a note that shows on the REST timeline as im.incident.note', async () => {
    const id = await declare();
    const note = (await graphql(`mutation { addNote(incidentId: "${id}", content: "Rolled back v2.3") { id content createdAt } }`)).body.data!.addNote;
    expect(note).toEqual({ id: expect.any(String), content: 'Rolled back v2.3', createdAt: expect.any(String) });
    const timeline = (await t.http().get(`/api/v1/incidents/${id}/timeline`).set(ALICE).expect(200)).body.events;
    expect(timeline[0]).toMatchObject({ id: note.id, event_type: 'im.incident.note', actor: 'alice', content: 'Rolled back v2.3' });
    expect(codes((await graphql(`mutation { addNote(incidentId: "${id}", content: "") { id } }`)).body)).toEqual(['BAD_USER_INPUT']);
  });

  it('lets only the incident commander assign roles (FORBIDDEN otherwise); the assignee then sees it in myIncidents', async () => {
    const id = await declare();
    const assign = (role: string, user: string, headers = ALICE) =>
      graphql(`mutation { assignRole(incidentId: "${id}", role: ${role}, userId: "${user}") { id status } }`, undefined, headers);
    expect((await assign('OPS', 'erin')).body.data!.assignRole.id).toBe(id);
    const refused = await assign('COMMS', 'bob', BOB);
    expect(codes(refused.body)).toEqual(['FORBIDDEN']);
    const erinList = (await graphql('{ myIncidents { id } }', undefined, as('erin'))).body.data!.myIncidents;
    expect(erinList.map((i: { id: string }) => i.id)).toContain(id);
    expect(codes((await assign('CEO', 'bob')).body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });
});

describe('incidentStatus and quickActions', () => {
  it('gives the mobile view with the IC, a war room link and the newest events', async () => {
    const id = await declare({ title: 'Login errors' });
    for (let i = 1; i <= 6; i++) await graphql(`mutation { addNote(incidentId: "${id}", content: "update ${i}") { id } }`);
    const view = (await graphql(`{ incidentStatus(id: "${id}") { id title severity status assignedTo { id role } lastUpdate warRoomLink quickTimeline { id type summary time } } }`)).body.data!.incidentStatus;
    expect(view).toMatchObject({ id, title: 'Login errors', severity: 'SEV_1', status: 'OPEN', assignedTo: { id: 'alice', role: 'IC' }, warRoomLink: `https://meet.example.com/${id}` });
    expect(view.quickTimeline.map((e: { summary: string }) => e.summary)).toEqual(['update 6', 'update 5', 'update 4', 'update 3', 'update 2']);
  });

  it('shows timeline data only as the policy allows', async () => {
    const id = await declare();
    await t.http().post('/api/v1/timeline/events').set({ ...bearer(token({ roles: ['timeline.writer'] })), 'content-type': 'application/cloudevents+json' }).send(
      JSON.stringify({ specversion: '1.0', id: `pii-${id}`, source: 'im://crm', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${id}`, 'im.data_class': ['pii'], data: { content: 'Customer Jane Roe, +1 555 0100' } }),
    );
    const withoutPii = (await graphql(`{ incidentStatus(id: "${id}") { quickTimeline { summary } } }`)).body.data!.incidentStatus;
    expect(withoutPii.quickTimeline[0].summary).toBe('[REDACTED]');
    const withPii = (await graphql(`{ incidentStatus(id: "${id}") { quickTimeline { summary } } }`, undefined, as('alice', { data_access: ['pii'] }))).body.data!.incidentStatus;
    expect(withPii.quickTimeline[0].summary).toBe('Customer Jane Roe, +1 555 0100');
  });

  it('enables actions by state and role', async () => {
    const id = await declare();
    const actions = async (headers = ALICE) =>
      Object.fromEntries(
        (await graphql(`{ quickActions(incidentId: "${id}") { id label icon actionType enabled confirmText } }`, undefined, headers)).body.data!.quickActions.map(
          (a: { actionType: string; enabled: boolean }) => [a.actionType, a.enabled],
        ),
      );
    // ESCALATE needs an escalation policy (test/paging.e2e.spec.ts): this incident belongs to no service.
    expect(await actions()).toEqual({ ACK: true, ESCALATE: false, ADD_NOTE: true, CHANGE_SEVERITY: true, ASSIGN_ROLE: true, JOIN_WAR_ROOM: true });
    expect((await actions(BOB)).ASSIGN_ROLE).toBe(false);
    await graphql(`mutation { ackIncident(id: "${id}") { id } }`);
    expect((await actions()).ACK).toBe(false);
    await t.http().post(`/api/v1/incidents/${id}/resolve`).expect(200);
    await t.http().post(`/api/v1/incidents/${id}/close`).expect(200);
    expect(await actions()).toEqual({ ACK: false, ESCALATE: false, ADD_NOTE: false, CHANGE_SEVERITY: false, ASSIGN_ROLE: false, JOIN_WAR_ROOM: false });
  });
});

describe('changeSeverity and im.incident.severity', () => {
  const WRITER = { ...bearer(token({ roles: ['timeline.writer'] })), 'content-type': 'application/cloudevents+json' };
  const change = (id: string, severity: string, headers = ALICE) =>
    graphql(`mutation { changeSeverity(incidentId: "${id}", severity: ${severity}) { id severity status } }`, undefined, headers);
  const severityEvents = async (id: string) =>
    (await t.http().get(`/api/v1/incidents/${id}/timeline?type=im.incident.severity`).set(ALICE)).body.events.map((e: { data: { severity: string } }) => e.data.severity);

  it('changes the severity: the mutation answers it, REST and the mobile view show it, the timeline holds the event; the same severity again adds none', async () => {
    const id = await declare({ severity: 'SEV_3' });
    expect((await change(id, 'SEV_1')).body.data!.changeSeverity).toEqual({ id, severity: 'SEV_1', status: 'OPEN' });
    expect((await t.http().get(`/api/v1/incidents/${id}`)).body.severity).toBe('SEV-1');
    expect((await graphql(`{ incidentStatus(id: "${id}") { severity } }`)).body.data!.incidentStatus.severity).toBe('SEV_1');
    expect((await change(id, 'SEV_1')).body.errors).toBeUndefined();
    expect(await severityEvents(id)).toEqual(['SEV-1']);
  });

  it('follows im.incident.severity appended through the timeline, and refuses one that names no severity (400)', async () => {
    const id = await declare({ severity: 'SEV_2' });
    const event = (severity: unknown, n: number) => JSON.stringify({ specversion: '1.0', id: `sev-${n}-${id}`, source: 'im://pager', type: 'im.incident.severity', time: new Date().toISOString(), subject: `incident/${id}`, data: { severity } });
    await t.http().post('/api/v1/timeline/events').set(WRITER).send(event('SEV-4', 1)).expect(201);
    expect((await t.http().get(`/api/v1/incidents/${id}`)).body.severity).toBe('SEV-4');
    const refused = await t.http().post('/api/v1/timeline/events').set(WRITER).send(event('critical', 2));
    expect(refused.body).toEqual({ error: expect.stringMatching(/severity must be one of/), status: 400 });
    expect((await graphql('{ myIncidents(severity: [SEV_4]) { id } }')).body.data!.myIncidents.map((i: { id: string }) => i.id)).toContain(id);
  });

  it('offers CHANGE_SEVERITY until the incident is closed, then refuses the mutation (CONFLICT) as the action shows', async () => {
    const id = await declare();
    const enabled = async (headers = ALICE) =>
      (await graphql(`{ quickActions(incidentId: "${id}") { actionType enabled } }`, undefined, headers)).body.data!.quickActions.find((a: { actionType: string }) => a.actionType === 'CHANGE_SEVERITY').enabled;
    expect(await enabled()).toBe(true);
    expect(await enabled(as('reader', { roles: ['timeline.reader'] }))).toBe(false);
    await t.http().post(`/api/v1/incidents/${id}/resolve`).expect(200);
    await t.http().post(`/api/v1/incidents/${id}/close`).expect(200);
    expect(await enabled()).toBe(false);
    const refused = await change(id, 'SEV_4');
    expect(codes(refused.body)).toEqual(['CONFLICT']);
    expect(await severityEvents(id)).toEqual([]);
  });
});

describe('authorisation', () => {
  const roleless = as('mallory', { roles: [] });
  const decl = (headers = ALICE) => declare({ title: 'Authorised' }, headers);
  const assign = (id: string, role: string, user: string, headers: Record<string, string>) =>
    graphql(`mutation { assignRole(incidentId: "${id}", role: ${role}, userId: "${user}") { id } }`, undefined, headers);

  it('refuses every mutation but the caller\'s own settings to a token without timeline.writer (FORBIDDEN, nothing stored)', async () => {
    const id = (await t.http().post('/api/v1/incidents').send({ title: 'No IC yet', severity: 'SEV-2' }).expect(201)).body.id;
    const before = (await t.http().get(`/api/v1/incidents/${id}/timeline`).set(ALICE)).body.events.length;
    for (const op of [
      `mutation { declareIncident(input: { title: "x", severity: SEV_1 }) { id } }`,
      `mutation { ackIncident(id: "${id}") { id } }`,
      `mutation { addNote(incidentId: "${id}", content: "x") { id } }`,
      `mutation { assignRole(incidentId: "${id}", role: IC, userId: "mallory") { id } }`,
      `mutation { changeSeverity(incidentId: "${id}", severity: SEV_1) { id } }`,
    ]) {
      const res = await graphql(op, undefined, roleless);
      expect([op, codes(res.body)]).toEqual([op, ['FORBIDDEN']]);
      expect(res.body.errors![0].message).toMatch(/timeline\.writer/);
    }
    expect((await t.http().get(`/api/v1/incidents/${id}`)).body.status).toBe('open');
    expect((await t.http().get(`/api/v1/incidents/${id}/timeline`).set(ALICE)).body.events).toHaveLength(before);
    expect((await graphql('{ myIncidents { id } }', undefined, roleless)).body.data!.myIncidents).toEqual([]);
    expect((await graphql(`{ incidentStatus(id: "${id}") { status } }`, undefined, roleless)).body.data!.incidentStatus).toEqual({ status: 'OPEN' });
    const settings = await graphql('mutation { updateNotificationSettings(input: { pushEnabled: false }) { pushEnabled } }', undefined, roleless);
    expect(settings.body.data!.updateNotificationSettings).toEqual({ pushEnabled: false });
    expect((await graphql('{ notificationSettings { pushEnabled } }', undefined, roleless)).body.data!.notificationSettings).toEqual({ pushEnabled: false });
    const actions = (await graphql(`{ quickActions(incidentId: "${id}") { actionType enabled } }`, undefined, roleless)).body.data!.quickActions;
    expect(actions.filter((a: { enabled: boolean }) => a.enabled).map((a: { actionType: string }) => a.actionType)).toEqual(['JOIN_WAR_ROOM']);
  });

  it('lets only the commander or an incidents.admin replace the commander', async () => {
    const id = (await t.http().post('/api/v1/incidents').send({ title: 'Declared over REST', severity: 'SEV-2' }).expect(201)).body.id;
    const mallory = as('mallory');
    expect((await assign(id, 'IC', 'mallory', mallory)).body.errors).toBeUndefined();
    expect(codes((await assign(id, 'IC', 'alice', ALICE)).body)).toEqual(['FORBIDDEN']);
    const admin = as('root', { roles: ['timeline.writer', 'incidents.admin'] });
    const adminActions = (await graphql(`{ quickActions(incidentId: "${id}") { actionType enabled } }`, undefined, admin)).body.data!.quickActions;
    expect(adminActions.find((a: { actionType: string }) => a.actionType === 'ASSIGN_ROLE').enabled).toBe(true);
    expect((await assign(id, 'IC', 'alice', admin)).body.errors).toBeUndefined();
    expect((await graphql(`{ incidentStatus(id: "${id}") { assignedTo { id role } } }`)).body.data!.incidentStatus.assignedTo).toEqual({ id: 'alice', role: 'IC' });
    expect(codes((await assign(id, 'IC', 'mallory', mallory)).body)).toEqual(['FORBIDDEN']);
    expect((await assign(id, 'OPS', 'bob', ALICE)).body.errors).toBeUndefined();
  });

  it('refuses addNote and assignRole on a closed incident (CONFLICT), exactly as quickActions shows them disabled', async () => {
    const id = await decl();
    await t.http().post(`/api/v1/incidents/${id}/resolve`).expect(200);
    const resolvedNote = await graphql(`mutation { addNote(incidentId: "${id}", content: "post-mortem link") { id } }`);
    expect(resolvedNote.body.errors).toBeUndefined();
    await t.http().post(`/api/v1/incidents/${id}/close`).expect(200);
    const admin = as('root', { roles: ['timeline.writer', 'incidents.admin'] });
    for (const headers of [ALICE, admin]) {
      const actions = (await graphql(`{ quickActions(incidentId: "${id}") { actionType enabled } }`, undefined, headers)).body.data!.quickActions;
      expect(actions.filter((a: { enabled: boolean }) => a.enabled)).toEqual([]);
      const note = await graphql(`mutation { addNote(incidentId: "${id}", content: "too late") { id } }`, undefined, headers);
      expect(codes(note.body)).toEqual(['CONFLICT']);
      expect(note.body.errors![0].message).toMatch(/it is closed/);
      expect(codes((await assign(id, 'OPS', 'bob', headers)).body)).toEqual(['CONFLICT']);
    }
    // A note recorded through the timeline follows the same rule.
    const recorded = await t.http().post('/api/v1/timeline/events').set({ ...bearer(token({ roles: ['timeline.writer'] })), 'content-type': 'application/cloudevents+json' }).send(
      JSON.stringify({ specversion: '1.0', id: `late-${id}`, source: 'im://chat', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${id}`, data: { content: 'too late' } }),
    );
    expect(recorded.body).toEqual({ error: expect.stringMatching(/it is closed/), status: 409 });
    const events = (await t.http().get(`/api/v1/incidents/${id}/timeline?type=im.incident.note`).set(ALICE)).body.events;
    expect(events.map((e: { content: string }) => e.content)).toEqual(['post-mortem link']);
  });
});

describe('notification settings', () => {
  const UPDATE = `mutation Update($input: NotificationPreferencesInput!) {
    updateNotificationSettings(input: $input) { userId pushEnabled severityFilter quietHours { start end timeZone } channels }
  }`;
  const frank = as('frank');

  it('shows the defaults until saved, then keeps each change and merges partial updates', async () => {
    expect((await graphql('{ notificationSettings { id userId pushEnabled severityFilter quietHours { start } channels } }', undefined, frank)).body.data!.notificationSettings).toEqual({
      id: 'frank',
      userId: 'frank',
      pushEnabled: true,
      severityFilter: ['SEV_1', 'SEV_2', 'SEV_3', 'SEV_4'],
      quietHours: null,
      channels: ['push', 'email'],
    });
    const saved = await graphql(UPDATE, { input: { quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' }, channels: ['push'] } }, frank);
    expect(saved.body.data!.updateNotificationSettings).toEqual({
      userId: 'frank',
      pushEnabled: true,
      severityFilter: ['SEV_1', 'SEV_2', 'SEV_3', 'SEV_4'],
      quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' },
      channels: ['push'],
    });
    await graphql(UPDATE, { input: { severityFilter: ['SEV_2', 'SEV_1'], pushEnabled: false } }, frank);
    const read = (await graphql('{ notificationSettings { pushEnabled severityFilter quietHours { start } channels } }', undefined, frank)).body.data!.notificationSettings;
    expect(read).toEqual({ pushEnabled: false, severityFilter: ['SEV_1', 'SEV_2'], quietHours: { start: '22:00' }, channels: ['push'] });
    await graphql(UPDATE, { input: { quietHours: null } }, frank);
    expect((await graphql('{ notificationSettings { quietHours { start } } }', undefined, frank)).body.data!.notificationSettings.quietHours).toBeNull();
  });

  it.each([
    [{ quietHours: { start: '25:00', end: '07:00', timeZone: 'UTC' } }, /HH:MM/],
    [{ quietHours: { start: '22:00', end: '07:00', timeZone: 'Mars/Olympus' } }, /time zone/],
    [{ channels: ['sms'] }, /channels/],
  ])('refuses %j with BAD_USER_INPUT', async (input, message) => {
    const res = await graphql(UPDATE, { input }, as('grace'));
    expect(codes(res.body)).toEqual(['BAD_USER_INPUT']);
    expect(res.body.errors![0].message).toMatch(message);
  });
});

describe('limits and transport', () => {
  it('refuses a query over complexity 1000 with QUERY_TOO_COMPLEX before running it', async () => {
    const fields = 'id title severity status lastUpdate';
    const res = await graphql(`{ a: myIncidents(limit: 100) { ${fields} } b: myIncidents(limit: 100) { ${fields} } c: myIncidents(limit: 100) { ${fields} } }`);
    expect(codes(res.body)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(res.body.errors![0].message).toMatch(/over the limit of 1000/);
  });

  it('answers GET ?query= for queries', async () => {
    const res = await t.http().get(`/api/v1/graphql?query=${encodeURIComponent('{ myIncidents(limit: 1) { id } }')}`).set(ALICE);
    expect(res.status).toBe(200);
    expect(res.body.data.myIncidents).toHaveLength(1);
  });

  it('never sends a stack trace', async () => {
    const res = await graphql('{ incidentStatus(id: "INC-00000000") { id } }');
    expect(JSON.stringify(res.body)).not.toMatch(/stacktrace|\n\s+at /);
  });

  it('serves the playground in development mode, from this origin only (a view of the console: no CDN, so it works offline)', async () => {
    requireConsoleBuild();
    const res = await t.http().get('/graphql/playground').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toMatch(/<script type="module" crossorigin src="\/assets\//);
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(res.headers['content-security-policy']).toContain("script-src 'self';");
    expect(res.headers['content-security-policy']).not.toMatch(/https?:/);
  });
});

describe('production mode', () => {
  it('serves no playground', async () => {
    const prod = await startTestApp({ APP_ENV: 'production', JWT_SECRET: 'p'.repeat(40) });
    try {
      const res = await prod.http().get('/graphql/playground');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String), status: 404 });
    } finally {
      await prod.close();
    }
  });
});

describe('a mobile app with a real GraphQL client (urql)', () => {
  it('runs the on-call flow: declare, see it, ack, note, assign, quiet hours', async () => {
    const client = new Client({
      url: await listening(),
      exchanges: [cacheExchange, fetchExchange],
      fetchOptions: () => ({ headers: { authorization: ALICE.authorization } }),
      requestPolicy: 'network-only',
    });
    const declared = await client.mutation(gql`mutation Declare($input: DeclareIncidentInput!) { declareIncident(input: $input) { id status } }`, { input: { title: 'Phone flow', severity: 'SEV_2' } }).toPromise();
    expect(declared.error).toBeUndefined();
    const id = declared.data.declareIncident.id;

    const mine = await client.query(gql`query Mine($limit: Int) { myIncidents(limit: $limit) { id title status } }`, { limit: 50 }).toPromise();
    expect(mine.data.myIncidents.map((i: { id: string }) => i.id)).toContain(id);

    const acked = await client.mutation(gql`mutation Ack($id: ID!) { ackIncident(id: $id) { id status } }`, { id }).toPromise();
    expect(acked.data.ackIncident.status).toBe('ACKNOWLEDGED');
    const noted = await client.mutation(gql`mutation Note($id: ID!, $text: String!) { addNote(incidentId: $id, content: $text) { id content } }`, { id, text: 'On it' }).toPromise();
    expect(noted.data.addNote.content).toBe('On it');
    const assigned = await client.mutation(gql`mutation Assign($id: ID!, $role: RACIRole!, $user: ID!) { assignRole(incidentId: $id, role: $role, userId: $user) { id } }`, { id, role: 'COMMS', user: 'heidi' }).toPromise();
    expect(assigned.error).toBeUndefined();
    const quiet = await client.mutation(gql`mutation Quiet($input: NotificationPreferencesInput!) { updateNotificationSettings(input: $input) { quietHours { start end timeZone } } }`, { input: { quietHours: { start: '23:00', end: '06:30', timeZone: 'America/New_York' } } }).toPromise();
    expect(quiet.data.updateNotificationSettings.quietHours).toMatchObject({ start: '23:00', end: '06:30', timeZone: 'America/New_York' });

    const status = await client.query(gql`query Status($id: ID!) { incidentStatus(id: $id) { status quickTimeline { type } } quickActions(incidentId: $id) { actionType enabled } }`, { id }).toPromise();
    expect(status.data.incidentStatus.status).toBe('ACKNOWLEDGED');
    expect(status.data.incidentStatus.quickTimeline.map((e: { type: string }) => e.type)).toContain('im.incident.note');

    const missing = await client.query(gql`query Status($id: ID!) { incidentStatus(id: $id) { id } }`, { id: 'INC-00000000' }).toPromise();
    expect(missing.error?.graphQLErrors[0].extensions.code).toBe('NOT_FOUND');

    const rest = (await t.http().get(`/api/v1/incidents/${id}`)).body;
    expect(rest.status).toBe('acknowledged');
  });
});

describe('a web app with Apollo Client (InMemoryCache)', () => {
  type Settings = { notificationSettings: Record<string, unknown> | null };
  it('sees its cached notificationSettings change after updateNotificationSettings', async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: await listening(), headers: as('ivan') }),
      cache: new InMemoryCache(),
    });
    const SETTINGS = apolloGql`query Settings { notificationSettings { id pushEnabled channels quietHours { start end timeZone } } }`;
    const before = await client.query<Settings>({ query: SETTINGS });
    expect(before.data?.notificationSettings).toMatchObject({ pushEnabled: true, channels: ['push', 'email'], quietHours: null });

    const saved = await client.mutate({
      mutation: apolloGql`mutation Mute($input: NotificationPreferencesInput!) { updateNotificationSettings(input: $input) { id pushEnabled channels quietHours { start end timeZone } } }`,
      variables: { input: { pushEnabled: false, channels: ['email'], quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' } } },
    });
    expect(saved.error).toBeUndefined();

    // The query is answered from the cache (no request), which the mutation's answer updated by id.
    const expected = { pushEnabled: false, channels: ['email'], quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' } };
    expect(client.readQuery<Settings>({ query: SETTINGS })?.notificationSettings).toMatchObject(expected);
    expect((await client.query<Settings>({ query: SETTINGS, fetchPolicy: 'cache-only' })).data?.notificationSettings).toMatchObject(expected);
    client.stop();
  });
});

describe('schema (docs/api.md names and nullability)', () => {
  it('matches the contract for every type, input, query and mutation', async () => {
    const { GraphQLSchemaHost } = await import('@nestjs/graphql');
    const { printType } = await import('graphql');
    const schema = t.app.get(GraphQLSchemaHost).schema;
    const fields = (typeName: string) => {
      const type = schema.getType(typeName) as unknown as { getFields(): Record<string, { type: unknown; args?: { name: string; type: unknown; defaultValue?: unknown }[] }> };
      return Object.fromEntries(Object.entries(type.getFields()).map(([name, f]) => [name, String(f.type)]));
    };
    expect(printType(schema.getType('Severity')!)).toContain('SEV_1\n  SEV_2\n  SEV_3\n  SEV_4');
    expect(Object.keys((schema.getType('Status') as any).getValues().reduce((o: any, v: any) => ({ ...o, [v.name]: 1 }), {}))).toEqual(['OPEN', 'ACKNOWLEDGED', 'MITIGATED', 'RESOLVED', 'CLOSED', 'DUPLICATE', 'CANCELED']);
    expect((schema.getType('RACIRole') as any).getValues().map((v: any) => v.name)).toEqual(['IC', 'OPS', 'COMMS', 'SECURITY', 'PRIVACY']);
    expect((schema.getType('ActionType') as any).getValues().map((v: any) => v.name)).toEqual(['ACK', 'ESCALATE', 'JOIN_WAR_ROOM', 'ADD_NOTE', 'CHANGE_SEVERITY', 'ASSIGN_ROLE']);
    expect(fields('IncidentSummary')).toEqual({ id: 'ID!', title: 'String!', severity: 'Severity!', status: 'Status!', lastUpdate: 'DateTime!' });
    expect(fields('IncidentMobileView')).toEqual({
      id: 'ID!', title: 'String!', severity: 'Severity!', status: 'Status!', assignedTo: 'UserSummary', lastUpdate: 'String!', warRoomLink: 'String', quickTimeline: '[TimelineEventSummary!]!', alertsFiring: 'Int!', responders: '[UserSummary!]!',
      escalation: 'EscalationState', service: 'Service',
    });
    expect(fields('EscalationState')).toEqual({ policyName: 'String', step: 'Int!', round: 'Int!', nextEscalationAt: 'DateTime', exhausted: 'Boolean!', paged: '[ID!]!' });
    expect(fields('Incident')).toMatchObject({ service: 'Service' });
    // responders is an addition (the console's role view): everyone holding a RACI role on the incident.
    expect(fields('MobileAction')).toEqual({ id: 'ID!', label: 'String!', icon: 'String!', actionType: 'ActionType!', enabled: 'Boolean!', confirmText: 'String' });
    // id is an addition to the contract's fields (adding a field breaks no query), for client caches.
    expect(fields('NotificationPreferences')).toEqual({ id: 'ID!', userId: 'ID!', pushEnabled: 'Boolean!', severityFilter: '[Severity!]!', quietHours: 'QuietHours', channels: '[String!]!' });
    expect(fields('Incident')).toMatchObject({ id: 'ID!', title: 'String!', severity: 'Severity!', status: 'Status!', createdAt: 'DateTime!', updatedAt: 'DateTime!' });
    expect(fields('Note')).toMatchObject({ id: 'ID!', content: 'String!', createdAt: 'DateTime!' });
    expect(fields('TimelineEventSummary')).toMatchObject({ id: 'ID!', type: 'String!', summary: 'String!', time: 'DateTime!' });
    expect(fields('DeclareIncidentInput')).toMatchObject({ title: 'String!', severity: 'Severity!', services: '[String!]', labels: 'JSON', visibility: 'String' });
    expect(fields('NotificationPreferencesInput')).toEqual({ pushEnabled: 'Boolean', severityFilter: '[Severity!]', quietHours: 'QuietHoursInput', channels: '[String!]' });

    const signature = (root: 'Query' | 'Mutation', name: string) => {
      const field = (schema.getType(root) as any).getFields()[name];
      return `${name}(${field.args.map((a: any) => `${a.name}: ${a.type}${a.defaultValue !== undefined ? ` = ${a.defaultValue}` : ''}`).join(', ')}): ${field.type}`;
    };
    expect(signature('Query', 'myIncidents')).toBe('myIncidents(limit: Int = 20, status: [Status!], severity: [Severity!]): [IncidentSummary!]!');
    expect(signature('Query', 'incidentStatus')).toBe('incidentStatus(id: ID!): IncidentMobileView');
    expect(signature('Query', 'quickActions')).toBe('quickActions(incidentId: ID!): [MobileAction!]!');
    expect(signature('Query', 'notificationSettings')).toBe('notificationSettings(): NotificationPreferences');
    expect(signature('Mutation', 'declareIncident')).toBe('declareIncident(input: DeclareIncidentInput!): Incident!');
    expect(signature('Mutation', 'ackIncident')).toBe('ackIncident(id: ID!): Incident!');
    expect(signature('Mutation', 'addNote')).toBe('addNote(incidentId: ID!, content: String!): Note!');
    expect(signature('Mutation', 'changeSeverity')).toBe('changeSeverity(incidentId: ID!, severity: Severity!): Incident!');
    expect(signature('Mutation', 'assignRole')).toBe('assignRole(incidentId: ID!, role: RACIRole!, userId: ID!): Incident!');
    expect(signature('Mutation', 'updateNotificationSettings')).toBe('updateNotificationSettings(input: NotificationPreferencesInput!): NotificationPreferences!');
  });
});
