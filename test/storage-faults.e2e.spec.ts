import { join } from 'node:path';
import { startTestApp, type TestApp } from './support/app';
import { flipRootPage } from './support/damage-sqlite';

type Result = { component: string; check: string; status: string; message: string };
const failedChecks = (body: { results: Result[] }) => body.results.filter((r) => r.status === 'fail');

describe('a store file damaged while the server runs', () => {
  let t: TestApp;
  let id: string;
  beforeEach(async () => {
    t = await startTestApp({ JWT_SECRET: 's'.repeat(40) });
    id = (await t.http().post('/api/v1/incidents').send({ title: 'Existing', severity: 'SEV-2' }).expect(201)).body.id;
  });
  afterEach(() => t.close().catch(() => undefined));

  it('validate passes the integrity checks of sound files', async () => {
    const res = await t.http().get('/api/v1/validate').expect(200);
    const checks = res.body.results.filter((r: Result) => r.check === 'integrity' || r.component === 'storage');
    expect(checks.map((r: Result) => [`${r.component}.${r.check}`, r.status])).toEqual([
      ['event_store.integrity', 'pass'],
      ['read_store.integrity', 'pass'],
      ['storage.free_space', expect.stringMatching(/^(pass|warn)$/)],
    ]);
  });

  it('events.sqlite: validate fails its integrity check, and an append answers 503 naming the damage, not 500', async () => {
    await flipRootPage(join(t.config.dataDir, 'events.sqlite'), 'sqlite_autoindex_events_1');
    const res = await t.http().get('/api/v1/validate').expect(200);
    expect(failedChecks(res.body)).toEqual([
      expect.objectContaining({ component: 'event_store', check: 'integrity', message: expect.stringMatching(/events.sqlite is damaged: quick_check found \d+ problem.*restore it from a backup$/) }),
    ]);
    expect(res.body.capabilities.database).toBe(false);
    const ack = await t.http().post(`/api/v1/incidents/${id}/ack`);
    expect({ status: ack.status, body: ack.body }).toEqual({
      status: 503,
      body: { status: 503, error: expect.stringMatching(/^The server's storage is damaged \(SQLITE_CORRUPT\w*\): .*retry later$/) },
    });
  });

  it('read-models.sqlite: validate fails its integrity check and says the read models can be rebuilt', async () => {
    await flipRootPage(join(t.config.dataDir, 'read-models.sqlite'), 'incidents');
    const res = await t.http().get('/api/v1/validate').expect(200);
    expect(failedChecks(res.body)).toEqual([
      expect.objectContaining({ component: 'read_store', check: 'integrity', message: expect.stringMatching(/read-models.sqlite is damaged.*rebuilt from the log$/) }),
    ]);
  });
});
