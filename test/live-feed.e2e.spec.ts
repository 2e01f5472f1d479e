import { randomUUID } from 'node:crypto';
import type { Principal } from '@im/access';
import { LiveFeed } from '../apps/api/src/live/live-feed';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';

let t: TestApp;
let feed: LiveFeed;
beforeAll(async () => {
  t = await startTestApp();
  feed = t.app.get(LiveFeed);
});
afterAll(() => t.close());

const reader: Principal = { sub: 'reader', roles: ['timeline.reader'], clearance: 'internal', dataAccess: [], authenticated: true };
const writer = bearer(token({ sub: 'writer', roles: ['timeline.writer'] }));

const note = (incidentId: string, content: string, extra: Record<string, unknown> = {}) =>
  t
    .http()
    .post('/api/v1/timeline/events')
    .set({ ...writer, 'content-type': 'application/cloudevents+json' })
    .send(JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://live', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${incidentId}`, data: { content }, ...extra }))
    .expect(201);

const declare = async () => (await t.http().post('/api/v1/incidents').send({ title: 'Live', severity: 'SEV-2' }).expect(201)).body.id as string;

describe('LiveFeed', () => {
  it('delivers timeline events appended after opening, then resumes after a cursor with no gap and no repeat', async () => {
    const id = await declare();
    await note(id, 'before');
    const stream = await feed.timeline(reader, id);
    await note(id, 'one');
    await note(id, 'two');
    const first = (await stream.next()).value!;
    const second = (await stream.next()).value!;
    expect([first.event.content, second.event.content]).toEqual(['one', 'two']);
    await stream.return();
    await note(id, 'three');
    const resumed = await feed.timeline(reader, id, first.cursor);
    expect((await resumed.next()).value!.event.content).toBe('two');
    expect((await resumed.next()).value!.event.content).toBe('three');
    await note(id, 'four');
    expect((await resumed.next()).value!.event.content).toBe('four');
    await resumed.return();
    expect(feed.subscriberCount).toBe(0);
  });

  it('delivers incident changes as the read model shows them', async () => {
    const stream = await feed.incidentChanges(reader);
    const id = await declare();
    await t.http().post(`/api/v1/incidents/${id}/ack`).expect(200);
    const seen: string[] = [];
    while (!seen.includes('acknowledged')) {
      const change = (await stream.next()).value!;
      if (change.incident.id === id) seen.push(change.incident.status);
    }
    expect(seen[0]).toBe('open');
    await stream.return();
  });
});
