/**
 * Reads asked for in the same turn of the event loop answered by one query:
 * `run` gets the distinct keys once the turn's callbacks have run (in
 * setImmediate) and answers each. A turn holds the alerts of one payload, and
 * the requests whose bytes arrived in the same poll: under load, answering at
 * the end of each microtask queue instead ran one read transaction per request
 * (a dedup lookup cost the event loop about 22 µs, the lookup itself about 2;
 * docs/benchmarks.md, "Early morning of 2026-11-28"). `run` may answer
 * later (a query over the network: PostgresEventStore's dedup lookups).
 */
export class TurnBatch<K, V> {
  private waiting = new Map<K, { resolve: (value: V) => void; reject: (error: unknown) => void }[]>();

  constructor(private readonly run: (keys: K[]) => Map<K, V> | Promise<Map<K, V>>) {}

  get(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) setImmediate(() => this.answer());
      const others = this.waiting.get(key);
      if (others) others.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
    });
  }

  private answer(): void {
    const waiting = this.waiting;
    this.waiting = new Map();
    const answered = (found: Map<K, V>) => waiting.forEach((callers, key) => callers.forEach(({ resolve }) => resolve(found.get(key) as V)));
    const failed = (error: unknown) => waiting.forEach((callers) => callers.forEach(({ reject }) => reject(error)));
    let found: Map<K, V> | Promise<Map<K, V>>;
    try {
      found = this.run([...waiting.keys()]);
    } catch (error) {
      return failed(error);
    }
    if (found instanceof Map) answered(found);
    else found.then(answered, failed);
  }
}
