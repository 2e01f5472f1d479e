import { parseMyIncidentsLimit } from './my-incidents.args';

describe('parseMyIncidentsLimit (myIncidents(limit:))', () => {
  it.each([
    [undefined, 20],
    [null, 20],
    [1, 1],
    [100, 100],
  ])('reads %j as %d', (requested, limit) => {
    expect(parseMyIncidentsLimit(requested)).toBe(limit);
  });

  it.each([0, -1, 101, 2.5])('refuses %d', (requested) => {
    expect(() => parseMyIncidentsLimit(requested)).toThrow(expect.objectContaining({ kind: 'invalid', message: 'limit must be from 1 to 100' }));
  });
});
