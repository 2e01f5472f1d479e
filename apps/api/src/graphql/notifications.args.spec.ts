import { parseNotificationsLimit } from './notifications.args';

describe('parseNotificationsLimit (notifications(limit:))', () => {
  it.each([
    [undefined, 50],
    [null, 50],
    [1, 1],
    [100, 100],
  ])('reads %j as %d', (requested, limit) => {
    expect(parseNotificationsLimit(requested)).toBe(limit);
  });

  it.each([0, -1, 101, 2.5])('refuses %d', (requested) => {
    expect(() => parseNotificationsLimit(requested)).toThrow(expect.objectContaining({ kind: 'invalid', message: 'limit must be from 1 to 100' }));
  });
});
