import { typeMatches } from './webhook-channel';

describe('typeMatches', () => {
  it.each([
    ['*', 'im.incident.note', true],
    ['im.incident.*', 'im.incident.note', true],
    ['im.incident.*', 'im.alert.trigger', false],
    ['im.incident.note', 'im.incident.note', true],
    ['im.incident.note', 'im.incident.notes', false],
  ])('%s matches %s: %s', (pattern, type, expected) => {
    expect(typeMatches(pattern, type)).toBe(expected);
  });
});
