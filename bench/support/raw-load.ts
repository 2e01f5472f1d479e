import { connect, type Socket } from 'node:net';
import { type LoadResult, percentile } from './load';

/** One HTTP/1.1 request as the bytes a client writes. */
export function requestBytes(url: string, method: string, headers: Record<string, string>, body: string): Buffer {
  const { host, pathname, search } = new URL(url);
  const payload = Buffer.from(body);
  const lines = [`${method} ${pathname}${search} HTTP/1.1`, `host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `content-length: ${payload.length}`];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), payload]);
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Reads the responses of one keep-alive connection: calls `onResponse` with
 * each one's status. The api answers with a Content-Length; a response
 * without one is a failure of the run.
 */
function responses(socket: Socket, onResponse: (status: number) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      const end = pending.indexOf(HEADER_END);
      if (end < 0) return;
      const head = pending.toString('latin1', 0, end);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!length) throw new Error(`a response without Content-Length: ${head.slice(0, 200)}`);
      const total = end + HEADER_END.length + Number(length[1]);
      if (pending.length < total) return;
      pending = pending.subarray(total);
      onResponse(Number(head.slice(9, 12)));
    }
  });
}

/**
 * Sends prebuilt requests in order over `connections` keep-alive connections,
 * one in flight on each, for `seconds`. Unlike autocannon's per-request
 * `setupRequest`, the generator does the same work per request whatever the
 * requests hold (a write and a response read), so comparing two kinds of
 * request on shared cores compares what the server does with them.
 */
export async function rawLoad(url: string, requests: Buffer[], connections: number, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let non2xx = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));
  const { hostname, port } = new URL(url);
  await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<void>((resolve) => {
          const socket = connect(Number(port), hostname);
          socket.setNoDelay(true);
          let sent = 0n;
          const send = () => {
            if (process.hrtime.bigint() >= deadline || next >= requests.length) return socket.end(resolve);
            sent = process.hrtime.bigint();
            socket.write(requests[next++]);
          };
          responses(socket, (status) => {
            latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
            if (status < 200 || status > 299) non2xx++;
            send();
          });
          socket.on('error', () => {
            errors++;
            resolve();
          });
          socket.on('connect', send);
        }),
    ),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  if (next >= requests.length) throw new Error(`the run used all ${requests.length} prebuilt requests before its ${seconds} s were over: build more`);
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    errors,
    non2xx,
    seconds: elapsed,
  };
}
