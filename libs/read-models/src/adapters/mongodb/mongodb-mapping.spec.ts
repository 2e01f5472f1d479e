import { fromHex, hex } from './mongodb-read-store';

describe('MongoDB position encoding (checked without a server)', () => {
  it('round-trips positions up to 128 bits', () => {
    for (const position of [0n, 1n, 2n ** 53n + 1n, (2n ** 64n - 1n) << 64n | 12345n]) expect(fromHex(hex(position))).toBe(position);
  });

  it('orders encoded positions as strings exactly as the numbers order', () => {
    const positions = [0n, 9n, 10n, 255n, 256n, 2n ** 64n, (1n << 127n) + 5n];
    const encoded = positions.map(hex);
    expect([...encoded].sort()).toEqual(encoded);
  });
});
