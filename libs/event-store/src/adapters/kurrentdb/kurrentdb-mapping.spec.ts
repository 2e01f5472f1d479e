import { eventUuid, packPosition, unpackPosition } from './kurrentdb-event-store';

const event = (id: string, source = 'im://x') => ({ specversion: '1.0' as const, id, source, type: 'im.test', time: '2026-11-22T00:00:00Z' });

describe('KurrentDB mapping (checked without a server)', () => {
  it('packs {commit, prepare} into one bigint and back, losslessly, for 64-bit values', () => {
    for (const position of [
      { commit: 0n, prepare: 0n },
      { commit: 1234n, prepare: 1200n },
      { commit: 2n ** 63n - 1n, prepare: 2n ** 63n - 1n },
    ]) {
      expect(unpackPosition(packPosition(position))).toEqual(position);
    }
  });

  it('orders packed positions as the log does: by commit, then prepare', () => {
    const positions = [
      { commit: 10n, prepare: 9n },
      { commit: 10n, prepare: 10n },
      { commit: 11n, prepare: 1n },
      { commit: 2n ** 40n, prepare: 0n },
    ];
    const packed = positions.map(packPosition);
    expect([...packed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(packed);
  });

  it('derives the same RFC 4122 version-5-style UUID for the same (stream, source, id), and different ones otherwise', () => {
    const uuid = eventUuid(event('a'), 'incident-INC-00000001');
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(eventUuid(event('a'), 'incident-INC-00000001')).toBe(uuid);
    expect(eventUuid(event('b'), 'incident-INC-00000001')).not.toBe(uuid);
    expect(eventUuid(event('a', 'im://y'), 'incident-INC-00000001')).not.toBe(uuid);
    expect(eventUuid(event('a'), 'incident-INC-00000002')).not.toBe(uuid);
  });
});
