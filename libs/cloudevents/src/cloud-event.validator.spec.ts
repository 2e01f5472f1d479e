import { checkCloudEvent } from './cloud-event.validator';

const valid = {
  specversion: '1.0',
  id: '6f1c5a52-1c1e-4f3e-9a51-3c7f2b1f0a11',
  source: 'im://monitoring',
  type: 'im.alert.trigger',
  time: '2026-11-22T10:00:00.123+02:00',
  subject: 'incident/INC-0000beef',
  data: { title: 'Disk full', severity: 'SEV-2', service: 'db' },
  'im.actor': 'prometheus',
  'im.origin_id': 'alert-42',
  'im.correlation_key': 'db-cluster-1',
  'im.fingerprint': 'disk:db-1',
  'im.data_class': ['pii', 'legal_hold'],
  'im.visibility': 'restricted',
  'x-custom-extension': 'kept',
};

const errorsOf = (body: unknown) => {
  const result = checkCloudEvent(body);
  return result.ok ? [] : result.errors;
};

describe('checkCloudEvent', () => {
  it('accepts a full event, other extension attributes included', () => {
    expect(checkCloudEvent(valid)).toEqual({ ok: true, event: valid });
  });

  it('accepts the minimum: specversion, id, source, type, time', () => {
    const { specversion, id, source, type, time } = valid;
    expect(checkCloudEvent({ specversion, id, source, type, time }).ok).toBe(true);
  });

  it.each([
    [{ specversion: '0.3' }, 'specversion must be "1.0"'],
    [{ id: '' }, 'id must NOT have fewer than 1 characters'],
    [{ source: '' }, 'source must NOT have fewer than 1 characters'],
    [{ type: 'incident.trigger' }, 'type must start with "im."'],
    [{ time: 'yesterday' }, 'time must be an RFC 3339 timestamp with a time zone'],
    [{ time: '2026-11-22T10:00:00' }, 'time must be an RFC 3339 timestamp with a time zone'],
    [{ subject: 'ticket/42' }, 'subject must be incident/<incident_id>'],
    [{ data: 'text' }, 'data must be object'],
    [{ data: [1] }, 'data must be object'],
    [{ 'im.data_class': 'pii' }, 'im.data_class must be array'],
    [{ 'im.data_class': ['pii', 'secret'] }, 'im.data_class.1 must be one of pii, phi, legal_hold'],
    [{ 'im.visibility': 'secret' }, 'im.visibility must be one of public, internal, restricted, confidential'],
    [{ 'im.actor': 7 }, 'im.actor must be string'],
  ])('refuses %j: %s', (change, message) => {
    expect(errorsOf({ ...valid, ...change })).toContain(message);
  });

  it.each(['specversion', 'id', 'source', 'type', 'time'])('requires %s', (field) => {
    const body: Record<string, unknown> = { ...valid };
    delete body[field];
    expect(errorsOf(body)).toContain(`${field} is required`);
  });

  it.each([[null], [[valid]], ['event'], [42]])('refuses a body that is not one JSON object: %j', (body) => {
    expect(errorsOf(body)[0]).toMatch(/one CloudEvent as a JSON object/);
  });

  it('refuses an event over 64 KiB as too large, and accepts one just under', () => {
    const big = checkCloudEvent({ ...valid, data: { content: 'x'.repeat(64 * 1024) } });
    expect(big).toMatchObject({ ok: false, tooLarge: true });
    const fits = checkCloudEvent({ ...valid, data: { content: 'x'.repeat(60 * 1024) } });
    expect(fits.ok).toBe(true);
  });
});
