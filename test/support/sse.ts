import { EventSource } from 'eventsource';

export interface Received {
  id: string;
  type: string;
  data: any;
}

/**
 * A live stream read with the `eventsource` package, the WHATWG client for
 * Node: the token goes through its `fetch` option (EventSource itself cannot
 * send headers), and it reconnects with Last-Event-ID by itself.
 */
export class SseClient {
  readonly source: EventSource;
  readonly received: Received[] = [];
  readonly opened: Promise<void>;
  /** Connection errors the client reported (it retries after each, unless the answer was not 200). */
  errors = 0;

  constructor(url: string, jwt: string | undefined, types: string[], headers: Record<string, string> = {}) {
    this.source = new EventSource(url, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...headers, ...(jwt ? { authorization: `Bearer ${jwt}` } : {}) } }),
    });
    for (const type of types) {
      this.source.addEventListener(type, (event) => this.received.push({ id: event.lastEventId, type, data: JSON.parse(event.data) }));
    }
    this.source.onerror = () => (this.errors += 1);
    this.opened = new Promise((resolve, reject) => {
      this.source.onopen = () => resolve();
      this.source.addEventListener('error', (event) => {
        if (this.source.readyState === this.source.CLOSED) reject(new Error(`stream refused: ${String((event as { code?: number }).code)}`));
      });
    });
  }

  /** Resolves once `count` events have arrived; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.received.length} of ${count} events after ${timeoutMs} ms: ${JSON.stringify(this.received.map((r) => r.data))}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.received.slice(0, count);
  }

  close(): void {
    this.source.close();
  }
}

/** The raw text of a stream until `until` matches it or the server ends it (fetch, for what EventSource hides: comments, the error event). */
export async function readStream(url: string, headers: Record<string, string>, until: RegExp, timeoutMs = 10_000): Promise<{ status: number; text: string; ended: boolean }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const response = await fetch(url, { headers, signal: controller.signal });
  let text = '';
  let ended = false;
  try {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      text += decoder.decode(value, { stream: true });
      if (until.test(text)) break;
    }
    await reader.cancel();
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
  }
  return { status: response.status, text, ended };
}
