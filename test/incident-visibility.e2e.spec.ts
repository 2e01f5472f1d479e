import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { ALL_TIMELINE_ROLES, bearer, token } from './support/tokens';

/**
 * Decision of issue 13: an incident declared with an explicit visibility is
 * withheld (404, absent from lists, NOT_FOUND in GraphQL) from callers whose
 * clearance ranks below it; one declared without stays visible to everyone
 * who may use the incident endpoints.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const as = (sub: string, clearance: string, roles = ALL_TIMELINE_ROLES) => bearer(token({ sub, roles, clearance, data_access: [] }));
const OFFICER = as('officer', 'confidential');
const RESPONDER = as('resp', 'restricted');

async function graphql(query: string, headers: Record<string, string>) {
  const res = await t.http().post('/api/v1/graphql').set(headers).send({ query });
  return res.body as { data?: Record<string, any> | null; errors?: { message: string; extensions: { code: string } }[] };
}
const codes = (body: { errors?: { extensions: { code: string } }[] }) => (body.errors ?? []).map((e) => e.extensions.code);

async function declareConfidential(title: string): Promise<string> {
  const body = await graphql(`mutation { declareIncident(input: { title: "${title}", severity: SEV_1, visibility: "confidential" }) { id } }`, OFFICER);
  expect(body.errors).toBeUndefined();
  return body.data!.declareIncident.id;
}

const appendNote = (id: string, headers = OFFICER) =>
  t.http().post('/api/v1/timeline/events').set({ ...headers, 'content-type': 'application/cloudevents+json' }).send(
    JSON.stringify({ specversion: '1.0', id: `note-${Math.random()}`, source: 'im://test', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${id}`, 'im.correlation_key': `corr-${id}`, data: { content: 'internal-visibility note' } }),
  );

describe('an incident declared with a visibility', () => {
  let secret: string;
  let noteId: string;
  beforeAll(async () => {
    secret = await declareConfidential('Merger leak');
    noteId = (await appendNote(secret).expect(201)).body.event_id;
  });

  it('is 404 to REST reads, timelines, exports and every lifecycle command below its level, as an unknown incident is', async () => {
    for (const headers of [{}, RESPONDER]) {
      expectError(await t.http().get(`/api/v1/incidents/${secret}`).set(headers), 404, `Incident ${secret} not found`);
      for (const move of ['ack', 'mitigate', 'resolve', 'close']) {
        expectError(await t.http().post(`/api/v1/incidents/${secret}/${move}`).set(headers), 404, `Incident ${secret} not found`);
      }
    }
    expectError(await t.http().get(`/api/v1/incidents/${secret}/timeline`).set(RESPONDER), 404, `Incident ${secret} not found`);
    expectError(await t.http().get(`/api/v1/incidents/${secret}/timeline/export`).set(RESPONDER), 404);
    expectError(await t.http().get(`/api/v1/incidents/${secret}/timeline/export?format=markdown`).set(RESPONDER), 404);
    expectError(await t.http().get(`/api/v1/timeline/events/${noteId}`).set(RESPONDER), 404);
    await t.http().get(`/api/v1/timeline/events/${noteId}`).set(OFFICER).expect(200);
    // Its events (visibility internal of their own) are withheld with it from searches.
    const search = await t.http().post('/api/v1/timeline/query').set(RESPONDER).send({ correlation_key: `corr-${secret}` }).expect(200);
    expect(search.body).toEqual({ events: [], next_cursor: null });
    const search2 = await t.http().post('/api/v1/timeline/query').set(RESPONDER).send({ incident_id: secret }).expect(200);
    expect(search2.body.events).toEqual([]);

    // Nothing moved, and the cleared caller sees it all.
    expect((await t.http().get(`/api/v1/incidents/${secret}`).set(OFFICER).expect(200)).body).toMatchObject({ title: 'Merger leak', status: 'open' });
    expect((await t.http().get(`/api/v1/incidents/${secret}/timeline`).set(OFFICER).expect(200)).body.events.length).toBeGreaterThan(0);
    expect((await t.http().post('/api/v1/timeline/query').set(OFFICER).send({ correlation_key: `corr-${secret}` }).expect(200)).body.events).toHaveLength(1);
    expect((await t.http().post(`/api/v1/incidents/${secret}/ack`).set(OFFICER).expect(200)).body).toEqual({ status: 'acknowledged' });
  });

  it('is NOT_FOUND to GraphQL queries and mutations below its level, and absent from myIncidents', async () => {
    await graphql(`mutation { assignRole(incidentId: "${secret}", role: OPS, userId: "resp") { id } }`, OFFICER);
    for (const op of [
      `{ incidentStatus(id: "${secret}") { title } }`,
      `{ quickActions(incidentId: "${secret}") { id } }`,
      `mutation { ackIncident(id: "${secret}") { id } }`,
      `mutation { addNote(incidentId: "${secret}", content: "x") { id } }`,
      `mutation { assignRole(incidentId: "${secret}", role: COMMS, userId: "resp") { id } }`,
    ]) {
      const body = await graphql(op, RESPONDER);
      expect([op, codes(body), Object.values(body.data ?? {}).every((value) => value === null)]).toEqual([op, ['NOT_FOUND'], true]);
      expect(JSON.stringify(body)).not.toContain('Merger leak');
    }
    expect((await graphql('{ myIncidents(limit: 100) { id } }', RESPONDER)).data!.myIncidents).toEqual([]);
    expect((await graphql('{ myIncidents(limit: 100) { id } }', as('resp', 'confidential'))).data!.myIncidents).toEqual([{ id: secret }]);
    expect((await graphql(`{ incidentStatus(id: "${secret}") { title } }`, OFFICER)).data!.incidentStatus).toEqual({ title: 'Merger leak' });
  });

  it('cannot be declared above the declaring caller\'s own clearance (FORBIDDEN, nothing stored)', async () => {
    const before = (await t.http().get('/api/v1/incidents?limit=1000').set(OFFICER)).body.length;
    const body = await graphql('mutation { declareIncident(input: { title: "x", severity: SEV_1, visibility: "confidential" }) { id } }', RESPONDER);
    expect(codes(body)).toEqual(['FORBIDDEN']);
    expect((await t.http().get('/api/v1/incidents?limit=1000').set(OFFICER)).body.length).toBe(before);
  });
});

describe('REST declare (POST /api/v1/incidents) with a visibility, as GraphQL declareIncident', () => {
  it('records it: the incident is withheld below its level', async () => {
    const res = await t.http().post('/api/v1/incidents').set(OFFICER).send({ title: 'Board meeting', severity: 'SEV-2', visibility: 'confidential' }).expect(201);
    const id = res.body.id as string;
    expectError(await t.http().get(`/api/v1/incidents/${id}`).set(RESPONDER), 404, `Incident ${id} not found`);
    expectError(await t.http().get(`/api/v1/incidents/${id}`), 404, `Incident ${id} not found`);
    expect((await t.http().get(`/api/v1/incidents/${id}`).set(OFFICER).expect(200)).body).toMatchObject({ title: 'Board meeting' });
    expect(codes(await graphql(`{ incidentStatus(id: "${id}") { title } }`, RESPONDER))).toEqual(['NOT_FOUND']);
  });

  it('refuses one above the caller\'s clearance with 403 and the GraphQL message, and stores nothing; the anonymous development caller clears only public', async () => {
    const before = (await t.http().get('/api/v1/incidents?limit=1000').set(OFFICER)).body.length;
    const refused = await t.http().post('/api/v1/incidents').set(RESPONDER).send({ title: 'x', severity: 'SEV-1', visibility: 'confidential' });
    expectError(refused, 403, 'visibility confidential ranks above your clearance (restricted)');
    const gql = await graphql('mutation { declareIncident(input: { title: "x", severity: SEV_1, visibility: "confidential" }) { id } }', RESPONDER);
    expect((gql.errors ?? []).map((e) => e.message)).toEqual([refused.body.error]);
    expectError(await t.http().post('/api/v1/incidents').send({ title: 'x', severity: 'SEV-1', visibility: 'internal' }), 403, 'visibility internal ranks above your clearance (public)');
    expectError(await t.http().post('/api/v1/incidents').set(OFFICER).send({ title: 'x', severity: 'SEV-1', visibility: 'secret' }), 400, 'visibility must be one of public, internal, restricted, confidential');
    expect((await t.http().get('/api/v1/incidents?limit=1000').set(OFFICER)).body.length).toBe(before);
    await t.http().post('/api/v1/incidents').send({ title: 'Open to all', severity: 'SEV-4', visibility: 'public' }).expect(201);
  });
});

describe('incident lists', () => {
  it('leave withheld incidents out of the query itself: pages stay full and Link never points past what the caller sees', async () => {
    const fresh = await startTestApp();
    const previous = t;
    t = fresh;
    try {
      const open = async (title: string) => (await t.http().post('/api/v1/incidents').send({ title, severity: 'SEV-3' }).expect(201)).body.id;
      const a = await open('A');
      const hiddenB = await declareConfidential('B');
      const c = await open('C');
      const hiddenD = await declareConfidential('D');

      const page1 = await t.http().get('/api/v1/incidents?limit=1').expect(200);
      expect(page1.body.map((i: { id: string }) => i.id)).toEqual([c]);
      const next = /<([^>]+)>; rel="next"/.exec(page1.headers.link)![1];
      const page2 = await t.http().get(next).expect(200);
      expect(page2.body.map((i: { id: string }) => i.id)).toEqual([a]);
      expect(page2.headers.link).toBeUndefined();
      const all = await t.http().get('/api/v1/incidents?limit=2').set(RESPONDER).expect(200);
      expect(all.body.map((i: { id: string }) => i.id)).toEqual([c, a]);
      expect(all.headers.link).toBeUndefined();
      expect((await t.http().get('/api/v1/incidents').set(OFFICER).expect(200)).body.map((i: { id: string }) => i.id)).toEqual([hiddenD, c, hiddenB, a]);
    } finally {
      t = previous;
      await fresh.close();
    }
  });

  it('keep an incident declared without a visibility open to the anonymous development caller', async () => {
    const id = (await t.http().post('/api/v1/incidents').send({ title: 'Open to all', severity: 'SEV-4' }).expect(201)).body.id;
    expect((await t.http().get(`/api/v1/incidents/${id}`).expect(200)).body.title).toBe('Open to all');
    expect((await t.http().get('/api/v1/incidents?limit=1000').expect(200)).body.map((i: { id: string }) => i.id)).toContain(id);
    expect((await t.http().post(`/api/v1/incidents/${id}/ack`).expect(200)).body).toEqual({ status: 'acknowledged' });
  });
});
