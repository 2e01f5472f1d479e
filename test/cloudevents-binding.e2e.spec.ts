import { randomUUID } from 'node:crypto';
import { CloudEvent, emitterFor, HTTP, httpTransport, type Message, Mode } from 'cloudevents';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { bearer, token } from './support/tokens';

/**
 * The CloudEvents HTTP binding (docs/api.md, "Content modes") as the official
 * JavaScript SDK (npm `cloudevents` 10) and hand-made requests exercise it
 * against the listening service: binary, structured and batched modes, the
 * spec-legal attribute names, and the cloudevents/conformance HTTP cases
 * rewritten as our own (docs/alert-sources.md lists them).
 */

const AUTH = bearer(token({ sub: 'monitoring' }));
const READER_INTERNAL = bearer(token({ sub: 'rita', roles: ['timeline.reader'], clearance: 'internal', data_access: [] }));
const BATCH = 'application/cloudevents-batch+json';

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen(0, '127.0.0.1');
  url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}/api/v1/timeline/events`;
});
afterAll(() => t.close());

type Answer = { status: number; body: Record<string, unknown> };

/** A transport function that, unlike the SDK's httpTransport, lets the test see the status. */
const statusTransport = async (message: Message, options: { headers?: Record<string, string> } = {}): Promise<Answer> => {
  const response = await fetch(url, { method: 'POST', headers: { ...message.headers, ...options.headers } as Record<string, string>, body: message.body as string });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const send = (mode: Mode, event: CloudEvent<unknown>) => emitterFor(statusTransport, { mode })(event, { headers: AUTH }) as unknown as Promise<Answer>;

/** Hand-made request, for what the SDK cannot send (batches, encoded headers, other media types). */
const post = async (headers: Record<string, string>, body: string | Buffer): Promise<Answer> => {
  const response = await fetch(url, { method: 'POST', headers: { ...AUTH, ...headers }, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const binaryHeaders = (fields: Record<string, string> = {}): Record<string, string> => ({
  'ce-specversion': '1.0',
  'ce-id': randomUUID(),
  'ce-source': 'im://conformance',
  'ce-type': 'im.alert.trigger',
  'ce-time': '2026-11-22T10:00:00Z',
  ...fields,
});

const sdkEvent = (fields: Record<string, unknown>) =>
  new CloudEvent<unknown>({ source: 'im://prometheus', type: 'im.alert.trigger', time: '2026-11-22T10:00:00.000Z', ...fields });

/** The stored CloudEvents of an incident, as the JSON export gives them. */
const exported = async (incidentId: string): Promise<Record<string, unknown>[]> =>
  (await t.http().get(`/api/v1/incidents/${incidentId}/timeline/export?format=json`).set(AUTH).expect(200)).body;
const storedEvent = async (incidentId: string, id: string) => (await exported(incidentId)).find((event) => event.id === id);

const expectRefused = (answer: Answer, status: number, message: RegExp) => {
  expect(answer).toEqual({ status, body: { status, error: expect.stringMatching(message) } });
};

describe('the cloudevents SDK in binary and structured mode, with the spec-legal attribute names', () => {
  it.each([
    ['binary', Mode.BINARY],
    ['structured', Mode.STRUCTURED],
  ])('%s mode through the SDK\'s own httpTransport: stored under the seed names with the same values', async (_name, mode) => {
    const fingerprint = `disk:db-1:${randomUUID()}`;
    const alert = sdkEvent({
      data: { title: 'Disk almost full', severity: 'SEV-2', service: 'db' },
      imactor: 'prometheus',
      imoriginid: `alert-${randomUUID()}`,
      imcorrelationkey: 'db-cluster-1',
      imfingerprint: fingerprint,
      imdataclass: ['pii', 'legal_hold'],
      imvisibility: 'restricted',
    });
    const response = await emitterFor(httpTransport(url), { mode })(alert, { headers: AUTH });
    const answer = JSON.parse((response as { body: string }).body) as { event_id: string; created: boolean; incident_id: string };
    expect(answer).toEqual({ event_id: alert.id, created: true, incident_id: expect.stringMatching(/^INC-/) });

    const stored = await storedEvent(answer.incident_id, alert.id);
    expect(stored).toMatchObject({
      specversion: '1.0',
      source: 'im://prometheus',
      type: 'im.alert.trigger',
      time: '2026-11-22T10:00:00.000Z',
      data: { title: 'Disk almost full', severity: 'SEV-2', service: 'db' },
      'im.actor': 'prometheus',
      'im.origin_id': alert.imoriginid,
      'im.correlation_key': 'db-cluster-1',
      'im.fingerprint': fingerprint,
      'im.data_class': ['pii', 'legal_hold'],
      'im.visibility': 'restricted',
    });
    expect(Object.keys(stored!).filter((name) => /^im[a-z]/.test(name))).toEqual([]);
  });

  it.each([
    ['binary', Mode.BINARY],
    ['structured', Mode.STRUCTURED],
  ])('%s mode: imoriginid dedups (200) and imfingerprint groups alerts into one incident, seen through a status-reporting transport', async (_name, mode) => {
    const originId = `origin-${randomUUID()}`;
    const fingerprint = `cpu:${randomUUID()}`;
    const first = await send(mode, sdkEvent({ data: { title: 'CPU high', severity: 'SEV-3' }, imoriginid: originId, imfingerprint: fingerprint }));
    expect(first.status).toBe(201);
    const resent = await send(mode, sdkEvent({ data: { title: 'CPU high', severity: 'SEV-3' }, imoriginid: originId, imfingerprint: fingerprint }));
    expect(resent).toEqual({ status: 200, body: { ...first.body, created: false } });
    const again = await send(mode, sdkEvent({ data: { title: 'CPU high again', severity: 'SEV-3' }, imfingerprint: fingerprint }));
    expect(again.status).toBe(201);
    expect(again.body.incident_id).toBe(first.body.incident_id);
  });

  it('withholds a note sent with imvisibility: confidential from a reader with clearance internal', async () => {
    const declared = await send(Mode.BINARY, sdkEvent({ type: 'im.incident.declare', data: { title: 'Payments down', severity: 'SEV-1' } }));
    const incidentId = declared.body.incident_id as string;
    for (const mode of [Mode.BINARY, Mode.STRUCTURED]) {
      const note = sdkEvent({ type: 'im.incident.note', subject: `incident/${incidentId}`, data: { content: `Card numbers leaked (${mode})` }, imvisibility: 'confidential' });
      expect((await send(mode, note)).status).toBe(201);
      await t.http().get(`/api/v1/timeline/events/${note.id}`).set(READER_INTERNAL).expect(404);
      await t.http().get(`/api/v1/timeline/events/${note.id}`).set(AUTH).expect(200);
    }
    const seen = (await t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set(READER_INTERNAL).expect(200)).body.events;
    expect(JSON.stringify(seen)).not.toContain('Card numbers');
    expect(seen).toHaveLength(1);
  });

  it('binary mode: an unencoded value with a stray % (as the SDK sends it) is stored as sent', async () => {
    const alert = sdkEvent({ data: { title: 'Quotes', severity: 'SEV-4' }, imactor: 'Bob "the" 100% sure' });
    const answer = await send(Mode.BINARY, alert);
    expect(answer.status).toBe(201);
    expect((await storedEvent(answer.body.incident_id as string, alert.id))?.['im.actor']).toBe('Bob "the" 100% sure');
  });

  it('structured mode: binary data goes out as data_base64 and is stored byte for byte', async () => {
    const declared = await send(Mode.STRUCTURED, sdkEvent({ type: 'im.incident.declare', data: { title: 'Bytes', severity: 'SEV-4' } }));
    const incidentId = declared.body.incident_id as string;
    const note = sdkEvent({ type: 'im.incident.note', subject: `incident/${incidentId}`, datacontenttype: 'application/octet-stream', data: new Uint8Array([0, 1, 2, 255]) });
    expect((await send(Mode.STRUCTURED, note)).status).toBe(201);
    expect(await storedEvent(incidentId, note.id)).toMatchObject({ datacontenttype: 'application/octet-stream', data_base64: 'AAEC/w==' });
  });
});

describe('aliases and misspelt service attributes, in every mode', () => {
  const structured = (fields: Record<string, unknown>) =>
    post(
      { 'content-type': 'application/cloudevents+json' },
      JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://hand', type: 'im.alert.trigger', time: '2026-11-22T10:00:00Z', data: { title: 'x', severity: 'SEV-4' }, ...fields }),
    );

  it('refuses both spellings of one attribute with different values (400), accepts them with the same value', async () => {
    expectRefused(await structured({ 'im.visibility': 'public', imvisibility: 'confidential' }), 400, /imvisibility and im\.visibility .*different values/);
    expectRefused(await post({ ...binaryHeaders({ 'ce-imdataclass': 'pii', 'ce-im.data_class': 'phi' }), 'content-type': 'application/json' }, '{}'), 400, /imdataclass and im\.data_class/);
    expect((await structured({ 'im.visibility': 'restricted', imvisibility: 'restricted', 'im.data_class': ['pii'], imdataclass: 'pii' })).status).toBe(201);
  });

  it.each([
    ['imvisiblity', 'imvisibility'],
    ['im.visibilty', 'imvisibility'],
    ['imfingerprnt', 'imfingerprint'],
    ['im.origin-id', 'imoriginid'],
    ['imactors', 'imactor'],
    ['im.correlation_keys', 'imcorrelationkey'],
    ['imdata_class', 'imdataclass'],
  ])('refuses the misspelt %s with 400 naming %s, in structured and binary mode', async (name, meant) => {
    expectRefused(await structured({ [name]: 'confidential' }), 400, new RegExp(`${name} is not an attribute of the service: did you mean ${meant} `));
    expectRefused(await post({ ...binaryHeaders({ [`ce-${name}`]: 'confidential' }), 'content-type': 'application/json' }, '{}'), 400, new RegExp(`did you mean ${meant}`));
  });

  it('stores other unknown extensions (impact, image) and reads them back as before', async () => {
    const sent = { id: randomUUID(), impact: 'high', image: 'registry/app:1.2', 'x-team': 'sre' };
    const answer = await structured(sent);
    expect(answer.status).toBe(201);
    expect(await storedEvent(answer.body.incident_id as string, sent.id)).toMatchObject({ impact: 'high', image: 'registry/app:1.2', 'x-team': 'sre' });
  });

  it('POST /api/v1/simulate reads aliases and refuses misspellings the same way', async () => {
    const event = (fields: Record<string, unknown>) => ({ specversion: '1.0', id: randomUUID(), source: 'im://sim', type: 'im.alert.trigger', time: '2026-11-22T10:00:00Z', data: { title: 'x', severity: 'SEV-4' }, ...fields });
    const misspelt = event({ imvisibilty: 'confidential' });
    const report = (await t.http().post('/api/v1/simulate').set(AUTH).send({ events: [event({ imfingerprint: 'sim-fp' }), misspelt] }).expect(200)).body;
    expect(report.events_created).toHaveLength(1);
    expect(report.errors).toEqual([{ index: 1, id: misspelt.id, error: expect.stringMatching(/imvisibilty is not an attribute of the service: did you mean imvisibility/) }]);
  });
});

describe('binary mode by hand (cloudevents/conformance HTTP cases, in our words)', () => {
  it.each(['application/json', 'application/json; charset=utf-8'])('JSON data under %s: attributes as sent, datacontenttype the whole Content-Type', async (contentType) => {
    const headers = binaryHeaders({ 'ce-time': '2026-11-22T10:00:00.123+02:00', 'ce-imfingerprint': `fp-${randomUUID()}` });
    const answer = await post({ ...headers, 'content-type': contentType }, JSON.stringify({ title: 'Conformance', severity: 'SEV-4' }));
    expect(answer.status).toBe(201);
    expect(await storedEvent(answer.body.incident_id as string, headers['ce-id'])).toMatchObject({
      specversion: '1.0',
      id: headers['ce-id'],
      source: 'im://conformance',
      type: 'im.alert.trigger',
      time: '2026-11-22T10:00:00.123+02:00',
      datacontenttype: contentType,
      data: { title: 'Conformance', severity: 'SEV-4' },
    });
  });

  it.each([
    ['text/plain; charset=us-ascii', Buffer.from('Hello World!')],
    ['text/plain; charset=utf-8', Buffer.from('Hello World! 🌎')],
    ['application/xml; charset=utf-8', Buffer.from('<much wow="xml"/>')],
    ['application/octet-stream', Buffer.from([0, 1, 2, 255])],
  ])('data of %s is stored as the body\'s exact bytes in data_base64', async (contentType, body) => {
    const declared = await post({ ...binaryHeaders({ 'ce-type': 'im.incident.declare' }), 'content-type': 'application/json' }, JSON.stringify({ title: 'Other media', severity: 'SEV-4' }));
    const headers = binaryHeaders({ 'ce-type': 'im.incident.note', 'ce-subject': `incident/${declared.body.incident_id}` });
    expect((await post({ ...headers, 'content-type': contentType }, body)).status).toBe(201);
    const stored = await storedEvent(declared.body.incident_id as string, headers['ce-id']);
    expect(stored).toMatchObject({ datacontenttype: contentType, data_base64: body.toString('base64') });
    expect(stored).not.toHaveProperty('data');
  });

  it.each([
    ['a JSON string', '"Hello World!"'],
    ['a JSON array', '[1, 2, 3]'],
  ])('refuses JSON data that is %s (data must be an object, as in structured mode)', async (_what, body) => {
    expectRefused(await post({ ...binaryHeaders(), 'content-type': 'application/json; charset=utf-8' }, body), 400, /data must be object/);
  });

  it('keeps the JSON limits for a +json body: nesting and inexact numbers refused', async () => {
    const deep = `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`;
    expectRefused(await post({ ...binaryHeaders(), 'content-type': 'application/vnd.alert+json' }, deep), 400, /nests deeper/);
    expectRefused(await post({ ...binaryHeaders(), 'content-type': 'application/vnd.alert+json' }, '{"title":"x","severity":"SEV-4","n":12345678901234567890}'), 400, /cannot be stored exactly/);
    expect((await post({ ...binaryHeaders(), 'content-type': 'application/vnd.alert+json' }, '{"title":"x","severity":"SEV-4"}')).status).toBe(201);
  });

  it('percent-decodes header values once: UTF-8 escapes, lower-case hex, needless escapes, quoted strings', async () => {
    const headers = binaryHeaders({
      'ce-imactor': 'Zo%C3%AB%20%f0%9f%8c%8e',
      'ce-imcorrelationkey': '"db %22cluster%22 \\"one\\""',
      'ce-imoriginid': `%61lert-${randomUUID()}`,
      'ce-impact': 'line one%0Aline two',
    });
    const answer = await post({ ...headers, 'content-type': 'application/json' }, JSON.stringify({ title: 'Encoded', severity: 'SEV-4' }));
    expect(answer.status).toBe(201);
    expect(await storedEvent(answer.body.incident_id as string, headers['ce-id'])).toMatchObject({
      'im.actor': 'Zoë 🌎',
      'im.correlation_key': 'db "cluster" "one"',
      'im.origin_id': headers['ce-imoriginid'].replace('%61', 'a'),
      impact: 'line one\nline two',
    });
  });

  it('refuses a header that is not UTF-8 once decoded (overlong %C0%A0), and ce-datacontenttype (the Content-Type is the datacontenttype)', async () => {
    expectRefused(await post({ ...binaryHeaders({ 'ce-imactor': 'bad%C0%A0' }), 'content-type': 'application/json' }, '{}'), 400, /ce-imactor is not UTF-8/);
    expectRefused(await post({ ...binaryHeaders({ 'ce-datacontenttype': 'text/plain' }), 'content-type': 'application/json' }, '{}'), 400, /ce-datacontenttype must not be sent/);
  });

  it('keeps 415 for a media type in no mode, and on every other route', async () => {
    const { ['ce-specversion']: _specversion, ...noSpecversion } = binaryHeaders();
    expect((await post({ ...noSpecversion, 'content-type': 'text/plain' }, 'hello')).status).toBe(415);
    expect((await post({ 'content-type': 'application/cloudevents+xml' }, '<event/>')).status).toBe(415);
    const incidents = url.replace('/timeline/events', '/incidents');
    for (const contentType of ['text/plain', BATCH]) {
      const response = await fetch(incidents, { method: 'POST', headers: { ...AUTH, ...binaryHeaders(), 'content-type': contentType }, body: '[]' });
      expect(response.status).toBe(415);
    }
  });
});

describe('structured mode by hand', () => {
  const base = () => ({ specversion: '1.0', id: randomUUID(), source: 'im://hand', type: 'im.incident.declare', time: '2026-11-22T10:00:00Z' });

  it.each(['application/cloudevents+json', 'application/cloudevents+json; charset=utf-8', 'application/cloudevents+json; charset=UTF-8'])('accepts %s, datacontenttype from the body', async (contentType) => {
    const event = { ...base(), datacontenttype: 'application/json', data: { title: 'Structured', severity: 'SEV-4' } };
    const answer = await post({ 'content-type': contentType }, JSON.stringify(event));
    expect(answer.status).toBe(201);
    expect(await storedEvent(answer.body.incident_id as string, event.id)).toMatchObject({ datacontenttype: 'application/json' });
  });

  it('accepts data_base64 with its media type, stores text data of a text type as its bytes, refuses data and data_base64 together', async () => {
    const declared = await post({ 'content-type': 'application/cloudevents+json' }, JSON.stringify({ ...base(), data: { title: 'b64', severity: 'SEV-4' } }));
    const subject = `incident/${declared.body.incident_id}`;
    const bytes = { ...base(), type: 'im.incident.note', subject, datacontenttype: 'image/png', data_base64: 'iVBORw0KGgo=' };
    const text = { ...base(), type: 'im.incident.note', subject, datacontenttype: 'text/plain', data: 'Hello World!' };
    expect((await post({ 'content-type': 'application/cloudevents+json' }, JSON.stringify(bytes))).status).toBe(201);
    expect((await post({ 'content-type': 'application/cloudevents+json' }, JSON.stringify(text))).status).toBe(201);
    expect(await storedEvent(declared.body.incident_id as string, bytes.id)).toMatchObject({ data_base64: 'iVBORw0KGgo=' });
    expect(await storedEvent(declared.body.incident_id as string, text.id)).toMatchObject({ data_base64: Buffer.from('Hello World!').toString('base64') });
    expectRefused(await post({ 'content-type': 'application/cloudevents+json' }, JSON.stringify({ ...bytes, id: randomUUID(), data: {} })), 400, /data or data_base64, not both/);
    expectRefused(await post({ 'content-type': 'application/cloudevents+json' }, JSON.stringify({ ...bytes, id: randomUUID(), data_base64: 'not base64!' })), 400, /data_base64 must be base64/);
  });
});

describe('batched mode (application/cloudevents-batch+json), by hand: the SDK cannot send it', () => {
  const event = (fields: Record<string, unknown> = {}) => ({ specversion: '1.0', id: randomUUID(), source: 'im://batch', type: 'im.alert.trigger', time: '2026-11-22T10:00:00Z', ...fields });
  const batch = (events: unknown, contentType = BATCH) => post({ 'content-type': contentType }, typeof events === 'string' ? events : JSON.stringify(events));

  it('answers 200 with one result per event in order; refusals undo nothing and the good events are stored', async () => {
    const fingerprint = `batch-${randomUUID()}`;
    const alert = event({ data: { title: 'Batch alert', severity: 'SEV-3' }, imfingerprint: fingerprint, imoriginid: `o-${randomUUID()}` });
    const missingId = { ...event(), id: undefined };
    const unknownIncident = event({ type: 'im.incident.note', subject: 'incident/INC-00000000' });
    const resent = { ...alert, id: randomUUID() };
    const misspelt = event({ imvisiblity: 'confidential', data: { title: 'x', severity: 'SEV-4' } });
    const second = event({ data: { title: 'Batch alert again', severity: 'SEV-3' }, imfingerprint: fingerprint });
    const tooBig = event({ data: { title: 'big', severity: 'SEV-4', content: 'x'.repeat(70_000) } });

    const answer = await batch([alert, missingId, unknownIncident, resent, misspelt, 'not an event', second, tooBig]);
    expect(answer.status).toBe(200);
    const incidentId = (answer.body.results as { incident_id?: string }[])[0].incident_id;
    expect(answer.body).toEqual({
      results: [
        { index: 0, status: 201, event_id: alert.id, created: true, incident_id: expect.stringMatching(/^INC-/) },
        { index: 1, status: 400, error: expect.stringMatching(/id is required/) },
        { index: 2, status: 404, error: expect.stringMatching(/INC-00000000 not found/) },
        { index: 3, status: 200, event_id: alert.id, created: false, incident_id: incidentId },
        { index: 4, status: 400, error: expect.stringMatching(/did you mean imvisibility/) },
        { index: 5, status: 400, error: expect.stringMatching(/one CloudEvent as a JSON object/) },
        { index: 6, status: 201, event_id: second.id, created: true, incident_id: incidentId },
        { index: 7, status: 413, error: expect.stringMatching(/64 KiB/) },
      ],
    });
    const stored = await exported(incidentId!);
    expect(stored.filter((e) => e.source === 'im://batch').map((e) => [e.id, e['im.fingerprint']])).toEqual([
      [alert.id, fingerprint],
      [second.id, fingerprint],
    ]);
  });

  it('answers an empty batch with no results, and takes charset parameters', async () => {
    expect(await batch([], `${BATCH}; charset=utf-8`)).toEqual({ status: 200, body: { results: [] } });
  });

  it('refuses a body that is not an array (400), more than 1,000 events or more than 1 MiB (413)', async () => {
    expectRefused(await batch(event()), 400, /must be a JSON array/);
    expectRefused(await batch('{"specversion": '), 400, /JSON/);
    expectRefused(await batch(Array.from({ length: 1001 }, () => ({}))), 413, /at most 1000 events/);
    const big = Array.from({ length: 20 }, () => event({ data: { content: 'x'.repeat(60_000) } }));
    expect((await batch(big)).status).toBe(413);
  });
});
