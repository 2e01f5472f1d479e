import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { LINGER_BYTES } from '../apps/api/src/http/http-hardening';
import { BODY_LIMIT_BYTES } from '../apps/api/src/http/json-body.parser';
import { startTestApp, type TestApp } from './support/app';

jest.setTimeout(120_000);

/**
 * A body over the limit is answered 413 and its connection closed gracefully
 * (apps/api/src/http/http-hardening.ts, registerLingeringClose): the rest of it
 * is read and discarded before the close, so a client still sending sees the
 * status, never a reset. Real clients against the real server, on every route
 * that takes a body: Node's fetch (undici) streaming the body slowly, and a
 * client that writes its whole request before it reads the answer, as many do.
 */
const TOTAL = Math.round(BODY_LIMIT_BYTES * 1.2);
const CHUNK = 64 * 1024;
const PAUSE_MS = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TOO_LARGE = { error: 'Request body is too large', status: 413 };

let t: TestApp;
let port: number;
/** Every route that reads a body, as the OpenAPI document lists them, and GraphQL. */
let routes: { method: string; path: string; contentType: string }[];

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen(0, '127.0.0.1');
  port = (t.app.getHttpServer().address() as AddressInfo).port;
  const document = (await t.http().get('/api/v1/openapi.json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations)
      .filter((method) => ['post', 'put', 'patch', 'delete'].includes(method))
      .map((method) => ({
        method: method.toUpperCase(),
        path: path.replace(/\{[^}]+\}/g, 'x0'),
        contentType: path === '/api/v1/timeline/events' ? 'application/cloudevents-batch+json' : 'application/json',
      })),
  );
  routes.push({ method: 'POST', path: '/api/v1/graphql', contentType: 'application/json' });
});
afterAll(() => t.close());

it('finds the routes to try', () => {
  expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /api/v1/timeline/events', 'POST /api/v1/incidents', 'POST /api/v1/webhooks', 'POST /api/v1/graphql']));
});

/** A JSON array as long as TOTAL, in chunks. */
function* bodyChunks(): Generator<Buffer> {
  const body = Buffer.from(`[${'"x",'.repeat((TOTAL - 6) / 4)}"x"]`.padEnd(TOTAL, ' '));
  for (let at = 0; at < body.length; at += CHUNK) yield body.subarray(at, at + CHUNK);
}

/** The client's event loop busy for a moment, as a loaded client's is: it reads from its sockets only in between. */
const busy = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

describe("Node's fetch, streaming a body over the limit with pauses", () => {
  it('gets 413 on every route, never a reset', async () => {
    const answers = [];
    for (const route of routes) {
      const chunks = bodyChunks();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await sleep(PAUSE_MS);
          busy(PAUSE_MS);
          const next = chunks.next();
          if (next.done) return controller.close();
          controller.enqueue(next.value);
        },
      });
      const answer = await fetch(`http://127.0.0.1:${port}${route.path}`, { method: route.method, headers: { 'content-type': route.contentType }, body, duplex: 'half' } as RequestInit).then(
        async (res) => ({ status: res.status, body: await res.json() }),
        (error: Error) => ({ status: `${error.message}: ${String((error.cause as Error | undefined)?.message)}` }),
      );
      answers.push({ route: `${route.method} ${route.path}`, ...answer });
    }
    expect(answers).toEqual(routes.map((route) => ({ route: `${route.method} ${route.path}`, status: 413, body: TOO_LARGE })));
  });
});

/** Writes the request (with Content-Length, or chunked), pausing between chunks, and reads nothing until it has all been written. */
function sendThenRead(route: { method: string; path: string; contentType: string }, chunked: boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    // The answer waits in the socket until the request is written.
    socket.pause();
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(`${error.code}: ${received.split('\r\n')[0]}`));
    socket.on('end', () => resolve(received));
    socket.on('connect', async () => {
      const length = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${TOTAL}`;
      socket.write(`${route.method} ${route.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${route.contentType}\r\n${length}\r\n\r\n`);
      for (const chunk of bodyChunks()) {
        if (socket.destroyed) return;
        socket.write(chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk);
        await sleep(PAUSE_MS);
      }
      if (chunked) socket.write('0\r\n\r\n');
      socket.resume();
    });
  });
}

describe('a client that writes its whole request before reading the answer', () => {
  it.each([
    ['with Content-Length (refused before the body is read)', false],
    ['chunked (refused once 1 MiB has arrived)', true],
  ])('gets 413 and the error body on every route, %s', async (_, chunked) => {
    const answers = [];
    for (const route of routes) {
      const raw = await sendThenRead(route, chunked);
      answers.push({ route: `${route.method} ${route.path}`, status: raw.split('\r\n')[0], body: raw.slice(raw.indexOf('\r\n\r\n') + 4) });
    }
    expect(answers).toEqual(routes.map((route) => ({ route: `${route.method} ${route.path}`, status: 'HTTP/1.1 413 Payload Too Large', body: JSON.stringify(TOO_LARGE) })));
  });
});

describe('a sender that does not stop', () => {
  it('gets 413, and the connection is closed after at most LINGER_BYTES more, not read to its end', async () => {
    const declared = 64 * BODY_LIMIT_BYTES;
    const outcome = await new Promise<{ status: string; sent: number }>((resolve) => {
      // It goes on sending after the server's FIN.
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      let received = '';
      let sent = 0;
      const finish = () => resolve({ status: received.split('\r\n')[0], sent });
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.on('error', finish);
      socket.on('close', finish);
      socket.on('connect', async () => {
        socket.write(`POST /api/v1/incidents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
        const chunk = Buffer.alloc(CHUNK, ' ');
        while (!socket.destroyed && sent < declared) {
          sent += chunk.length;
          if (!socket.write(chunk)) await new Promise((drained) => socket.once('drain', drained).once('close', drained));
        }
      });
    });
    expect(outcome.status).toBe('HTTP/1.1 413 Payload Too Large');
    // Read past the refusal (the lingering close), then cut at the bound.
    expect(outcome.sent).toBeGreaterThan(LINGER_BYTES);
    expect(outcome.sent).toBeLessThan(declared / 2);
  });
});
