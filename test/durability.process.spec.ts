import Database from 'better-sqlite3';
import { join } from 'node:path';
import { json, post } from './support/fetch-json';
import { runProjector, startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';

jest.setTimeout(60_000);

describe('the built server on its data directory', () => {
  const dir = tempDir('durability');
  const env = { DATA_DIR: dir.path };
  afterAll(() => dir.remove());

  /** What each acknowledged request said the incident is now. */
  const acknowledged = new Map<string, string>();

  it('keeps every acknowledged incident and transition through kill -9', async () => {
    const first = await startServer(env);
    for (let i = 0; i < 30; i++) {
      const created = await post(`${first.url}/api/v1/incidents`, { title: `incident ${i}`, severity: 'SEV-2' });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      acknowledged.set(id, 'open');
      for (const move of ['ack', 'mitigate', 'resolve', 'close'].slice(0, i % 5)) {
        const moved = await post(`${first.url}/api/v1/incidents/${id}/${move}`);
        expect(moved.status).toBe(200);
        acknowledged.set(id, moved.body.status as string);
      }
    }
    // No grace: the last answer has just been sent.
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');

    const second = await startServer(env);
    try {
      for (const [id, status] of acknowledged) {
        const read = await json(`${second.url}/api/v1/incidents/${id}`);
        expect({ id, status: read.body.status }).toEqual({ id, status });
      }
      const list = await json(`${second.url}/api/v1/incidents?limit=1000`);
      expect(list.body).toHaveLength(acknowledged.size);
      // The restarted server still takes writes on the same streams.
      const [someOpen] = [...acknowledged].find(([, s]) => s === 'open')!;
      expect((await post(`${second.url}/api/v1/incidents/${someOpen}/ack`)).body).toEqual({ status: 'acknowledged' });
      acknowledged.set(someOpen, 'acknowledged');
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exited).not.toBe('SIGKILL');
    }
  });

  it('refuses to rebuild while an api serves the directory', async () => {
    const server = await startServer(env);
    try {
      const refused = runProjector(['rebuild'], env);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`^Storage error: \\S+ is in use by the api \\(pid ${server.child.pid}\\)[^\\n]*stop it first\\n$`));
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('rebuilds the read models from the log into the same rows (npm run projections:rebuild)', async () => {
    const rows = () => {
      const db = new Database(join(dir.path, 'read-models.sqlite'), { readonly: true });
      try {
        return {
          incidents: db.prepare('SELECT key, position, doc FROM incidents ORDER BY key').all(),
          timeline: db.prepare('SELECT key, position, doc FROM timeline ORDER BY position').all(),
          checkpoints: db.prepare('SELECT projection, position FROM checkpoints ORDER BY projection').all(),
        };
      } finally {
        db.close();
      }
    };
    const before = rows();
    expect(before.incidents).toHaveLength(acknowledged.size);
    expect(before.timeline.length).toBeGreaterThan(acknowledged.size);

    const rebuilt = runProjector(['rebuild'], env);
    expect(rebuilt.stderr).toBe('');
    expect(rebuilt.status).toBe(0);
    expect(rebuilt.stdout).toMatch(/Rebuilt incidents, timeline, assignments, preferences, probes, integration_keys, integration_key_history, webhooks, push_subscriptions, oncall_services, escalation_policies, schedules, heartbeats, incident_metrics from \d+ events/);
    expect(rows()).toEqual(before);
  });

  it('says what is wrong with the configuration in one line and exits non-zero', async () => {
    await expect(startServer({ ...env, EVENT_STORE: 'mysql' }, 10_000)).rejects.toThrow(
      /before listening:\nConfiguration error: EVENT_STORE must be one of sqlite, kurrentdb, postgres \(got "mysql"\)\n?$/,
    );
  });

  it.each([
    ['KurrentDB', { EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'kurrentdb://127.0.0.1:1?tls=false', READ_STORE: 'mongodb', MONGODB_URL: 'mongodb://127.0.0.1:1/im' }],
    ['MongoDB', { READ_STORE: 'mongodb', MONGODB_URL: 'mongodb://127.0.0.1:1/im' }],
  ])('refuses to start with an unreachable %s, in one line', async (name, backends) => {
    await expect(startServer({ ...env, ...backends }, 20_000)).rejects.toThrow(
      new RegExp(`before listening:\\nConfiguration error: ${name} at \\S+ is unreachable: [^\\n]+\\n?$`),
    );
  });
});
