import { LiveStream, type Positioned, SlowConsumerError } from './live-stream';

const item = (position: number): Positioned<string> => ({ position: BigInt(position), value: `e${position}` });

async function* replayOf(...positions: number[]): AsyncGenerator<Positioned<string>> {
  for (const p of positions) yield item(p);
}

const take = async (stream: LiveStream<string>, n: number) => {
  const values: string[] = [];
  for (let i = 0; i < n; i++) values.push((await stream.next()).value as string);
  return values;
};

describe('LiveStream', () => {
  it('yields the replay, then live items, each once and only after its starting point', async () => {
    const stream = new LiveStream<string>(10, 2n, replayOf(3, 4, 5), () => undefined);
    // Offered while the replay runs: 5 is also in the replay, 6 and 7 are not.
    stream.offer(item(5));
    stream.offer(item(6));
    expect(await take(stream, 4)).toEqual(['e3', 'e4', 'e5', 'e6']);
    const waiting = stream.next();
    stream.offer(item(6));
    stream.offer(item(7));
    expect((await waiting).value).toBe('e7');
  });

  it('leaves out what precedes its starting point', async () => {
    const stream = new LiveStream<string>(10, 5n, undefined, () => undefined);
    stream.offer(item(4));
    stream.offer(item(5));
    stream.offer(item(6));
    expect(await take(stream, 1)).toEqual(['e6']);
  });

  it('fails with SlowConsumerError and unsubscribes once more than `limit` items wait', async () => {
    const unsubscribe = jest.fn();
    const stream = new LiveStream<string>(2, 0n, undefined, unsubscribe);
    [1, 2, 3].forEach((p) => stream.offer(item(p)));
    expect(unsubscribe).toHaveBeenCalledTimes(1);
    await expect(stream.next()).rejects.toBeInstanceOf(SlowConsumerError);
  });

  it('ends a waiting next() at once on return(), and unsubscribes', async () => {
    const unsubscribe = jest.fn();
    const stream = new LiveStream<string>(2, 0n, undefined, unsubscribe);
    const waiting = stream.next();
    await stream.return();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(unsubscribe).toHaveBeenCalledTimes(1);
    stream.offer(item(1));
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('rejects a waiting next() with the error it fails with', async () => {
    const stream = new LiveStream<string>(2, 0n, undefined, () => undefined);
    const waiting = stream.next();
    stream.fail(new Error('PDP unavailable'));
    await expect(waiting).rejects.toThrow('PDP unavailable');
  });
});
