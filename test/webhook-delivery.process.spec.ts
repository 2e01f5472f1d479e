import { randomUUID } from 'node:crypto';
import { post } from './support/fetch-json';
import { type ServerProcess, startProjector, startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(120_000);

/**
 * kill -9 of the process that delivers, in the middle of a storm of appends,
 * then a restart on the same data directory: every event the api
 * acknowledged reaches the receiver at least once, none is skipped, and each
 * incident's events arrive (first) in ledger order. Once with the api
 * delivering (PROJECTOR=embedded), once with apps/projector delivering
 * (PROJECTOR=external), the api then never delivering itself.
 */
const ADMIN = { ...bearer(token({ sub: 'hook-admin', roles: ['webhooks.admin'] })), 'content-type': 'application/json' };
const WRITER = bearer(token({ sub: 'storm', roles: ['timeline.writer'] }));
const WRITERS = 4;

async function appendNote(url: string, incidentId: string, n: number): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/api/v1/timeline/events`, {
      method: 'POST',
      headers: { ...WRITER, 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://storm', type: 'im.incident.note', subject: `incident/${incidentId}`, time: new Date().toISOString(), data: { content: `note ${n}` } }),
    });
    return res.status === 201 ? ((await res.json()) as { event_id: string }).event_id : undefined;
  } catch {
    return undefined; // the server was killed: this append was never acknowledged
  }
}

/** Writers append to their own incident one note after another until stopped; answers what was acknowledged, per writer, in order. */
function storm(url: string, incidents: string[]) {
  const acknowledged: string[][] = incidents.map(() => []);
  let stopped = false;
  const running = Promise.all(
    incidents.map(async (incidentId, w) => {
      for (let n = 0; !stopped; n += 1) {
        const eventId = await appendNote(url, incidentId, n);
        if (eventId === undefined) return;
        acknowledged[w].push(eventId);
      }
    }),
  );
  return { acknowledged, stop: async () => ((stopped = true), await running) };
}

async function expectAllDelivered(receiver: WebhookReceiver, acknowledged: string[][]): Promise<void> {
  const all = acknowledged.flat();
  await receiver.waitFor(() => {
    const seen = new Set(receiver.received.map((r) => r.event?.id));
    return all.every((id) => seen.has(id));
  }, 60_000);
  expect(receiver.received.every((r) => r.verifyError === undefined)).toBe(true);
  const firstSeen = new Map<string, number>();
  receiver.received.forEach((r, i) => r.event && !firstSeen.has(r.event.id) && firstSeen.set(r.event.id, i));
  for (const events of acknowledged) {
    const order = events.map((id) => firstSeen.get(id)!);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  }
}

describe('webhook delivery through kill -9 of the delivering process', () => {
  const receivers: WebhookReceiver[] = [];
  afterAll(() => Promise.all(receivers.map((r) => r.close())));

  const setUp = async (api: ServerProcess) => {
    const receiver = new WebhookReceiver();
    receivers.push(receiver);
    const url = await receiver.start();
    const registered = await post(`${api.url}/api/v1/webhooks`, undefined);
    expect(registered.status).toBe(401);
    const res = await fetch(`${api.url}/api/v1/webhooks`, { method: 'POST', headers: ADMIN, body: JSON.stringify({ url, event_types: ['im.incident.*'] }) });
    expect(res.status).toBe(201);
    receiver.secret = ((await res.json()) as { secret: string }).secret;
    const incidents: string[] = [];
    for (let w = 0; w < WRITERS; w += 1) incidents.push((await post(`${api.url}/api/v1/incidents`, { title: `storm ${w}`, severity: 'SEV-3' })).body.id as string);
    return { receiver, incidents };
  };
  const whenAcknowledged = async (acknowledged: string[][], count: number) => {
    const deadline = Date.now() + 30_000;
    while (acknowledged.flat().length < count) {
      if (Date.now() > deadline) throw new Error(`only ${acknowledged.flat().length} appends acknowledged`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('PROJECTOR=embedded: the api is killed mid-storm and restarted', async () => {
    const dir = tempDir('webhooks-kill');
    const env = { DATA_DIR: dir.path, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    try {
      const first = await startServer(env);
      const { receiver, incidents } = await setUp(first);
      const before = storm(first.url, incidents);
      await whenAcknowledged(before.acknowledged, 150);
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      await before.stop();

      const second = await startServer(env);
      try {
        const after = storm(second.url, incidents);
        await whenAcknowledged(after.acknowledged, 50);
        await after.stop();
        await expectAllDelivered(receiver, before.acknowledged.map((events, w) => [...events, ...after.acknowledged[w]]));
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    } finally {
      dir.remove();
    }
  });

  it('PROJECTOR=external: apps/projector delivers (the api does not), is killed mid-storm and restarted', async () => {
    const dir = tempDir('webhooks-kill-projector');
    const env = { DATA_DIR: dir.path, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    let projector = startProjector(env);
    await projector.ready;
    const api = await startServer({ ...env, PROJECTOR: 'external' });
    try {
      const { receiver, incidents } = await setUp(api);
      const before = storm(api.url, incidents);
      await whenAcknowledged(before.acknowledged, 150);
      projector.child.kill('SIGKILL');
      expect(await projector.exited).toBe('SIGKILL');
      // Appends wait for the projector (read-your-writes) and fail meanwhile: the storm ends here.
      await before.stop();
      projector = startProjector(env);
      await projector.ready;
      const after = storm(api.url, incidents);
      await whenAcknowledged(after.acknowledged, 50);
      await after.stop();
      await expectAllDelivered(receiver, before.acknowledged.map((events, w) => [...events, ...after.acknowledged[w]]));
    } finally {
      api.child.kill('SIGTERM');
      projector.child.kill('SIGTERM');
      await Promise.all([api.exited, projector.exited]);
      dir.remove();
    }
  });
});
