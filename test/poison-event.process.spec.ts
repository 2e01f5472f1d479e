import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { runProjector, type ServerProcess, startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

jest.setTimeout(90_000);

const AUTH = bearer(token({ sub: 'alice' }));

/** Events the validator refuses today but older versions stored, written straight into the ledger through the EventStore port. */
const POISON = [
  { id: randomUUID(), time: '2016-12-31T23:59:60Z', content: 'a leap second' },
  { id: randomUUID(), time: '2026-11-22T10:00:00+01', content: 'an hour-only offset' },
];

interface Check {
  component: string;
  check: string;
  status: string;
  message: string;
}

describe('a stored event the read side cannot fold', () => {
  const dir = tempDir('poison');
  const env = { DATA_DIR: dir.path };
  afterAll(() => dir.remove());
  let incidentId: string;

  const stop = async (server: ServerProcess) => {
    server.child.kill('SIGTERM');
    await server.exited;
  };

  /** A note through the timeline endpoint: answered 201 well within PROJECTION_WAIT_MS (5 s), and shown by the next read. */
  async function writeAndRead(server: ServerProcess, content: string) {
    const started = Date.now();
    const res = await fetch(`${server.url}/api/v1/timeline/events`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://test', type: 'im.incident.note', subject: `incident/${incidentId}`, time: new Date().toISOString(), data: { content } }),
    });
    expect({ status: res.status, fast: Date.now() - started < 2000 }).toEqual({ status: 201, fast: true });
    const timeline = (await (await fetch(`${server.url}/api/v1/incidents/${incidentId}/timeline?order=asc`, { headers: AUTH })).json()) as { events: { content: string }[] };
    return timeline.events.map((event) => event.content).filter((content) => content !== '');
  }

  async function faultCheck(server: ServerProcess): Promise<{ check: Check; failed: number }> {
    const report = (await (await fetch(`${server.url}/api/v1/validate`, { headers: AUTH })).json()) as { results: Check[]; summary: { failed: number } };
    return { check: report.results.find((r) => `${r.component}.${r.check}` === 'projections.faults')!, failed: report.summary.failed };
  }

  const namesBothEvents = (check: Check) => {
    expect(check.status).toBe('fail');
    for (const { id } of POISON) expect(check.message).toContain(`timeline skipped event ${id}`);
  };

  it('is recorded as a fault and skipped: writes answer 201 promptly, reads move, validate names it, also after a restart', async () => {
    const first = await startServer(env);
    try {
      const res = await fetch(`${first.url}/api/v1/incidents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Clock trouble', severity: 'SEV-2' }) });
      incidentId = ((await res.json()) as { id: string }).id;
    } finally {
      await stop(first);
    }

    const ledger = new SqliteEventStore(join(dir.path, 'events.sqlite'));
    try {
      const stream = `incident-${incidentId}`;
      const [declared] = await ledger.readStream(stream);
      await ledger.append(
        stream,
        POISON.map(({ id, time, content }) => ({ specversion: '1.0', id, source: 'im://legacy', type: 'im.incident.note', subject: `incident/${incidentId}`, time, data: { content } })),
        declared.revision,
      );
    } finally {
      await ledger.close();
    }

    const second = await startServer(env);
    try {
      expect(await writeAndRead(second, 'after the poison')).toEqual(['after the poison']);
      const { check, failed } = await faultCheck(second);
      namesBothEvents(check);
      expect(check.message).toMatch(/is not an RFC 3339 timestamp/);
      expect(failed).toBe(1);
    } finally {
      await stop(second);
    }

    const third = await startServer(env);
    try {
      expect(await writeAndRead(third, 'after a restart')).toEqual(['after the poison', 'after a restart']);
      namesBothEvents((await faultCheck(third)).check);
      expect(third.output()).not.toMatch(/failed and will retry/);
    } finally {
      await stop(third);
    }
  });

  it('does not stop `projections:rebuild`: it finishes, naming the skipped events, and the faults stay reported', async () => {
    const rebuilt = runProjector(['rebuild'], env);
    expect({ status: rebuilt.status, stderr: rebuilt.stderr }).toEqual({ status: 0, stderr: '' });
    expect(rebuilt.stdout).toMatch(/Rebuilt .* 2 event\(s\) could not be folded and were recorded as projection faults/);
    for (const { id } of POISON) expect(rebuilt.stdout).toContain(id);

    const server = await startServer(env);
    try {
      expect(await writeAndRead(server, 'after the rebuild')).toEqual(['after the poison', 'after a restart', 'after the rebuild']);
      namesBothEvents((await faultCheck(server)).check);
    } finally {
      await stop(server);
    }
  });
});
