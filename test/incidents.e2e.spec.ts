import { EVENT_STORE, type EventStore } from '@im/event-store';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';

const RFC3339_UTC_FRACTION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/;

let t: TestApp;
let store: EventStore;

beforeAll(async () => {
  t = await startTestApp();
  store = t.app.get<EventStore>(EVENT_STORE);
});
afterAll(() => t.close());

const create = (body: unknown = { title: 'Checkout is down', severity: 'SEV-1' }) =>
  t.http().post('/api/v1/incidents').set('content-type', 'application/json').send(JSON.stringify(body));

async function newIncident(body?: unknown): Promise<string> {
  const res = await create(body);
  expect(res.status).toBe(201);
  return res.body.id;
}

async function eventsOf(id: string): Promise<string[]> {
  return (await store.readStream(`incident-${id}`)).map((r) => r.event.type);
}


describe('GET /health', () => {
  it('answers healthy with an RFC 3339 timestamp', async () => {
    const res = await t.http().get('/health').expect(200);
    expect(res.body).toEqual({ status: 'healthy', timestamp: expect.stringMatching(RFC3339_UTC_FRACTION) });
  });
});

describe('POST /api/v1/incidents', () => {
  it('creates an open incident: 201, Location, and the Incident', async () => {
    const res = await create({ title: 'Checkout is down', severity: 'SEV-1', description: 'p99 above 5 s' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^INC-[0-9a-f]{8}$/),
      title: 'Checkout is down',
      description: 'p99 above 5 s',
      severity: 'SEV-1',
      status: 'open',
      created_at: expect.stringMatching(RFC3339_UTC_FRACTION),
      updated_at: expect.stringMatching(RFC3339_UTC_FRACTION),
      alerts_firing: 0,
      service: null,
    });
    expect(res.body.updated_at).toBe(res.body.created_at);
    expect(res.headers.location).toBe(`/api/v1/incidents/${res.body.id}`);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('is readable at its Location straight after the 201', async () => {
    const created = await create({ title: 'Read your writes', severity: 'SEV-3' });
    const read = await t.http().get(created.headers.location).expect(200);
    expect(read.body).toEqual(created.body);
  });

  it('accepts title and severity alone and ignores unknown fields', async () => {
    const res = await create({ title: 'Minimal', severity: 'SEV-4', team: 'payments' });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('description');
    expect(res.body).not.toHaveProperty('team');
  });

  it('appends one im.incident.declare event to the incident stream', async () => {
    const id = await newIncident();
    const [recorded] = await store.readStream(`incident-${id}`);
    expect(recorded.event).toMatchObject({
      specversion: '1.0',
      type: 'im.incident.declare',
      source: 'im://incident-service',
      subject: `incident/${id}`,
      'im.actor': 'anonymous',
      data: { title: 'Checkout is down', severity: 'SEV-1' },
    });
  });

  const invalid: [string, string | undefined, string | RegExp][] = [
    ['missing title', JSON.stringify({ severity: 'SEV-1' }), /title/],
    ['empty title', JSON.stringify({ title: '', severity: 'SEV-1' }), /title/],
    ['blank title', JSON.stringify({ title: '   ', severity: 'SEV-1' }), /title/],
    ['title of the wrong type', JSON.stringify({ title: 12, severity: 'SEV-1' }), /title/],
    ['title too long', JSON.stringify({ title: 'x'.repeat(501), severity: 'SEV-1' }), /title/],
    ['missing severity', JSON.stringify({ title: 'x' }), /severity/],
    ['unknown severity', JSON.stringify({ title: 'x', severity: 'SEV-5' }), /severity/],
    ['GraphQL spelling of severity', JSON.stringify({ title: 'x', severity: 'SEV_1' }), /severity/],
    ['description of the wrong type', JSON.stringify({ title: 'x', severity: 'SEV-1', description: ['a'] }), /description/],
    ['an array body', JSON.stringify([{ title: 'x', severity: 'SEV-1' }]), /JSON object/],
    ['a string body', JSON.stringify('x'), /JSON object/],
    ['a null body', 'null', /JSON object/],
    ['an empty body', '', /JSON object/],
    ['malformed JSON', '{"title": "x", "severity": ', 'The body is not valid JSON'],
    ['a prototype-poisoning body', '{"title":"x","severity":"SEV-1","__proto__":{"admin":true}}', /member named __proto__/],
  ];

  it.each(invalid)('refuses %s with 400 and stores nothing', async (_, body, message) => {
    const head = await store.headPosition();
    const res = await t.http().post('/api/v1/incidents').set('content-type', 'application/json').send(body);
    expectError(res, 400, message);
    expect(await store.headPosition()).toBe(head);
  });

  it('refuses a body that is not JSON with 415', async () => {
    const head = await store.headPosition();
    const res = await t.http().post('/api/v1/incidents').set('content-type', 'text/plain').send('title=x');
    expectError(res, 415);
    expect(await store.headPosition()).toBe(head);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const res = await create({ title: 'big', severity: 'SEV-1', description: 'x'.repeat(1024 * 1024 + 1) });
    expectError(res, 413);
  });
});

describe('GET /api/v1/incidents/{id}', () => {
  it('answers 404 with the error body for an unknown or malformed id', async () => {
    expectError(await t.http().get('/api/v1/incidents/INC-00000000'), 404, 'Incident INC-00000000 not found');
    expectError(await t.http().get('/api/v1/incidents/nonsense'), 404, 'Incident nonsense not found');
  });
});

describe('lifecycle over REST', () => {
  const post = (id: string, move: string) => t.http().post(`/api/v1/incidents/${id}/${move}`);

  it('walks open → acknowledged → mitigated → resolved → closed, answering {status}', async () => {
    const id = await newIncident();
    const created = (await t.http().get(`/api/v1/incidents/${id}`)).body;
    for (const [move, status] of [
      ['ack', 'acknowledged'],
      ['mitigate', 'mitigated'],
      ['resolve', 'resolved'],
      ['close', 'closed'],
    ]) {
      const res = await post(id, move).expect(200);
      expect(res.body).toEqual({ status });
      expect((await t.http().get(`/api/v1/incidents/${id}`)).body.status).toBe(status);
    }
    const closed = (await t.http().get(`/api/v1/incidents/${id}`)).body;
    expect(closed.created_at).toBe(created.created_at);
    expect(Date.parse(closed.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    expect(await eventsOf(id)).toEqual([
      'im.incident.declare',
      'im.incident.ack',
      'im.incident.mitigate',
      'im.incident.resolve',
      'im.incident.close',
    ]);
  });

  it('resolves straight from open', async () => {
    const id = await newIncident();
    expect((await post(id, 'resolve').expect(200)).body).toEqual({ status: 'resolved' });
  });

  it('answers a repeat with 200 and the current status, appending nothing', async () => {
    const id = await newIncident();
    await post(id, 'ack').expect(200);
    const res = await post(id, 'ack').expect(200);
    expect(res.body).toEqual({ status: 'acknowledged' });
    expect(await eventsOf(id)).toEqual(['im.incident.declare', 'im.incident.ack']);
  });

  it('refuses a forbidden move with 409 naming the current state, appending nothing', async () => {
    const id = await newIncident();
    expectError(await post(id, 'mitigate'), 409, /open/);
    expectError(await post(id, 'close'), 409, /open/);
    await post(id, 'resolve').expect(200);
    expectError(await post(id, 'ack'), 409, /resolved/);
    expect(await eventsOf(id)).toEqual(['im.incident.declare', 'im.incident.resolve']);
  });

  it.each(['ack', 'mitigate', 'resolve', 'close'])('answers 404 to %s of an unknown incident', async (move) => {
    expectError(await post('INC-00000000', move), 404, 'Incident INC-00000000 not found');
  });

  it('accepts a bodiless POST sent with a JSON content type', async () => {
    const id = await newIncident();
    const res = await t.http().post(`/api/v1/incidents/${id}/ack`).set('content-type', 'application/json');
    expect(res.status).toBe(200);
  });

  it('gives ten simultaneous acks ten 200s and exactly one ack event', async () => {
    const id = await newIncident();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(id, 'ack')));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    answers.forEach((a) => expect(a.body).toEqual({ status: 'acknowledged' }));
    expect((await eventsOf(id)).filter((type) => type === 'im.incident.ack')).toHaveLength(1);
  });
});

describe('GET /api/v1/incidents', () => {
  let list: TestApp;
  const ids: string[] = [];

  beforeAll(async () => {
    list = await startTestApp();
    const severities = ['SEV-1', 'SEV-2', 'SEV-3', 'SEV-4'];
    for (let i = 0; i < 7; i++) {
      const res = await list
        .http()
        .post('/api/v1/incidents')
        .send({ title: `incident ${i}`, severity: severities[i % 4] })
        .expect(201);
      ids.push(res.body.id);
    }
    await list.http().post(`/api/v1/incidents/${ids[0]}/ack`).expect(200);
    await list.http().post(`/api/v1/incidents/${ids[1]}/resolve`).expect(200);
  });
  afterAll(() => list.close());

  const titles = (body: { title: string }[]) => body.map((i) => i.title);

  it('returns a JSON array, newest first, without a Link when everything fits', async () => {
    const res = await list.http().get('/api/v1/incidents').expect(200);
    expect(titles(res.body)).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => `incident ${i}`));
    expect(res.headers.link).toBeUndefined();
  });

  it('filters by comma-separated status and severity', async () => {
    const byStatus = await list.http().get('/api/v1/incidents?status=acknowledged,resolved').expect(200);
    expect(titles(byStatus.body)).toEqual(['incident 1', 'incident 0']);
    const bySeverity = await list.http().get('/api/v1/incidents?severity=SEV-1,SEV-2&status=open').expect(200);
    expect(titles(bySeverity.body)).toEqual(['incident 5', 'incident 4']);
  });

  it('pages with Link rel="next" keeping the filters, and ends without one', async () => {
    const seen: string[] = [];
    let url: string | undefined = '/api/v1/incidents?limit=3&status=open,acknowledged,resolved';
    let pages = 0;
    while (url) {
      const res = await list.http().get(url).expect(200);
      expect(Array.isArray(res.body)).toBe(true);
      seen.push(...titles(res.body));
      pages++;
      const link = res.headers.link as string | undefined;
      url = link?.match(/^<([^>]+)>; rel="next"$/)?.[1];
      if (url) expect(url).toContain('status=open%2Cacknowledged%2Cresolved');
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => `incident ${i}`));
  });

  it.each([
    ['status=paused', /status/],
    ['status=OPEN', /status/],
    ['severity=SEV-9', /severity/],
    ['limit=0', /limit/],
    ['limit=1001', /limit/],
    ['limit=ten', /limit/],
    ['limit=2.5', /limit/],
    ['cursor=not-a-cursor', /cursor/],
    ['cursor=' + Buffer.from('{"a":1}').toString('base64url'), /cursor/],
  ])('refuses ?%s with 400', async (query, message) => {
    expectError(await list.http().get(`/api/v1/incidents?${query}`), 400, message);
  });

  it('accepts limit at both bounds', async () => {
    expect((await list.http().get('/api/v1/incidents?limit=1').expect(200)).body).toHaveLength(1);
    expect((await list.http().get('/api/v1/incidents?limit=1000').expect(200)).body).toHaveLength(7);
  });
});

describe('unknown paths', () => {
  it.each(['/api/v1/nothing', '/api/v1/incidents/INC-00000000/reopen'])('answer 404 with the error body: %s', async (path) => {
    expectError(await t.http().get(path), 404);
  });
});
