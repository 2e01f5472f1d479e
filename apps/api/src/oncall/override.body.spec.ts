import { TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';
import { parseOverrideBody } from './override.body';

describe('parseOverrideBody', () => {
  it('gives the user and the times in UTC', () => {
    expect(parseOverrideBody({ user: 'cy', start: '2026-04-01T10:00:00+02:00', end: '2026-04-01T20:00:00Z' })).toEqual({
      user: 'cy',
      start: '2026-04-01T08:00:00.000Z',
      end: '2026-04-01T20:00:00.000Z',
    });
  });

  it.each([
    [{ start: '2026-04-01T10:00:00Z', end: '2026-04-01T20:00:00Z' }, 'user is required and must be a string'],
    [{ user: 'cy', start: '2026-04-01', end: 5 }, `start must be ${TIMESTAMP_RULE}; end must be ${TIMESTAMP_RULE}`],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseOverrideBody(body)).toThrow(new InvalidError(message));
  });
});
