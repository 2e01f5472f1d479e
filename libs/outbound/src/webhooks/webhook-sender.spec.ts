import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { neverAcceptingListener } from '../../../../test/support/never-accepting-listener';
import { newWebhookSecret } from './webhook-secret';
import { DESTINATION_TTL_MS, WebhookEndpoint, WebhookSender } from './webhook-sender';

// The real resolver, counted.
jest.mock('node:dns/promises', () => {
  const actual = jest.requireActual('node:dns/promises');
  return { ...actual, lookup: jest.fn(actual.lookup) };
});

describe('WebhookSender', () => {
  let server: Server;
  let url: string;
  const requests: { headers: Record<string, unknown>; body: string }[] = [];
  let answer: 'ok' | 'hang' | 'close' | 'long' | 'slow' = 'ok';

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk)).on('end', () => {
        requests.push({ headers: req.headers, body });
        if (answer === 'ok') res.writeHead(200).end();
        if (answer === 'close') req.socket.destroy();
        if (answer === 'long') res.writeHead(200).end(Buffer.alloc(1024 * 1024, 'x'));
        if (answer === 'slow') setTimeout(() => res.writeHead(200).end(), 300);
      });
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    requests.length = 0;
    answer = 'ok';
  });

  /** Until `count` requests arrived; fails after 2 s (a regression fails, rather than holding the run). */
  const arrived = async (count: number) => {
    for (const until = Date.now() + 2000; requests.length < count; await new Promise((resolve) => setTimeout(resolve, 10))) {
      if (Date.now() > until) throw new Error(`${requests.length} of ${count} requests arrived`);
    }
  };

  const secret = newWebhookSecret();
  const endpoint = (to: string) => new WebhookEndpoint(to, secret);
  const body = '{"id":"e1"}';

  it('refuses a private address at delivery (WEBHOOK_ALLOW_PRIVATE_NETWORKS off): nothing is sent, blocked_address is recorded', async () => {
    const sender = new WebhookSender({ timeoutMs: 2000, connections: 4, allowPrivateNetworks: false });
    for (const to of [url, url.replace('127.0.0.1', '[::ffff:127.0.0.1]'), url.replace('127.0.0.1', 'localhost'), url.replace('127.0.0.1', '2130706433')]) {
      expect(await sender.send(endpoint(to), 'msg_1', body, new AbortController().signal)).toEqual({ statusCode: null, error: 'blocked_address' });
    }
    expect(requests).toHaveLength(0);
  });

  it('sends a signed request the reference library verifies when private networks are allowed', async () => {
    const sender = new WebhookSender({ timeoutMs: 2000, connections: 4, allowPrivateNetworks: true });
    expect(await sender.send(endpoint(url), 'msg_1', body, new AbortController().signal)).toEqual({ statusCode: 200, error: null });
    expect(new Webhook(secret).verify(requests[0].body, requests[0].headers as Record<string, string>)).toEqual({ id: 'e1' });
  });

  it('gives up on an endpoint that does not answer within the timeout', async () => {
    answer = 'hang';
    const sender = new WebhookSender({ timeoutMs: 300, connections: 4, allowPrivateNetworks: true });
    const started = Date.now();
    expect(await sender.send(endpoint(url), 'msg_1', body, new AbortController().signal)).toEqual({ statusCode: null, error: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('waits for a connection as long as the timeout allows, past undici\'s own 10 s connect limit', async () => {
    const listener = await neverAcceptingListener();
    try {
      const sender = new WebhookSender({ timeoutMs: 12_000, connections: 4, allowPrivateNetworks: true });
      // Without the pool's connect timeout set past the attempt's, undici gives up at about 10.5 s: connect_timeout.
      expect(await sender.send(endpoint(`http://127.0.0.1:${listener.port}/hook`), 'msg_1', body, new AbortController().signal)).toEqual({ statusCode: null, error: 'timeout' });
    } finally {
      listener.close();
    }
  }, 20_000);

  it('records why no answer came: the receiver closed the connection, or refused it', async () => {
    const sender = new WebhookSender({ timeoutMs: 2000, connections: 4, allowPrivateNetworks: true });
    answer = 'close';
    expect(await sender.send(endpoint(url), 'msg_1', body, new AbortController().signal)).toEqual({ statusCode: null, error: 'connection_closed' });
    const closed = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const refusing = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hook`;
    await new Promise((resolve) => closed.close(resolve));
    expect(await sender.send(endpoint(refusing), 'msg_1', body, new AbortController().signal)).toEqual({ statusCode: null, error: 'econnrefused' });
  });

  it('counts an answer by its status however long its body (read only up to 64 KiB)', async () => {
    answer = 'long';
    const sender = new WebhookSender({ timeoutMs: 2000, connections: 4, allowPrivateNetworks: true });
    expect(await sender.send(endpoint(url), 'msg_1', body, new AbortController().signal)).toEqual({ statusCode: 200, error: null });
  });

  it('stops a request in flight when the worker stops (aborted: not recorded, delivered again after the restart)', async () => {
    answer = 'hang';
    const sender = new WebhookSender({ timeoutMs: 60_000, connections: 4, allowPrivateNetworks: true });
    const stopping = new AbortController();
    const sent = sender.send(endpoint(url), 'msg_1', body, stopping.signal);
    await arrived(1);
    stopping.abort();
    expect(await sent).toEqual({ statusCode: null, error: 'aborted' });
  });

  it('sends several attempts to one registration side by side (re-sends after an outage do not queue into timeouts)', async () => {
    answer = 'slow';
    const sender = new WebhookSender({ timeoutMs: 1000, connections: 4, allowPrivateNetworks: true });
    const to = endpoint(url);
    const sent = await Promise.all([1, 2, 3, 4].map((i) => sender.send(to, `msg_${i}`, body, new AbortController().signal)));
    expect(sent).toEqual([1, 2, 3, 4].map(() => ({ statusCode: 200, error: null })));
    to.destroy();
  });

  it('ends an attempt queued behind hanging ones at its own timeout, or at once when the worker stops', async () => {
    answer = 'hang';
    const to = endpoint(url);
    const hanging = new AbortController();
    const first = Promise.all([1, 2, 3, 4].map((i) => new WebhookSender({ timeoutMs: 60_000, connections: 4, allowPrivateNetworks: true }).send(to, `msg_${i}`, body, hanging.signal)));
    await arrived(4);
    const started = Date.now();
    expect(await new WebhookSender({ timeoutMs: 300, connections: 4, allowPrivateNetworks: true }).send(to, 'msg_5', body, new AbortController().signal)).toEqual({ statusCode: null, error: 'timeout' });
    const stopping = new AbortController();
    const queued = new WebhookSender({ timeoutMs: 60_000, connections: 4, allowPrivateNetworks: true }).send(to, 'msg_6', body, stopping.signal);
    stopping.abort();
    expect(await queued).toEqual({ statusCode: null, error: 'aborted' });
    expect(Date.now() - started).toBeLessThan(2000);
    hanging.abort();
    expect(await first).toEqual([1, 2, 3, 4].map(() => ({ statusCode: null, error: 'aborted' })));
    expect(requests).toHaveLength(4);
    to.destroy();
  });

  it('counts an attempt cut by the registration\'s removal (its endpoint destroyed) as stopped, not as a failure to log', async () => {
    answer = 'hang';
    const to = endpoint(url);
    const sent = new WebhookSender({ timeoutMs: 60_000, connections: 4, allowPrivateNetworks: true }).send(to, 'msg_1', body, new AbortController().signal);
    await arrived(1);
    to.destroy();
    expect(await sent).toEqual({ statusCode: null, error: 'aborted' });
  });

  it('keeps a registration\'s connections open from one delivery to the next', async () => {
    const sender = new WebhookSender({ timeoutMs: 2000, connections: 4, allowPrivateNetworks: true });
    const to = endpoint(url);
    const sockets = new Set<unknown>();
    server.on('request', (req) => sockets.add(req.socket));
    for (let i = 0; i < 10; i += 1) expect(await sender.send(to, `msg_${i}`, body, new AbortController().signal)).toEqual({ statusCode: 200, error: null });
    // undici's pool opens a second connection for the second request in a row, then keeps both.
    expect(sockets.size).toBeLessThanOrEqual(2);
    to.destroy();
  });

  it('resolves and checks a host name again only once its checked address is DESTINATION_TTL_MS old', async () => {
    const lookups = jest.mocked(lookup);
    lookups.mockClear();
    let now = 1_000_000;
    const sender = new WebhookSender({ timeoutMs: 2000, connections: 4, allowPrivateNetworks: true, now: () => now });
    const to = endpoint(url.replace('127.0.0.1', 'localhost'));
    const send = () => sender.send(to, 'msg_1', body, new AbortController().signal);
    try {
      expect(await send()).toEqual({ statusCode: 200, error: null });
      now += DESTINATION_TTL_MS - 1;
      expect(await send()).toEqual({ statusCode: 200, error: null });
      expect(lookups).toHaveBeenCalledTimes(1);
      now += 2;
      expect(await send()).toEqual({ statusCode: 200, error: null });
      expect(lookups).toHaveBeenCalledTimes(2);
    } finally {
      to.destroy();
    }
  });
});
