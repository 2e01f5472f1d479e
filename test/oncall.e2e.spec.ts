import { EVENT_STORE, type EventStore } from '@im/event-store';
import { ONCALL_STREAM } from '@im/incidents';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { bearer, token } from './support/tokens';

/**
 * On-call configuration as an administrator and a responder use it: services,
 * escalation policies, schedules and overrides over REST, who is on call and
 * the shifts (across a daylight-saving change), the caller's own shifts over
 * GraphQL, and every change a ledger event of the `oncall` stream.
 */
const ADMIN = bearer(token({ sub: 'ops-admin', roles: ['oncall.admin', 'integrations.admin'] }));
const ANN = bearer(token({ sub: 'ann', roles: ['timeline.reader'] }));

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

let names = 0;
const unique = (name: string) => `${name} ${++names}`;
const layer = (over: object = {}) => ({ name: 'daily', start: '2026-03-27T09:00:00+01:00', rotation: { every: 1, unit: 'days' }, users: ['ann', 'bob'], ...over });
const scheduleBody = (over: object = {}) => ({ name: unique('Primary'), time_zone: 'Europe/Berlin', layers: [layer()], ...over });

const post = (path: string, body: object, as = ADMIN) => t.http().post(path).set(as).send(body);
const put = (path: string, body: object, as = ADMIN) => t.http().put(path).set(as).send(body);
const get = (path: string, as = ANN) => t.http().get(path).set(as);
const del = (path: string, as = ADMIN) => t.http().delete(path).set(as);
const createSchedule = async (over: object = {}) => (await post('/api/v1/schedules', scheduleBody(over)).expect(201)).body as { id: string; name: string };
const createPolicy = async (targets: object[] = [{ type: 'user', id: 'ann' }]) =>
  (await post('/api/v1/escalation-policies', { name: unique('Policy'), steps: [{ delay_seconds: 300, targets }] }).expect(201)).body as { id: string; name: string };

describe('services', () => {
  it('creates, lists, reads, replaces and deletes a service; a deleted one is not found', async () => {
    const policy = await createPolicy();
    const name = unique('Checkout');
    const created = await post('/api/v1/services', { name, escalation_policy_id: policy.id }).expect(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{16}$/), name, description: null, escalation_policy_id: policy.id, created_at: expect.any(String) });
    const { id } = created.body;
    expect((await get('/api/v1/services').expect(200)).body.items).toContainEqual(created.body);
    expect((await get(`/api/v1/services/${id}`).expect(200)).body).toEqual(created.body);

    const replaced = await put(`/api/v1/services/${id}`, { name, description: 'Takes the money' }).expect(200);
    expect(replaced.body).toEqual({ ...created.body, description: 'Takes the money', escalation_policy_id: null });

    await del(`/api/v1/services/${id}`).expect(204);
    expectError(await get(`/api/v1/services/${id}`), 404, `Service ${id} not found`);
    expectError(await del(`/api/v1/services/${id}`), 404, `Service ${id} not found`);
    expectError(await put(`/api/v1/services/${id}`, { name }), 404, `Service ${id} not found`);
  });

  it('keeps names unique whatever their case (409), and needs the policy it names (400)', async () => {
    const name = unique('Payments');
    await post('/api/v1/services', { name }).expect(201);
    expectError(await post('/api/v1/services', { name: name.toUpperCase() }), 409, /exists already/);
    expectError(await post('/api/v1/services', { name: unique('Search'), escalation_policy_id: 'nope' }), 400, 'escalation_policy_id: escalation policy nope not found');
    expectError(await post('/api/v1/services', { description: 'no name' }), 400, 'name is required and must be a string');
    expectError(await post('/api/v1/services', { name: ' ' }), 400, 'name must be a non-empty text of at most 100 characters');
  });
});

