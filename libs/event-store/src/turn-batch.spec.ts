import { TurnBatch } from './turn-batch';

describe('TurnBatch', () => {
  const batchOf = () => {
    const runs: string[][] = [];
    const batch = new TurnBatch<string, string>((keys) => {
      runs.push(keys);
      if (keys.includes('broken')) throw new Error('storage fault');
      return new Map(keys.map((key) => [key, key.toUpperCase()]));
    });
    return { runs, batch };
  };

  it('answers the reads of one turn, each awaited on its own way, with one run over the distinct keys', async () => {
    const { runs, batch } = batchOf();
    const first = batch.get('a');
    // Asked after a microtask of its own, as the second request of a poll asks after the first one's awaits.
    const second = Promise.resolve().then(() => Promise.resolve()).then(() => batch.get('b'));
    const again = batch.get('a');
    expect(await Promise.all([first, second, again])).toEqual(['A', 'B', 'A']);
    expect(runs).toEqual([['a', 'b']]);
  });

  it('starts another run for a read asked after the answer, and rejects only the reads of a run that failed', async () => {
    const { runs, batch } = batchOf();
    await batch.get('a');
    const failed = batch.get('broken');
    const sameRun = batch.get('c');
    await expect(failed).rejects.toThrow('storage fault');
    await expect(sameRun).rejects.toThrow('storage fault');
    expect(await batch.get('d')).toBe('D');
    expect(runs).toEqual([['a'], ['broken', 'c'], ['d']]);
  });
});
