import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PolicyDecisionPoint, PolicyInput } from '@im/policy';

export type FakeOpaMode = 'decide' | 'deny' | 'undefined' | 'slow' | 'error' | 'malformed';

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => resolve(text));
  });

/**
 * A local HTTP server that answers like OPA's data API. In `decide` mode it
 * delegates the decision to a given PDP, so the adapter's transport and
 * response handling are tested with real decisions.
 */
export async function startFakeOpa(delegate: PolicyDecisionPoint) {
  let mode: FakeOpaMode = 'decide';
  /** Added before every decision, whatever the mode: a PDP that answers correctly, but slowly. */
  let delayMs = 0;
  const inputs: PolicyInput[] = [];
  const server: Server = createServer(async (req, res) => {
    const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.method === 'GET' && req.url === '/health') return json(200, {});
    if (req.method !== 'POST' || req.url !== '/v1/data/incident/timeline/decisions') return json(404, { code: 'not_found' });
    const { input } = JSON.parse(await body(req)) as { input: PolicyInput };
    inputs.push(input);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    switch (mode) {
      case 'decide':
        return json(200, { result: await delegate.decide(input) });
      case 'deny':
        return json(200, { result: input.resources.map(() => ({ visible: false, redact: [] })) });
      case 'undefined':
        return json(200, {});
      case 'slow':
        return setTimeout(() => json(200, { result: [] }), 2000);
      case 'error':
        return json(500, { code: 'internal_error', message: 'eval failed' });
      case 'malformed':
        return json(200, { result: input.resources.map(() => ({ visible: 'yes' })) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inputs,
    setMode: (next: FakeOpaMode) => (mode = next),
    setDelay: (ms: number) => (delayMs = ms),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