describe('escalation policies', () => {
  it('creates (repeat 0 by default), reads, replaces and deletes a policy', async () => {
    const schedule = await createSchedule();
    const steps = [{ delay_seconds: 300, targets: [{ type: 'schedule', id: schedule.id }] }, { delay_seconds: 600, targets: [{ type: 'user', id: 'bob' }] }];
    const created = await post('/api/v1/escalation-policies', { name: 'Checkout primary', steps }).expect(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'Checkout primary', steps, repeat: 0 });
    const { id } = created.body;
    expect((await get(`/api/v1/escalation-policies/${id}`).expect(200)).body).toEqual(created.body);
    expect((await get('/api/v1/escalation-policies').expect(200)).body.items).toContainEqual(created.body);
    expect((await put(`/api/v1/escalation-policies/${id}`, { name: 'Checkout', steps, repeat: 3 }).expect(200)).body).toEqual({ ...created.body, name: 'Checkout', repeat: 3 });
    await del(`/api/v1/escalation-policies/${id}`).expect(204);
    expectError(await get(`/api/v1/escalation-policies/${id}`), 404, `Escalation policy ${id} not found`);
    expectError(await put(`/api/v1/escalation-policies/${id}`, { name: 'x', steps }), 404);
    expectError(await del(`/api/v1/escalation-policies/${id}`), 404);
  });

  it.each([
    [{ steps: [] }, 'steps must list at least one step'],
    [{ steps: [{ delay_seconds: 60, targets: [] }] }, 'steps[0].targets must list at least one target'],
    [{ steps: [{ delay_seconds: 0, targets: [{ type: 'user', id: 'ann' }] }] }, 'steps[0].delay_seconds must be an integer from 1 to 86400'],
    [{ steps: [{ delay_seconds: 86_401, targets: [{ type: 'user', id: 'ann' }] }] }, 'steps[0].delay_seconds must be an integer from 1 to 86400'],
    [{ steps: [{ delay_seconds: 60, targets: [{ type: 'user', id: 'ann' }] }], repeat: 10 }, 'repeat must be an integer from 0 to 9'],
    [{ steps: [{ delay_seconds: 60, targets: [{ type: 'schedule', id: 'missing' }] }] }, 'steps[0].targets[0].id: schedule missing not found'],
  ])('answers 400 to %j', async (body, message) => {
    expectError(await post('/api/v1/escalation-policies', { name: 'P', ...body }), 400, message);
  });

  it('refuses to delete a policy while a service names it (409)', async () => {
    const policy = await createPolicy();
    const service = (await post('/api/v1/services', { name: unique('Billing'), escalation_policy_id: policy.id }).expect(201)).body;
    expectError(await del(`/api/v1/escalation-policies/${policy.id}`), 409, `Escalation policy ${policy.id} is the policy of service ${service.name}`);
    await del(`/api/v1/services/${service.id}`).expect(204);
    await del(`/api/v1/escalation-policies/${policy.id}`).expect(204);
  });
});

describe('schedules', () => {
  it('creates a schedule with no overrides, replaces its name, zone and layers keeping its overrides, deletes it', async () => {
    const body = scheduleBody({ time_zone: 'europe/berlin' });
    const created = await post('/api/v1/schedules', body).expect(201);
    expect(created.body).toEqual({ id: expect.any(String), name: body.name, time_zone: 'Europe/Berlin', layers: [layer({ start: '2026-03-27T08:00:00.000Z' })], overrides: [] });
    const { id } = created.body;
    const override = (await post(`/api/v1/schedules/${id}/overrides`, { user: 'cy', start: '2026-04-01T08:00:00Z', end: '2026-04-01T20:00:00Z' }).expect(201)).body;

    const replaced = await put(`/api/v1/schedules/${id}`, { name: 'Night', time_zone: 'UTC', layers: [layer({ users: ['dee'] })] }).expect(200);
    expect(replaced.body).toEqual({ id, name: 'Night', time_zone: 'UTC', layers: [layer({ users: ['dee'], start: '2026-03-27T08:00:00.000Z' })], overrides: [override] });
    expect((await get(`/api/v1/schedules/${id}`).expect(200)).body).toEqual(replaced.body);
    expect((await get('/api/v1/schedules').expect(200)).body.items).toContainEqual(replaced.body);

    await del(`/api/v1/schedules/${id}`).expect(204);
    expectError(await get(`/api/v1/schedules/${id}`), 404, `Schedule ${id} not found`);
    expectError(await put(`/api/v1/schedules/${id}`, scheduleBody()), 404);
    expectError(await del(`/api/v1/schedules/${id}`), 404);
  });

  it.each([
    [{ time_zone: 'Mars/Olympus' }, 'time_zone must be an IANA time zone name, e.g. Europe/Berlin'],
    [{ time_zone: '+01:00' }, 'time_zone must be an IANA time zone name, e.g. Europe/Berlin'],
    [{ layers: [layer({ rotation: { every: 0, unit: 'days' } })] }, 'layers[0].rotation.every must be an integer from 1 to 365'],
    [{ layers: [layer({ rotation: { every: 366, unit: 'days' } })] }, 'layers[0].rotation.every must be an integer from 1 to 365'],
    [{ layers: [layer({ rotation: { every: 1, unit: 'months' } })] }, 'layers[0].rotation.unit must be one of hours, days, weeks'],
    [{ layers: [layer({ restrictions: [{ days: ['mon'], from: '9:00', to: '17:00' }] })] }, 'layers[0].restrictions[0].from must be a local time HH:MM'],
    [{ layers: [layer({ restrictions: [{ days: ['monday'], from: '09:00', to: '17:00' }] })] }, 'layers[0].restrictions[0].days must list days among mon, tue, wed, thu, fri, sat, sun'],
    [{ layers: [layer({ start: '2026-03-27' })] }, 'layers[0].start must be an RFC 3339 timestamp'],
    [{ layers: [layer({ users: [] })] }, 'layers[0].users must list at least one user'],
  ])('answers 400 to %j', async (over, message) => {
    expectError(await post('/api/v1/schedules', scheduleBody(over)), 400, message);
  });

  it('refuses to delete a schedule while a policy names it (409)', async () => {
    const schedule = await createSchedule();
    const policy = await createPolicy([{ type: 'schedule', id: schedule.id }]);
    expectError(await del(`/api/v1/schedules/${schedule.id}`), 409, `Schedule ${schedule.id} is a target of escalation policy ${policy.name}`);
    await del(`/api/v1/escalation-policies/${policy.id}`).expect(204);
    await del(`/api/v1/schedules/${schedule.id}`).expect(204);
  });
});

