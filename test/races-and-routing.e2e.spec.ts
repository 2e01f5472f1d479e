import { randomUUID } from 'node:crypto';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';

const AUTH = bearer(token({ sub: 'alice' }));

let t: TestApp;
let store: EventStore;
beforeAll(async () => {
  t = await startTestApp();
  store = t.app.get<EventStore>(EVENT_STORE);
});
afterAll(() => t.close());

/** Through Fastify's inject: concurrent requests really overlap, as from many senders at once. */
const append = async (fields: Record<string, unknown>) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/timeline/events',
    headers: { ...AUTH, 'content-type': 'application/cloudevents+json' },
    payload: JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://prometheus', time: new Date().toISOString(), ...fields }),
  });
  return { status: res.statusCode, body: res.json() };
};

const alert = (fingerprint: string) => append({ type: 'im.alert.trigger', 'im.fingerprint': fingerprint, data: { title: 'Disk full' } });

const TRIALS = 40;
const RACING_ALERTS = 4;

describe('alerts of one fingerprint racing a resolve', () => {
  jest.setTimeout(120_000);

  it(`never appends an alert to the incident after its resolve (${TRIALS} trials): a re-firing alert opens a new incident`, async () => {
    const misrouted: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const fingerprint = `race-${randomUUID()}`;
      const first = await alert(fingerprint);
      expect(first.status).toBe(201);
      const incidentId: string = first.body.incident_id;
      const answers = await Promise.all([
        append({ type: 'im.incident.resolve', subject: `incident/${incidentId}` }),
        ...Array.from({ length: RACING_ALERTS }, () => alert(fingerprint)),
      ]);
      expect(answers.map((a) => a.status)).toEqual(Array(RACING_ALERTS + 1).fill(201));

      const types = (await store.readStream(`incident-${incidentId}`)).map((r) => r.event.type);
      const resolvedAt = types.indexOf('im.incident.resolve');
      if (types.slice(resolvedAt + 1).includes('im.alert.trigger')) misrouted.push(`${incidentId}: ${types.join(', ')}`);
      // Every alert that did not join before the resolve opened (or joined) one new incident.
      const others = new Set(answers.slice(1).map((a) => a.body.incident_id).filter((id) => id !== incidentId));
      expect(others.size).toBeLessThanOrEqual(1);
    }
    expect(misrouted).toEqual([]);
  });
});

describe('a flood of alerts on one fingerprint', () => {
  jest.setTimeout(120_000);

  it('reads a bounded number of events per alert, however long the incident grows', async () => {
    const fingerprint = `flood-${randomUUID()}`;
    const readPerAlert = async () => {
      const readStream = jest.spyOn(store, 'readStream');
      try {
        expect((await alert(fingerprint)).status).toBe(201);
        const results = await Promise.all(readStream.mock.results.map((r) => r.value as Promise<unknown[]>));
        return results.reduce((sum, events) => sum + events.length, 0);
      } finally {
        readStream.mockRestore();
      }
    };
    const early = await readPerAlert();
    for (let sent = 0; sent < 300; sent += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => alert(fingerprint)));
      expect(batch.map((a) => a.status)).toEqual(Array(10).fill(201));
    }
    const late = await readPerAlert();
    expect(late).toBeLessThanOrEqual(Math.max(early, 5));
  });
});

describe('a declaration through the timeline', () => {
  it.each([
    ['services that are not names', { services: [{ x: 1 }] }, /services must be a list/],
    ['labels with a non-text value', { labels: { team: 7 } }, /labels must be an object/],
  ])('is checked like the REST and GraphQL declare: %s is 400', async (_, fields, message) => {
    const res = await append({ type: 'im.incident.declare', data: { title: 'Checkout is down', severity: 'SEV-1', ...fields } });
    expect(res).toEqual({ status: 400, body: { error: expect.stringMatching(message), status: 400 } });
  });

  it('dates the incident when the service recorded it, in UTC, whatever time the event carries', async () => {
    const before = Date.now();
    const declared = await append({
      type: 'im.incident.declare',
      time: '2099-01-01T23:30:00-09:00',
      data: { title: 'From the future', severity: 'SEV-3' },
    });
    expect(declared.status).toBe(201);
    const id = declared.body.incident_id;
    const created = (await t.http().get(`/api/v1/incidents/${id}`).expect(200)).body;
    expect(created.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
    expect(created.updated_at).toBe(created.created_at);
    expect(Date.parse(created.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(created.created_at)).toBeLessThanOrEqual(Date.now() + 1000);

    await t.http().post(`/api/v1/incidents/${id}/ack`).set(AUTH).expect(200);
    const acked = (await t.http().get(`/api/v1/incidents/${id}`).expect(200)).body;
    expect(acked.created_at).toBe(created.created_at);
    expect(Date.parse(acked.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at));
  });
});

describe('numbers a JSON body carries', () => {
  const cloudEvent = (data: string) =>
    `{"specversion":"1.0","id":"${randomUUID()}","source":"im://prometheus","type":"im.incident.declare",` +
    `"time":"2026-11-22T10:00:00Z","data":{"title":"Disk","severity":"SEV-3",${data}}}`;
  const post = (url: string, body: string, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url, headers: { ...AUTH, 'content-type': contentType }, payload: body });

  it.each([
    ['an integer beyond 2^53', '"n":12345678901234567890', 'data.n', '12345678901234567890'],
    ['a number beyond the float range', '"big":1e400', 'data.big', '1e400'],
    ['sixteen digits or more around a decimal point', '"reading":123456789012.345678', 'data.reading', '123456789012.345678'],
  ])('refuses %s in a timeline event with 400 naming the field', async (_, data, field, literal) => {
    const res = await post('/api/v1/timeline/events', cloudEvent(data), 'application/cloudevents+json');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.stringContaining(`${field} is the number ${literal}`), status: 400 });
  });

  it('refuses them in an array body, in a REST body and in GraphQL variables too', async () => {
    const batch = await post('/api/v1/timeline/events', `[${cloudEvent('"ok":1')},${cloudEvent('"n":1e400')}]`, 'application/cloudevents+json');
    expect([batch.statusCode, batch.json().error]).toEqual([400, expect.stringContaining('[1].data.n is the number 1e400')]);
    const rest = await post('/api/v1/incidents', '{"title":"Disk","severity":"SEV-3","description":"x","n":9007199254740993}');
    expect([rest.statusCode, rest.json().error]).toEqual([400, expect.stringContaining('n is the number 9007199254740993')]);
    const gql = await post('/api/v1/graphql', '{"query":"query($x: JSON) { __typename }","variables":{"x":{"n":1e400}}}');
    expect(gql.statusCode).toBe(400);
    expect(gql.body).toContain('variables.x.n is the number 1e400');
  });

  it('keeps numbers that survive parsing exactly as given', async () => {
    const res = await post('/api/v1/timeline/events', cloudEvent('"n":9007199254740991,"f":0.1,"e":1e300'), 'application/cloudevents+json');
    expect(res.statusCode).toBe(201);
    const [stored] = await store.readStream(`incident-${res.json().incident_id}`);
    expect(stored.event.data).toMatchObject({ n: 9007199254740991, f: 0.1, e: 1e300 });
  });
});
