import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EmbeddedPdp, loadTimelinePolicy } from '@im/policy';
import { startTestApp, type TestApp } from '../support/app';
import { expectError } from '../support/expect-error';
import { bearer, token } from '../support/tokens';
import { startFakeOpa } from './fake-opa';

const RANK: Record<string, number> = { public: 0, internal: 1, restricted: 2, confidential: 3 };
const VISIBILITIES = [undefined, 'public', 'internal', 'restricted', 'confidential'];
const CLASS_SETS: string[][] = [[], ['pii'], ['phi'], ['legal_hold']];
const CLEARANCES = ['public', 'internal', 'restricted', 'confidential'];
const ACCESS_SETS: string[][] = [[], ['pii'], ['phi', 'legal_hold'], ['pii', 'phi', 'legal_hold']];
const ALL_ROLES = ['timeline.reader', 'timeline.exporter'];

interface Seeded {
  id: string;
  visibility?: string;
  classes: string[];
  secret: string;
}

const writer = bearer(token({ sub: 'writer', roles: ['timeline.writer'] }));

async function seed(t: TestApp): Promise<{ incidentId: string; events: Seeded[]; correlation: string }> {
  const incidentId = (await t.http().post('/api/v1/incidents').send({ title: 'Policy matrix', severity: 'SEV-2' }).expect(201)).body.id;
  const correlation = `policy-${randomUUID()}`;
  const events: Seeded[] = [];
  for (const visibility of VISIBILITIES) {
    for (const classes of CLASS_SETS) {
      const secret = `SECRET-${visibility ?? 'default'}-${classes.join('+') || 'none'}-${randomUUID().slice(0, 8)}`;
      const id = randomUUID();
      await t
        .http()
        .post('/api/v1/timeline/events')
        .set({ ...writer, 'content-type': 'application/cloudevents+json' })
        .send(
          JSON.stringify({
            specversion: '1.0',
            id,
            source: 'im://policy-test',
            type: 'im.incident.note',
            time: '2026-11-22T10:00:00Z',
            subject: `incident/${incidentId}`,
            'im.actor': `actor-${secret}`,
            'im.correlation_key': correlation,
            ...(visibility ? { 'im.visibility': visibility } : {}),
            ...(classes.length ? { 'im.data_class': classes } : {}),
            data: { title: `title-${secret}`, content: `content-${secret}`, host: `host-${secret}`, severity: 'SEV-2', service: 'checkout' },
          }),
        )
        .expect(201);
      events.push({ id, visibility, classes, secret });
    }
  }
  return { incidentId, events, correlation };
}

const visibleTo = (clearance: string, e: Seeded) => RANK[e.visibility ?? 'internal'] <= RANK[clearance];
const missing = (access: string[], e: Seeded) => e.classes.filter((c) => !access.includes(c));

function expectShownAs(view: Record<string, unknown>, e: Seeded, access: string[]) {
  const hidden = missing(access, e);
  if (hidden.length === 0) {
    expect(view).toMatchObject({ content: `content-${e.secret}`, title: `title-${e.secret}`, actor: `actor-${e.secret}`, redacted: [] });
    expect(view.data).toEqual({ content: `content-${e.secret}`, host: `host-${e.secret}`, severity: 'SEV-2', service: 'checkout' });
    return;
  }
  const actorHidden = hidden.includes('pii');
  expect(view.content).toBe('[REDACTED]');
  expect(view.title).toBe('[REDACTED]');
  expect(view.actor).toBe(actorHidden ? '[REDACTED]' : `actor-${e.secret}`);
  expect(view.data).toEqual({ content: '[REDACTED]', host: '[REDACTED]', severity: 'SEV-2', service: 'checkout' });
  expect(view.redacted).toEqual(['content', 'title', 'data.content', 'data.host', ...(actorHidden ? ['actor'] : [])]);
}

