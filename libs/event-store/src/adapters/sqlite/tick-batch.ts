/**
 * Reads asked for in the same tick (the alerts of one payload, each on its
 * own way through the write path) answered by one query: `run` gets the
 * distinct keys once the tick's synchronous work is done and answers each.
 */
export class TickBatch<K, V> {
  private waiting = new Map<K, { resolve: (value: V) => void; reject: (error: unknown) => void }[]>();

  constructor(private readonly run: (keys: K[]) => Map<K, V>) {}

  get(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) queueMicrotask(() => this.answer());
      const others = this.waiting.get(key);
      if (others) others.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
    });
  }

  private answer(): void {
    const waiting = this.waiting;
    this.waiting = new Map();
    try {
      const found = this.run([...waiting.keys()]);
      waiting.forEach((callers, key) => callers.forEach(({ resolve }) => resolve(found.get(key) as V)));
    } catch (error) {
      waiting.forEach((callers) => callers.forEach(({ reject }) => reject(error)));
    }
  }
}