describe('overrides', () => {
  it('lets a responder take a shift themself but not hand one to another (403); an admin does both; past overrides stay listed', async () => {
    const { id } = await createSchedule();
    const past = { user: 'bob', start: '2026-01-01T08:00:00Z', end: '2026-01-01T20:00:00Z' };
    const byAdmin = await post(`/api/v1/schedules/${id}/overrides`, past).expect(201);
    expect(byAdmin.body).toEqual({ id: expect.any(String), user: 'bob', start: '2026-01-01T08:00:00.000Z', end: '2026-01-01T20:00:00.000Z', created_at: expect.any(String) });
    const own = await post(`/api/v1/schedules/${id}/overrides`, { user: 'ann', start: '2026-04-02T08:00:00+02:00', end: '2026-04-02T20:00:00+02:00' }, ANN).expect(201);
    expectError(await post(`/api/v1/schedules/${id}/overrides`, { ...past, user: 'bob' }, ANN), 403, /oncall.admin/);
    expect((await get(`/api/v1/schedules/${id}`).expect(200)).body.overrides).toEqual([byAdmin.body, own.body]);

    // Deleting: one's own, or anyone's as admin; not another's.
    expectError(await del(`/api/v1/schedules/${id}/overrides/${byAdmin.body.id}`, ANN), 403, /oncall.admin/);
    await del(`/api/v1/schedules/${id}/overrides/${own.body.id}`, ANN).expect(204);
    await del(`/api/v1/schedules/${id}/overrides/${byAdmin.body.id}`).expect(204);
    expectError(await del(`/api/v1/schedules/${id}/overrides/${byAdmin.body.id}`), 404, `Override ${byAdmin.body.id} of schedule ${id} not found`);
    expect((await get(`/api/v1/schedules/${id}`).expect(200)).body.overrides).toEqual([]);
  });

  it('needs its end after its start (400) and an existing schedule (404)', async () => {
    const { id } = await createSchedule();
    expectError(await post(`/api/v1/schedules/${id}/overrides`, { user: 'ann', start: '2026-04-01T08:00:00Z', end: '2026-04-01T10:00:00+02:00' }, ANN), 400, 'end must be after start');
    expectError(await post(`/api/v1/schedules/${id}/overrides`, { user: 'ann', start: '2026-04-01T08:00:00Z' }, ANN), 400, /^end must be an RFC 3339 timestamp/);
    expectError(await post('/api/v1/schedules/missing/overrides', { user: 'ann', start: '2026-04-01T08:00:00Z', end: '2026-04-01T09:00:00Z' }, ANN), 404, 'Schedule missing not found');
    expectError(await del('/api/v1/schedules/missing/overrides/x', ANN), 404, 'Schedule missing not found');
  });
});

