import { createHash, randomUUID } from 'node:crypto';
import { asBundle, verifyBundle } from '@im/ledger-proof';
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

// A relay: its events name other people as their actors.
const writer = bearer(token({ sub: 'writer', roles: ['timeline.writer', 'timeline.relay'] }));

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
            'im.origin_id': `origin-${secret}`,
            'im.fingerprint': `fingerprint-${secret}`,
            x_email: `email-${secret}`,
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
    expect(view).toMatchObject({ content: `content-${e.secret}`, title: `title-${e.secret}`, actor: `actor-${e.secret}`, sender: 'writer', redacted: [] });
    expect(view.data).toEqual({ content: `content-${e.secret}`, host: `host-${e.secret}`, severity: 'SEV-2', service: 'checkout' });
    return;
  }
  const actorHidden = hidden.includes('pii');
  expect(view.content).toBe('[REDACTED]');
  expect(view.title).toBe('[REDACTED]');
  expect(view.actor).toBe(actorHidden ? '[REDACTED]' : `actor-${e.secret}`);
  expect(view.data).toEqual({ content: '[REDACTED]', host: '[REDACTED]', severity: 'SEV-2', service: 'checkout' });
  // The sender (the writer's token) is hidden exactly where the actor is.
  expect(view.sender).toBe(actorHidden ? '[REDACTED]' : 'writer');
  expect(view.redacted).toEqual(['content', 'title', 'data.content', 'data.host', ...(actorHidden ? ['actor', 'sender'] : [])]);
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

    // Cross-incident query: a redacted event does not show its correlation key, so the key does not find it
    const query = (await t.http().post('/api/v1/timeline/query').set(auth).send({ correlation_key: seeded.correlation, limit: 1000 }).expect(200)).body;
    const unredactedIds = seeded.events.filter((e) => visibleTo(clearance, e) && missing([...access], e).length === 0).map((e) => e.id);
    expect(noteIds(query.events)).toEqual([...unredactedIds].sort());
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
      expect(ce.data['im.sender']).toBe(hidden.includes('pii') ? '[REDACTED]' : 'writer');
      if (hidden.length) {
        expect(ce['im.redacted']).toContain('data.host');
        // The allow-list: nothing else of the event, whatever the producer sent
        const kept = ['specversion', 'id', 'source', 'type', 'time', 'subject', 'data', 'im.actor', 'im.data_class', 'im.redacted', 'im.ledger'];
        expect(Object.keys(ce).sort()).toEqual([...kept, ...(e.visibility ? ['im.visibility'] : [])].sort());
      } else {
        expect(ce).toMatchObject({ 'im.origin_id': `origin-${e.secret}`, 'im.fingerprint': `fingerprint-${e.secret}`, x_email: `email-${e.secret}` });
      }
    }

    // Export, ledger bundle: it verifies, and holds nothing of a withheld event and no redacted value
    const bundle = (await t.http().get(`/api/v1/incidents/${seeded.incidentId}/timeline/export?format=ledger`).set(auth).expect(200)).body;
    expect(verifyBundle(asBundle(bundle))).toMatchObject({ intact: true, chain: clearance });
    const bundleText = JSON.stringify(bundle);
    for (const e of seeded.events) {
      if (!visibleTo(clearance, e)) expect(bundleText).not.toContain(e.secret);
      else if (missing([...access], e).length) for (const field of ['content', 'host', 'title', 'origin', 'fingerprint', 'email']) expect(bundleText).not.toContain(`${field}-${e.secret}`);
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

describe('what a caller cannot see finds nothing: filters, pages and cursors', () => {
  let t: TestApp;
  let incidentId: string;
  const run = randomUUID().slice(0, 8);
  const actor = `dana.private.${run}`;
  const piiKey = `pii-${run}`;
  const secretKey = `withheld-${run}`;
  const fingerprint = `fp-${run}`;
  const everything = bearer(token({ sub: 'auditor', roles: ALL_ROLES, clearance: 'confidential', data_access: ['pii', 'phi', 'legal_hold'] }));
  const noPii = bearer(token({ sub: 'no-pii', roles: ALL_ROLES, clearance: 'confidential', data_access: ['phi'] }));
  const publicOnly = bearer(token({ sub: 'public', roles: ALL_ROLES, clearance: 'public', data_access: ['pii', 'phi', 'legal_hold'] }));
  const EMPTY = { events: [], next_cursor: null };
  const WITHHELD = 25;

  const append = (fields: Record<string, unknown>) =>
    t
      .http()
      .post('/api/v1/timeline/events')
      .set({ ...writer, 'content-type': 'application/cloudevents+json' })
      .send(JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://leak-test', type: 'im.incident.note', subject: `incident/${incidentId}`, ...fields }))
      .expect(201);
  const query = (auth: Record<string, string>, body: Record<string, unknown>) => t.http().post('/api/v1/timeline/query').set(auth).send(body);
  const timeline = (auth: Record<string, string>, q: string) => t.http().get(`/api/v1/incidents/${incidentId}/timeline${q}`).set(auth);

  beforeAll(async () => {
    t = await startTestApp();
    incidentId = (await t.http().post('/api/v1/incidents').send({ title: 'Leaks', severity: 'SEV-3' }).expect(201)).body.id;
    for (const minute of [1, 2, 3]) {
      await append({
        time: `2026-11-22T10:0${minute}:00Z`,
        'im.actor': actor,
        'im.data_class': ['pii'],
        'im.visibility': 'public',
        'im.correlation_key': piiKey,
        'im.fingerprint': fingerprint,
        data: { content: 'private words' },
      });
    }
    // More withheld matches than a page used to read on past (ten reads of limit + 1)
    for (let second = 10; second < 10 + WITHHELD; second++) {
      await append({ time: `2026-11-22T11:00:${second}Z`, 'im.visibility': 'confidential', 'im.correlation_key': secretKey });
    }
  });
  afterAll(() => t.close());

  it('finds by actor, correlation key and fingerprint for a caller who sees them', async () => {
    expect((await timeline(everything, `?actor=${actor}`).expect(200)).body.events).toHaveLength(3);
    for (const body of [{ actor }, { correlation_key: piiKey }, { fingerprint }]) {
      expect((await query(everything, body).expect(200)).body.events).toHaveLength(3);
    }
    expect((await query(everything, { correlation_key: secretKey }).expect(200)).body.events).toHaveLength(WITHHELD);
  });

  it('answers a right guess of a redacted actor exactly like a wrong one (incident timeline and query)', async () => {
    // The caller sees the events, with the actor as [REDACTED]
    const shown = (await timeline(noPii, '?from=2026-11-22T10:00:00Z&to=2026-11-22T10:59:00Z').expect(200)).body.events;
    expect(shown.map((e: { actor: string }) => e.actor)).toEqual(['[REDACTED]', '[REDACTED]', '[REDACTED]']);
    for (const limit of [1, 2, 50]) {
      expect((await timeline(noPii, `?actor=${actor}&limit=${limit}`).expect(200)).body).toEqual(EMPTY);
      expect((await timeline(noPii, `?actor=nobody&limit=${limit}`).expect(200)).body).toEqual(EMPTY);
      expect((await query(noPii, { actor, limit }).expect(200)).body).toEqual(EMPTY);
      expect((await query(noPii, { actor: '[REDACTED]', limit }).expect(200)).body).toEqual(EMPTY);
    }
  });

  it('does not find a redacted event by its correlation key or fingerprint, which it does not show', async () => {
    for (const body of [{ correlation_key: piiKey }, { fingerprint }, { correlation_key: piiKey, limit: 1 }, { fingerprint, limit: 1 }]) {
      expect((await query(noPii, body).expect(200)).body).toEqual(EMPTY);
    }
  });

  it('ends a result whose matches are all withheld with next_cursor null', async () => {
    for (const limit of [1, 2, 50]) {
      expect((await query(publicOnly, { correlation_key: secretKey, limit }).expect(200)).body).toEqual(EMPTY);
      expect((await timeline(publicOnly, `?limit=${limit}&from=2026-11-22T11:00:00Z`).expect(200)).body).toEqual(EMPTY);
    }
  });

  it('seals cursors: the position cannot be read, and they page as before', async () => {
    const first = (await query(everything, { correlation_key: piiKey, limit: 1, order: 'asc' }).expect(200)).body;
    expect(first.events).toHaveLength(1);
    const decoded = Buffer.from(first.next_cursor, 'base64url').toString('latin1');
    expect(decoded).not.toMatch(/2026|10:0\d/);
    const second = (await query(everything, { correlation_key: piiKey, limit: 2, order: 'asc', cursor: first.next_cursor }).expect(200)).body;
    expect(second.events.map((e: { event_time: string }) => e.event_time)).toEqual(['2026-11-22T10:02:00.000Z', '2026-11-22T10:03:00.000Z']);
    expect(second.next_cursor).toBeNull();
  });

  it('refuses a cursor that was changed, forged, oversized, or is replayed by another caller or with other filters', async () => {
    const body = { correlation_key: piiKey, limit: 1 };
    const cursor: string = (await query(everything, body).expect(200)).body.next_cursor;
    const flipped = cursor.slice(0, 20) + (cursor[20] === 'A' ? 'B' : 'A') + cursor.slice(21);
    // What the unsealed format was: base64url JSON [time, position, tag], with a tag anyone could compute
    const tag = createHash('sha256').update(JSON.stringify({ correlationKey: piiKey, order: 'desc' })).digest('base64url').slice(0, 12);
    const forged = (position: string) => Buffer.from(JSON.stringify(['2026-11-22T10:02:00.000Z', position, tag])).toString('base64url');
    const auditorTwin = bearer(token({ sub: 'another-auditor', roles: ALL_ROLES, clearance: 'confidential', data_access: ['pii', 'phi', 'legal_hold'] }));
    for (const [auth, attempt] of [
      [everything, { ...body, cursor: flipped }],
      [everything, { ...body, cursor: forged('1') }],
      [everything, { ...body, cursor: forged('9'.repeat(400)) }],
      [everything, { ...body, cursor: 'A'.repeat(100_000) }],
      [everything, { ...body, cursor: `${cursor}${'A'.repeat(400)}` }],
      [everything, { ...body, order: 'asc', cursor }],
      [auditorTwin, { ...body, cursor }],
    ] as const) {
      expectError(await query(auth, attempt), 400, /cursor is malformed or belongs to another query/);
    }
    expect((await query(everything, { ...body, cursor }).expect(200)).body.events).toHaveLength(1);
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
    ['ledger bundle', () => t.http().get(`/api/v1/incidents/${incidentId}/timeline/export?format=ledger`)],
    ['ledger verification', () => t.http().get(`/api/v1/incidents/${incidentId}/timeline/verify`)],
  ])('refuses the %s with 503 and no event data', async (_, call) => {
    const res = await call().set(auth);
    expectError(res, 503, /policy decision point is unavailable/);
    expect(res.text).not.toContain('sensitive words');
    expect(res.text).not.toContain('fc-1');
    expect(res.text).not.toContain('127.0.0.1:9');
  });

  it.each([
    ['an unknown event id', () => t.http().get('/api/v1/timeline/events/no-such-event')],
    ['a query without matches', () => t.http().post('/api/v1/timeline/query').send({ correlation_key: 'nothing-has-this-key' })],
    ['the timeline of an unknown incident', () => t.http().get('/api/v1/incidents/INC-00000000/timeline')],
    ['the export of an unknown incident', () => t.http().get('/api/v1/incidents/INC-00000000/timeline/export')],
    ['the verification of an unknown incident', () => t.http().get('/api/v1/incidents/INC-00000000/timeline/verify')],
  ])('answers %s with the same 503, whatever is stored', async (_, call) => {
    const known = await t.http().get('/api/v1/timeline/events/fc-1').set(auth);
    const res = await call().set(auth);
    expect(res.status).toBe(503);
    expect(res.body).toEqual(known.body);
  });
});
