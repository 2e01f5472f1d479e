import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { incidentStreamId } from '@im/incidents';
import { EVENTS_FILE } from '@im/persistence';
import { startProjector, startServer } from './support/server-process';
import { SseClient } from './support/sse';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

jest.setTimeout(90_000);

/**
 * Live streams against the built service as processes: a reconnect across a
 * restart, and delivery driven by the ledger, whoever wrote to it.
 */

const SECRET = 'live-process-secret-'.padEnd(40, 'x');
const READER = token({ sub: 'reader', roles: ['timeline.reader'], clearance: 'internal' }, {}, SECRET);
const WRITER = token({ sub: 'writer', roles: ['timeline.writer'] }, {}, SECRET);

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const noteEvent = (incidentId: string, content: string) => ({
  specversion: '1.0',
  id: randomUUID(),
  source: 'im://live-process-test',
  type: 'im.incident.note',
  time: new Date().toISOString(),
  subject: `incident/${incidentId}`,
  data: { content },
});

async function note(url: string, incidentId: string, content: string): Promise<void> {
  const res = await fetch(`${url}/api/v1/timeline/events`, {
    method: 'POST',
    headers: { ...bearer(WRITER), 'content-type': 'application/cloudevents+json' },
    body: JSON.stringify(noteEvent(incidentId, content)),
  });
  expect(res.status).toBe(201);
}

async function declare(url: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/incidents`, { method: 'POST', headers: { ...bearer(WRITER), 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Live', severity: 'SEV-2' }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe('a live stream across a restart of the service', () => {
  const dir = tempDir('live-restart');
  afterAll(() => dir.remove());

  it('is resumed by the client with Last-Event-ID, with no gap and no repeat; shutting down ends open streams at once', async () => {
    const port = String(await freePort());
    const env = { DATA_DIR: dir.path, PORT: port, JWT_SECRET: SECRET, SHUTDOWN_GRACE_MS: '30000' };
    let api = await startServer(env);
    const incidentId = await declare(api.url);
    const client = new SseClient(`${api.url}/api/v1/incidents/${incidentId}/timeline/stream`, READER, ['timeline']);
    try {
      await client.opened;
      for (const content of ['e1', 'e2']) await note(api.url, incidentId, content);
      await client.waitFor(2);

      const stopping = Date.now();
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(0);
      // The open stream ended with the server: the 30 s grace was not waited out.
      expect(Date.now() - stopping).toBeLessThan(10_000);

      api = await startServer(env);
      // Before the client is back (it retries every 3 s): e3 reaches it by the replay, e4 live or by the replay.
      await note(api.url, incidentId, 'e3');
      await client.waitFor(3, 20_000);
      await note(api.url, incidentId, 'e4');
      await client.waitFor(4);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(client.received.map((r) => r.data.content)).toEqual(['e1', 'e2', 'e3', 'e4']);
      expect(client.errors).toBeGreaterThan(0);
    } finally {
      client.close();
      api.child.kill('SIGTERM');
      await api.exited;
    }
  });
});

describe('live streams with an external projector (PROJECTOR=external)', () => {
  const dir = tempDir('live-external');
  afterAll(() => dir.remove());

  it('deliver writes made through the api, and events another process appended to the ledger', async () => {
    const env = { DATA_DIR: dir.path, JWT_SECRET: SECRET };
    const projector = startProjector(env);
    await projector.ready;
    const api = await startServer({ ...env, PROJECTOR: 'external' });
    const clients: SseClient[] = [];
    try {
      const incidentId = await declare(api.url);
      const timeline = new SseClient(`${api.url}/api/v1/incidents/${incidentId}/timeline/stream`, READER, ['timeline']);
      const incidents = new SseClient(`${api.url}/api/v1/incidents/stream`, READER, ['incident']);
      clients.push(timeline, incidents);
      await Promise.all([timeline.opened, incidents.opened]);

      await note(api.url, incidentId, 'through the api');
      const ack = await fetch(`${api.url}/api/v1/incidents/${incidentId}/ack`, { method: 'POST', headers: bearer(WRITER) });
      expect(ack.status).toBe(200);
      // Written into the ledger by this test process, not by the api: only following the log finds it.
      const store = new SqliteEventStore(join(dir.path, EVENTS_FILE));
      try {
        const mitigated = { ...noteEvent(incidentId, ''), type: 'im.incident.mitigate', data: {} };
        await store.append(incidentStreamId(incidentId), [noteEvent(incidentId, 'from another process'), mitigated] as never[], 'any');
      } finally {
        await store.close();
      }

      expect((await timeline.waitFor(4)).map((r) => r.data.content)).toEqual(['through the api', expect.any(String), 'from another process', expect.any(String)]);
      expect([timeline.received[1], timeline.received[3]].map((r) => r.data.event_type)).toEqual(['im.incident.ack', 'im.incident.mitigate']);
      // The incident stream sends changes of the incident only: a note leaves it as it was.
      const changes = await incidents.waitFor(2);
      expect(changes.map((r) => r.data.status)).toEqual(['acknowledged', 'mitigated']);
      expect(changes.every((r) => r.data.id === incidentId)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(incidents.received).toHaveLength(2);
    } finally {
      clients.forEach((c) => c.close());
      api.child.kill('SIGTERM');
      projector.child.kill('SIGTERM');
      await Promise.all([api.exited, projector.exited]);
    }
  });
});