describe('who is on call', () => {
  it('hands a daily Berlin rotation over at 09:00 local on both sides of 2026-03-29, the 23-hour day, and an override wins', async () => {
    const { id } = await createSchedule();
    const shifts = await get(`/api/v1/schedules/${id}/shifts?from=2026-03-28T00:00:00Z&to=2026-03-30T12:00:00Z`).expect(200);
    expect(shifts.body).toEqual({
      shifts: [
        { user: 'ann', start: '2026-03-28T00:00:00.000Z', end: '2026-03-28T08:00:00.000Z' },
        { user: 'bob', start: '2026-03-28T08:00:00.000Z', end: '2026-03-29T07:00:00.000Z' },
        { user: 'ann', start: '2026-03-29T07:00:00.000Z', end: '2026-03-30T07:00:00.000Z' },
        { user: 'bob', start: '2026-03-30T07:00:00.000Z', end: '2026-03-30T12:00:00.000Z' },
      ],
    });
    expect((await get(`/api/v1/schedules/${id}/oncall?at=2026-03-29T06:59:59Z`).expect(200)).body).toEqual({ schedule_id: id, at: '2026-03-29T06:59:59.000Z', user: 'bob' });
    expect((await get(`/api/v1/schedules/${id}/oncall?at=2026-03-29T09:00:00%2B02:00`).expect(200)).body.user).toBe('ann');
    // Before the layer starts: no one.
    expect((await get(`/api/v1/schedules/${id}/oncall?at=2026-03-01T00:00:00Z`).expect(200)).body.user).toBeNull();
    // Now, by default.
    expect((await get(`/api/v1/schedules/${id}/oncall`).expect(200)).body).toEqual({ schedule_id: id, at: expect.any(String), user: expect.stringMatching(/^(ann|bob)$/) });

    await post(`/api/v1/schedules/${id}/overrides`, { user: 'cy', start: '2026-03-29T10:00:00Z', end: '2026-03-29T12:00:00Z' }).expect(201);
    expect((await get(`/api/v1/schedules/${id}/oncall?at=2026-03-29T11:00:00Z`).expect(200)).body.user).toBe('cy');
    expect((await get(`/api/v1/schedules/${id}/shifts?from=2026-03-29T09:00:00Z&to=2026-03-29T13:00:00Z`).expect(200)).body.shifts).toEqual([
      { user: 'ann', start: '2026-03-29T09:00:00.000Z', end: '2026-03-29T10:00:00.000Z' },
      { user: 'cy', start: '2026-03-29T10:00:00.000Z', end: '2026-03-29T12:00:00.000Z' },
      { user: 'ann', start: '2026-03-29T12:00:00.000Z', end: '2026-03-29T13:00:00.000Z' },
    ]);
  });

  it('answers 400 to a window over 93 days or ending before it starts, or a bad time; 404 for an unknown schedule', async () => {
    const { id } = await createSchedule();
    await get(`/api/v1/schedules/${id}/shifts?from=2026-01-01T00:00:00Z&to=2026-04-04T00:00:00Z`).expect(200);
    expectError(await get(`/api/v1/schedules/${id}/shifts?from=2026-01-01T00:00:00Z&to=2026-04-04T00:00:01Z`), 400, 'from and to must be at most 93 days apart');
    expectError(await get(`/api/v1/schedules/${id}/shifts?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`), 400, 'to must be after from');
    expectError(await get(`/api/v1/schedules/${id}/oncall?at=noon`), 400, /^at must be an RFC 3339 timestamp/);
    expectError(await get('/api/v1/schedules/missing/oncall'), 404, 'Schedule missing not found');
    expectError(await get('/api/v1/schedules/missing/shifts'), 404, 'Schedule missing not found');
  });
});

describe('myOnCall', () => {
  it("answers the caller's shifts across schedules for the next 7 days, an override of another's cutting them", async () => {
    const now = Date.now();
    const hour = 3_600_000;
    const week = 7 * 24 * hour;
    const gina = bearer(token({ sub: 'gina', roles: [] }));
    const primary = await createSchedule({ layers: [layer({ start: '2020-01-06T00:00:00Z', rotation: { every: 1, unit: 'weeks' }, users: ['gina'] })] });
    const override = { user: 'hal', start: new Date(now + 24 * hour).toISOString(), end: new Date(now + 48 * hour).toISOString() };
    await post(`/api/v1/schedules/${primary.id}/overrides`, override).expect(201);
    const query = async (as: Record<string, string>) =>
      (await t.http().post('/api/v1/graphql').set(as).send({ query: '{ myOnCall { scheduleId scheduleName start end } }' }).expect(200)).body;
    const mine = (await query(gina)).data.myOnCall as { scheduleId: string; scheduleName: string; start: string; end: string }[];
    expect(mine.map((s) => [s.scheduleId, s.scheduleName])).toEqual([
      [primary.id, primary.name],
      [primary.id, primary.name],
    ]);
    expect(mine[0].end).toBe(new Date(override.start).toISOString());
    expect(mine[1].start).toBe(new Date(override.end).toISOString());
    expect(Date.parse(mine[1].end) - Date.parse(mine[0].start)).toBe(week);
    expect((await query(bearer(token({ sub: 'nobody-on-call', roles: [] })))).data.myOnCall).toEqual([]);
  });
});

