import { randomIds } from './id-generator';

describe('randomIds.eventId', () => {
  it('draws UUIDs of version 7 that sort in the order they were drawn, so their dedup keys land together', async () => {
    const drawn: string[] = [];
    for (let i = 0; i < 500; i++) {
      drawn.push(randomIds.eventId());
      if (i % 100 === 0) await new Promise((r) => setTimeout(r, 2));
    }
    for (const id of drawn) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(drawn).size).toBe(drawn.length);
    expect([...drawn].sort()).toEqual(drawn);
  });
});
