import { normaliseAttributeNames, resembledAttribute } from './attribute-names';
import { checkCloudEvent } from './cloud-event.validator';

const base = { specversion: '1.0', id: 'e-1', source: 'im://x', type: 'im.alert.trigger', time: '2026-11-22T10:00:00Z' };

describe('normaliseAttributeNames', () => {
  it('rewrites every alias to the seed name, keeping the order and the value', () => {
    const result = normaliseAttributeNames({ ...base, imactor: 'a', imoriginid: 'o', imcorrelationkey: 'c', imfingerprint: 'f', imdataclass: ['pii'], imvisibility: 'restricted' });
    expect(result).toEqual({
      ok: true,
      event: { ...base, 'im.actor': 'a', 'im.origin_id': 'o', 'im.correlation_key': 'c', 'im.fingerprint': 'f', 'im.data_class': ['pii'], 'im.visibility': 'restricted' },
    });
  });

  it.each([
    ['pii', ['pii']],
    ['pii, legal_hold', ['pii', 'legal_hold']],
    ['pii,phi ,', ['pii', 'phi']],
  ])('reads imdataclass %j (one comma-separated string, as repeated headers arrive) as %j', (value, classes) => {
    expect(normaliseAttributeNames({ ...base, imdataclass: value })).toEqual({ ok: true, event: { ...base, 'im.data_class': classes } });
  });

  it('accepts both spellings with the same value, refuses them with different values', () => {
    expect(normaliseAttributeNames({ ...base, 'im.data_class': ['pii', 'phi'], imdataclass: 'pii, phi' }).ok).toBe(true);
    expect(normaliseAttributeNames({ ...base, 'im.visibility': 'public', imvisibility: 'confidential' })).toEqual({
      ok: false,
      errors: ['imvisibility and im.visibility are one attribute spelt two ways, with different values'],
    });
  });

  it('gives back the same object when there is nothing to rewrite', () => {
    const event = { ...base, 'im.actor': 'a', impact: 'high' };
    expect(normaliseAttributeNames(event)).toEqual({ ok: true, event });
  });

  it('keeps a __proto__ key a plain key', () => {
    const event = JSON.parse('{"__proto__": {"polluted": true}, "imactor": "a"}') as Record<string, unknown>;
    const result = normaliseAttributeNames(event);
    expect(result.ok && Object.getPrototypeOf(result.event)).toBe(Object.prototype);
  });
});

describe('resembledAttribute: an unknown im.<x> or im<x> within edit distance 2 of a service attribute', () => {
  it.each([
    ['imvisiblity', 'imvisibility'],
    ['im.visibilty', 'imvisibility'],
    ['im.visibility_', 'imvisibility'],
    ['imfingerprnt', 'imfingerprint'],
    ['im.finger_print', 'imfingerprint'],
    ['imorigin', 'imoriginid'],
    ['im.origin-id', 'imoriginid'],
    ['imactors', 'imactor'],
    ['imcorelationkey', 'imcorrelationkey'],
    ['imdata_classes', 'imdataclass'],
    ['imVisibility', 'imvisibility'],
  ])('%s resembles %s', (name, alias) => {
    expect(resembledAttribute(name)).toBe(alias);
  });

  it.each(['impact', 'image', 'imports', 'im.redacted', 'im.test', 'im.other', 'imactor', 'im.actor', 'x-imvisiblity', 'visiblity', 'id', 'data_base64'])('%s is not a misspelling', (name) => {
    expect(resembledAttribute(name)).toBeUndefined();
  });

  it('makes checkCloudEvent refuse the event, naming the attribute meant', () => {
    expect(checkCloudEvent({ ...base, imvisiblity: 'confidential' })).toEqual({
      ok: false,
      tooLarge: false,
      errors: ['imvisiblity is not an attribute of the service: did you mean imvisibility (im.visibility)?'],
    });
  });
});