describe('access', () => {
  it('lets any signed-in caller read, and only oncall.admin change services, policies and schedules (403; 401 without a token)', async () => {
    const schedule = await createSchedule();
    const writes = [
      () => t.http().post('/api/v1/services').send({ name: 'x' }),
      () => t.http().put('/api/v1/services/x').send({ name: 'x' }),
      () => t.http().delete('/api/v1/services/x'),
      () => t.http().post('/api/v1/escalation-policies').send({}),
      () => t.http().put('/api/v1/escalation-policies/x').send({}),
      () => t.http().delete('/api/v1/escalation-policies/x'),
      () => t.http().post('/api/v1/schedules').send({}),
      () => t.http().put(`/api/v1/schedules/${schedule.id}`).send({}),
      () => t.http().delete(`/api/v1/schedules/${schedule.id}`),
    ];
    for (const write of writes) {
      expectError(await write().set(ANN), 403, 'This needs the oncall.admin role');
      expect((await write()).status).toBe(401);
    }
    for (const path of ['/api/v1/services', '/api/v1/escalation-policies', '/api/v1/schedules', `/api/v1/schedules/${schedule.id}`, `/api/v1/schedules/${schedule.id}/shifts`]) {
      await get(path, ANN).expect(200);
    }
  });
});

describe('integration keys of a service', () => {
  it('records the service a key names, shows it in the key, and refuses an unknown one (400)', async () => {
    const service = (await post('/api/v1/services', { name: unique('Storage') }).expect(201)).body;
    const created = await post('/api/v1/integration-keys', { name: 'prometheus', roles: ['timeline.writer'], service_id: service.id }).expect(201);
    expect(created.body.service_id).toBe(service.id);
    const listed = (await t.http().get('/api/v1/integration-keys').set(ADMIN).expect(200)).body.find((k: { id: string }) => k.id === created.body.id);
    expect(listed.service_id).toBe(service.id);
    expectError(await post('/api/v1/integration-keys', { name: 'prometheus', roles: ['timeline.writer'], service_id: 'missing' }), 400, 'service_id: service missing not found');
  });
});

describe('the ledger', () => {
  it('records every change of the configuration as an event of the oncall stream, by its administrator', async () => {
    const { id } = await createSchedule();
    await put(`/api/v1/schedules/${id}`, scheduleBody({ name: 'Renamed' })).expect(200);
    const override = (await post(`/api/v1/schedules/${id}/overrides`, { user: 'ann', start: '2026-05-01T08:00:00Z', end: '2026-05-01T09:00:00Z' }, ANN).expect(201)).body;
    await del(`/api/v1/schedules/${id}/overrides/${override.id}`, ANN).expect(204);
    await del(`/api/v1/schedules/${id}`).expect(204);
    const stream = await t.app.get<EventStore>(EVENT_STORE).readStream(ONCALL_STREAM);
    const own = stream.filter(({ event }) => [(event.data as { id?: string }).id, (event.data as { schedule_id?: string }).schedule_id].includes(id));
    expect(own.map(({ event }) => [event.type, event['im.actor']])).toEqual([
      ['im.oncall.schedule_created', 'ops-admin'],
      ['im.oncall.schedule_updated', 'ops-admin'],
      ['im.oncall.override_created', 'ann'],
      ['im.oncall.override_deleted', 'ann'],
      ['im.oncall.schedule_deleted', 'ops-admin'],
    ]);
    expect(own[1].event.data).toEqual({ id, name: 'Renamed', time_zone: 'Europe/Berlin', layers: [layer({ start: '2026-03-27T08:00:00.000Z' })] });
    // Each is linked into the ledger's chain.
    expect(own.every(({ ledger }) => ledger !== undefined)).toBe(true);
  });
});
