import { parseSelfTest } from './self-test.query';

describe('parseSelfTest (GET /api/v1/validate?self_test=)', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['true', true],
  ])('reads %j as %s', (selfTest, expected) => {
    expect(parseSelfTest(selfTest)).toBe(expected);
  });

  it.each(['1', 'TRUE', '', ['true', 'true']])('refuses %j', (selfTest) => {
    expect(() => parseSelfTest(selfTest)).toThrow(expect.objectContaining({ kind: 'invalid', message: 'self_test must be true or false' }));
  });
});
