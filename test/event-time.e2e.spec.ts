import { randomUUID } from 'node:crypto';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { bearer, token } from './support/tokens';

/** Times are parsed once, at the edge, by the parser the read side orders them with: what it cannot order is a 400. */
const AUTH = bearer(token({ sub: 'alice' }));
const RULE = /must be an RFC 3339 timestamp with a real calendar date, seconds 00-59 \(no leap second\) and Z or a ±hh:mm offset/;

let t: TestApp;
let incidentId: string;
beforeAll(async () => {
  t = await startTestApp();
  incidentId = (await t.http().post('/api/v1/incidents').send({ title: 'Clock trouble', severity: 'SEV-3' }).expect(201)).body.id;
});
afterAll(() => t.close());

const append = (time: string) =>
  t
    .http()
    .post('/api/v1/timeline/events')
    .set({ ...AUTH, 'content-type': 'application/cloudevents+json' })
    .send(JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://clock', type: 'im.incident.note', subject: `incident/${incidentId}`, time }));

const BAD_TIMES = [
  ['2016-12-31T23:59:60Z', 'a leap second'],
  ['2026-11-22T10:00:00+01', 'an hour-only offset'],
  ['2026-02-30T00:00:00Z', 'February 30th'],
];

describe('event time on append', () => {
  it.each(BAD_TIMES)('refuses %s (%s) with 400, storing nothing', async (time) => {
    const head = await t.app.get<EventStore>(EVENT_STORE).headPosition();
    expectError(await append(time), 400, RULE);
    expect(await t.app.get<EventStore>(EVENT_STORE).headPosition()).toBe(head);
  });

  it('stores an offset time and serves it in UTC', async () => {
    const { event_id } = (await append('2026-11-22T10:00:00.5-09:30').expect(201)).body;
    const { body } = await t.http().get(`/api/v1/timeline/events/${event_id}`).set(AUTH).expect(200);
    expect(body.event_time).toBe('2026-11-22T19:30:00.500Z');
  });
});

describe('time filters', () => {
  it.each(BAD_TIMES)('refuses from=%s (%s) on an incident timeline with 400', async (time) => {
    expectError(await t.http().get(`/api/v1/incidents/${incidentId}/timeline?from=${encodeURIComponent(time)}`).set(AUTH), 400, RULE);
  });

  it.each(BAD_TIMES)('refuses to_time %s (%s) in a query with 400', async (time) => {
    expectError(await t.http().post('/api/v1/timeline/query').set(AUTH).send({ incident_id: incidentId, to_time: time }), 400, RULE);
  });
});