describe.each([
  ['embedded', {} as Record<string, string>],
  ['opa', { POLICY_MODE: 'opa' }],
])('policy on every read path (%s PDP)', (mode, env) => {
  let t: TestApp;
  let seeded: Awaited<ReturnType<typeof seed>>;
  let opa: Awaited<ReturnType<typeof startFakeOpa>> | undefined;

  beforeAll(async () => {
    if (mode === 'opa') {
      opa = await startFakeOpa(new EmbeddedPdp(loadTimelinePolicy(join(__dirname, '../../policy/timeline-policy.json'))));
      env = { ...env, OPA_URL: opa.url };
    }
    t = await startTestApp(env);
    seeded = await seed(t);
  });
  afterAll(async () => {
    await t.close();
    await opa?.close();
  });

  const callers = CLEARANCES.flatMap((clearance) => ACCESS_SETS.map((access) => [clearance, access] as const));

  it.each(callers)('clearance %s with data_access %j sees exactly what the rules allow', async (clearance, access) => {
    const auth = bearer(token({ sub: 'auditor', roles: ALL_ROLES, clearance, data_access: [...access] }));
    const expectedIds = seeded.events.filter((e) => visibleTo(clearance, e)).map((e) => e.id);
    const byId = new Map(seeded.events.map((e) => [e.id, e]));
    const noteIds = (events: { id: string }[]) => events.map((e) => e.id).filter((id) => byId.has(id)).sort();

    // Incident timeline
    const list = (await t.http().get(`/api/v1/incidents/${seeded.incidentId}/timeline?limit=1000`).set(auth).expect(200)).body;
    expect(noteIds(list.events)).toEqual([...expectedIds].sort());
    list.events.filter((v: { id: string }) => byId.has(v.id)).forEach((v: Record<string, unknown>) => expectShownAs(v, byId.get(v.id as string)!, [...access]));

    // Cross-incident query
    const query = (await t.http().post('/api/v1/timeline/query').set(auth).send({ correlation_key: seeded.correlation, limit: 1000 }).expect(200)).body;
    expect(noteIds(query.events)).toEqual([...expectedIds].sort());
    query.events.forEach((v: Record<string, unknown>) => expectShownAs(v, byId.get(v.id as string)!, [...access]));

    // Single reads: withheld is 404, exactly like an unknown id
    for (const e of seeded.events) {
      const res = await t.http().get(`/api/v1/timeline/events/${e.id}`).set(auth);
      if (visibleTo(clearance, e)) {
        expect(res.status).toBe(200);
        expectShownAs(res.body, e, [...access]);
      } else {
        expectError(res, 404, `Timeline event ${e.id} not found`);
      }
    }

    // Export, JSON: the CloudEvents, redacted the same way and marked
    const exported = (await t.http().get(`/api/v1/incidents/${seeded.incidentId}/timeline/export`).set(auth).expect(200)).body;
    expect(noteIds(exported)).toEqual([...expectedIds].sort());
    for (const ce of exported.filter((c: { id: string }) => byId.has(c.id))) {
      const e = byId.get(ce.id)!;
      const hidden = missing([...access], e);
      expect(ce.data.severity).toBe('SEV-2');
      expect(ce.data.host).toBe(hidden.length ? '[REDACTED]' : `host-${e.secret}`);
      expect(ce['im.actor']).toBe(hidden.includes('pii') ? '[REDACTED]' : `actor-${e.secret}`);
      if (hidden.length) expect(ce['im.redacted']).toContain('data.host');
    }

    // Export, Markdown: one section per visible event, secrets only where granted
    const markdown = (await t.http().get(`/api/v1/incidents/${seeded.incidentId}/timeline/export?format=markdown`).set(auth).expect(200)).text;
    expect((markdown.match(/^## .* - im\.incident\.note$/gm) ?? []).length).toBe(expectedIds.length);
    for (const e of seeded.events) {
      const shownInFull = visibleTo(clearance, e) && missing([...access], e).length === 0;
      expect(markdown.includes(`content-${e.secret}`)).toBe(shownInFull);
    }
  });

  it('never lets a PII string reach a caller without pii access, on any path', async () => {
    const auth = bearer(token({ sub: 'no-pii', roles: ALL_ROLES, clearance: 'confidential', data_access: ['phi', 'legal_hold'] }));
    const piiSecrets = seeded.events.filter((e) => e.classes.includes('pii')).map((e) => e.secret);
    const bodies = [
      (await t.http().get(`/api/v1/incidents/${seeded.incidentId}/timeline?limit=1000`).set(auth)).text,
      (await t.http().post('/api/v1/timeline/query').set(auth).send({ correlation_key: seeded.correlation })).text,
      (await t.http().get(`/api/v1/incidents/${seeded.incidentId}/timeline/export`).set(auth)).text,
      (await t.http().get(`/api/v1/incidents/${seeded.incidentId}/timeline/export?format=markdown`).set(auth)).text,
      ...(await Promise.all(seeded.events.map(async (e) => (await t.http().get(`/api/v1/timeline/events/${e.id}`).set(auth)).text))),
      (await t.http().get('/api/v1/incidents')).text,
      (await t.http().get(`/api/v1/incidents/${seeded.incidentId}`)).text,
    ];
    for (const body of bodies) for (const secret of piiSecrets) expect(body).not.toContain(secret);
  });
});

describe('fail-closed: POLICY_MODE=opa with no OPA running', () => {
  let t: TestApp;
  let incidentId: string;
  const auth = bearer(token({ sub: 'auditor', roles: ['timeline.reader', 'timeline.exporter', 'timeline.writer'] }));
  beforeAll(async () => {
    t = await startTestApp({ POLICY_MODE: 'opa', OPA_URL: 'http://127.0.0.1:9', OPA_TIMEOUT_MS: '300' });
    incidentId = (await t.http().post('/api/v1/incidents').send({ title: 'Still writable', severity: 'SEV-1' }).expect(201)).body.id;
  });
  afterAll(() => t.close());

  it('still takes writes: REST and timeline appends', async () => {
    await t.http().post(`/api/v1/incidents/${incidentId}/ack`).expect(200);
    const res = await t
      .http()
      .post('/api/v1/timeline/events')
      .set({ ...auth, 'content-type': 'application/cloudevents+json' })
      .send(JSON.stringify({ specversion: '1.0', id: 'fc-1', source: 'im://t', type: 'im.incident.note', time: '2026-11-22T10:00:00Z', subject: `incident/${incidentId}`, data: { content: 'sensitive words' } }));
    expect(res.status).toBe(201);
  });

  it.each([
    ['single read', () => t.http().get('/api/v1/timeline/events/fc-1')],
    ['incident timeline', () => t.http().get(`/api/v1/incidents/${incidentId}/timeline`)],
    ['query', () => t.http().post('/api/v1/timeline/query').send({ incident_id: incidentId })],
    ['export JSON', () => t.http().get(`/api/v1/incidents/${incidentId}/timeline/export`)],
    ['export Markdown', () => t.http().get(`/api/v1/incidents/${incidentId}/timeline/export?format=markdown`)],
  ])('refuses the %s with 503 and no event data', async (_, call) => {
    const res = await call().set(auth);
    expectError(res, 503, /policy decision point is unavailable/);
    expect(res.text).not.toContain('sensitive words');
    expect(res.text).not.toContain('fc-1');
  });
});
