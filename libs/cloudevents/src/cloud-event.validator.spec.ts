import { checkCloudEvent } from './cloud-event.validator';
import { TIMESTAMP_RULE } from './timestamp';

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
    [{ time: 'yesterday' }, `time must be ${TIMESTAMP_RULE}`],
    [{ time: '2026-11-22T10:00:00' }, `time must be ${TIMESTAMP_RULE}`],
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

describe('checkCloudEvent time: exactly what the read side can order', () => {
  it.each([
    ['2016-12-31T23:59:60Z', 'a leap second'],
    ['2026-11-22T10:00:00+01', 'an hour-only offset'],
    ['2026-11-22T10:00:00+0100', 'an offset without a colon'],
    ['2026-02-30T00:00:00Z', 'February 30th'],
    ['2025-02-29T00:00:00Z', 'February 29th of a common year'],
    ['2026-04-31T00:00:00Z', 'April 31st'],
    ['2026-13-01T00:00:00Z', 'month 13'],
    ['2026-11-22T24:00:00Z', 'hour 24'],
    ['2026-11-22T10:60:00Z', 'minute 60'],
    ['2026-11-22T10:00:00+24:00', 'an offset of 24 hours'],
    ['0000-01-01T00:00:00+01:00', 'an instant before year 0000'],
  ])('refuses %s (%s) with the rule it breaks', (time) => {
    expect(errorsOf({ ...valid, time })).toEqual([`time must be ${TIMESTAMP_RULE}`]);
  });

  it.each(['2024-02-29T23:59:59.999Z', '2026-11-22t10:00:00z', '2026-11-22T10:00:00.123456789-09:30', '2026-11-22T10:00:00-00:00'])(
    'accepts %s',
    (time) => {
      expect(checkCloudEvent({ ...valid, time }).ok).toBe(true);
    },
  );
});

describe('checkCloudEvent data of other media types', () => {
  const { specversion, id, source, type, time } = valid;
  const minimal = { specversion, id, source, type, time };

  it('accepts data_base64 with any media type, and stores a text data string of a non-JSON type as its bytes', () => {
    expect(checkCloudEvent({ ...minimal, datacontenttype: 'image/png', data_base64: 'iVBORw0KGgo=' }).ok).toBe(true);
    expect(checkCloudEvent({ ...minimal, datacontenttype: 'text/plain; charset=utf-8', data: 'Zoë' })).toEqual({
      ok: true,
      event: { ...minimal, datacontenttype: 'text/plain; charset=utf-8', data_base64: Buffer.from('Zoë').toString('base64') },
    });
  });

  it.each([
    [{ data: {}, data_base64: 'AA==' }, 'an event carries data or data_base64, not both'],
    [{ datacontenttype: 'text/plain', data: { a: 1 } }, 'data is a JSON object, so datacontenttype must be a JSON media type, not text/plain (send other content as data_base64)'],
    [{ data_base64: 'not base64' }, 'data_base64 must be base64'],
    [{ datacontenttype: 'json' }, 'datacontenttype must be a media type (type/subtype)'],
    [{ data: 'text' }, 'data must be object'],
  ])('refuses %j', (change, message) => {
    expect(errorsOf({ ...minimal, ...change })).toEqual([message]);
  });
});
