import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runVerify } from '../apps/api/src/ledger-proof/verify.cli';
import { startTestApp, type TestApp } from './support/app';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

/** Who wrote an event (docs/security.md, "Who wrote an event"): the authenticated sender beside the claimed actor. */
const ALICE = bearer(token({ sub: 'alice', roles: ['timeline.writer', 'timeline.reader', 'timeline.exporter'], clearance: 'confidential', data_access: [] }));
const BRIDGE = bearer(token({ sub: 'chat-bridge', roles: ['timeline.writer', 'timeline.relay'] }));
const AUDITOR = bearer(token({ sub: 'auditor', roles: ['timeline.reader', 'timeline.exporter'], clearance: 'confidential', data_access: ['pii', 'phi', 'legal_hold'] }));
const NO_PII = bearer(token({ sub: 'no-pii', roles: ['timeline.reader', 'timeline.exporter'], clearance: 'confidential', data_access: ['phi'] }));

describe('who wrote an event', () => {
  const files = tempDir('sender-bundles');
  let t: TestApp;
  let incident: string;

  const append = (auth: Record<string, string>, fields: Record<string, unknown>, id = `e-${randomUUID()}`) =>
    t
      .http()
      .post('/api/v1/timeline/events')
      .set({ ...auth, 'content-type': 'application/cloudevents+json' })
      .send(JSON.stringify({ specversion: '1.0', id, source: 'im://sender-test', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${incident}`, ...fields }));
  const timeline = async (auth: Record<string, string>) => (await t.http().get(`/api/v1/incidents/${incident}/timeline?limit=100`).set(auth).expect(200)).body.events as Record<string, unknown>[];

  beforeAll(async () => {
    t = await startTestApp();
    incident = (await t.http().post('/api/v1/incidents').set(ALICE).send({ title: 'Checkout down', severity: 'SEV-2' }).expect(201)).body.id;
  });
  afterAll(async () => {
    await t.close();
    files.remove();
  });

  it('refuses a plain writer that names another actor, with 403 naming the rule, alone in a batch too', async () => {
    const refused = await append(ALICE, { 'im.actor': 'mallory', data: { content: 'mallory did it' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ status: 403, error: expect.stringContaining('only a token with role timeline.relay may write in another\'s name') });
    const batch = await t
      .http()
      .post('/api/v1/timeline/events')
      .set({ ...ALICE, 'content-type': 'application/cloudevents-batch+json' })
      .send(JSON.stringify([{ 'im.actor': 'mallory' }, {}].map((fields) => ({ specversion: '1.0', id: randomUUID(), source: 'im://sender-test', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${incident}`, ...fields }))))
      .expect(200);
    expect(batch.body.results.map((r: { status: number }) => r.status)).toEqual([403, 201]);
    expect(JSON.stringify(await timeline(AUDITOR))).not.toContain('mallory');
  });

  it('records the sender of every event and reads it beside the actor; hides it wherever the actor is hidden; every reader still verifies', async () => {
    await append(ALICE, { 'im.actor': 'alice', data: { content: 'looking at it' } }).expect(201);
    await append(BRIDGE, { 'im.actor': 'mallory', data: { content: 'relayed from the chat' } }, 'relayed').expect(201);
    await append(BRIDGE, { 'im.actor': 'ann', 'im.data_class': ['pii'], data: { content: 'ann called' } }, 'relayed-pii').expect(201);
    await t.http().post(`/api/v1/incidents/${incident}/ack`).set(ALICE).expect(200);
    await t
      .http()
      .post('/api/v1/graphql')
      .set(ALICE)
      .send({ query: `mutation { addNote(incidentId: "${incident}", content: "through GraphQL") { id } }` })
      .expect(200);

    const events = await timeline(AUDITOR);
    const byType = (type: string) => events.filter((e) => e.event_type === type);
    expect(byType('im.incident.declare').map((e) => [e.actor, e.sender])).toEqual([['alice', 'alice']]);
    expect(byType('im.incident.ack').map((e) => [e.actor, e.sender])).toEqual([['alice', 'alice']]);
    // Newest first; an event that names no actor shows its source as the actor, and still its sender.
    expect(byType('im.incident.note').map((e) => [e.content, e.actor, e.sender])).toEqual([
      ['through GraphQL', 'alice', 'alice'],
      ['ann called', 'ann', 'chat-bridge'],
      ['relayed from the chat', 'mallory', 'chat-bridge'],
      ['looking at it', 'alice', 'alice'],
      ['', 'im://sender-test', 'alice'],
    ]);
    expect(events.find((e) => e.id === 'relayed')!.data).toEqual({ content: 'relayed from the chat' });

    // A reader without pii access sees neither who the pii note names nor who sent it.
    const shown = (await timeline(NO_PII)).find((e) => e.id === 'relayed-pii')!;
    expect(shown).toMatchObject({ actor: '[REDACTED]', sender: '[REDACTED]', redacted: ['content', 'data.content', 'actor', 'sender'] });
    const exported = (await t.http().get(`/api/v1/incidents/${incident}/timeline/export?format=json`).set(NO_PII).expect(200)).body as Record<string, unknown>[];
    const pii = exported.find((e) => e.id === 'relayed-pii')!;
    expect(pii.data).toEqual({ content: '[REDACTED]', 'im.sender': '[REDACTED]' });
    expect(JSON.stringify(pii)).not.toContain('chat-bridge');
    expect(exported.find((e) => e.id === 'relayed')!.data).toEqual({ content: 'relayed from the chat', 'im.sender': 'chat-bridge' });

    const markdown = (await t.http().get(`/api/v1/incidents/${incident}/timeline/export?format=markdown`).set(AUDITOR).expect(200)).text;
    expect(markdown).toContain('Actor: mallory\n\nSent by: chat-bridge\n');
    // Only where the sender is not the actor: the two relayed notes and the one that names no actor.
    expect(markdown.match(/Sent by:/g)).toHaveLength(3);

    const quick = await t
      .http()
      .post('/api/v1/graphql')
      .set(AUDITOR)
      .send({ query: `{ incidentStatus(id: "${incident}") { quickTimeline { id actor sender } } }` })
      .expect(200);
    expect(quick.body.data.incidentStatus.quickTimeline).toContainEqual({ id: 'relayed', actor: 'mallory', sender: 'chat-bridge' });

    for (const [name, auth] of [['auditor', AUDITOR], ['no-pii', NO_PII]] as const) {
      expect((await t.http().get(`/api/v1/incidents/${incident}/timeline/verify`).set(auth).expect(200)).body).toMatchObject({ intact: true, n: 7 });
      const bundle = (await t.http().get(`/api/v1/incidents/${incident}/timeline/export?format=ledger`).set(auth).expect(200)).body;
      const file = join(files.path, `${name}.json`);
      writeFileSync(file, JSON.stringify(bundle));
      expect(await runVerify([file])).toEqual({ code: 0, line: expect.stringMatching(/^intact: 7 events, chain confidential/) });
    }
  });
});
