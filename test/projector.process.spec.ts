import { startProjector, startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';

jest.setTimeout(60_000);

describe('api with an external projector (PROJECTOR=external)', () => {
  const dir = tempDir('projector');
  afterAll(() => dir.remove());

  it('answers writes once the projector has applied them, and says so when the projector is down', async () => {
    const env = { DATA_DIR: dir.path };
    let projector = startProjector(env);
    await projector.ready;
    const api = await startServer({ ...env, PROJECTOR: 'external', PROJECTION_WAIT_MS: '1500' });
    const create = (title: string) =>
      fetch(`${api.url}/api/v1/incidents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title, severity: 'SEV-2' }) });
    try {
      const first = await create('projected elsewhere');
      expect(first.status).toBe(201);
      const { id } = (await first.json()) as { id: string };
      expect((await fetch(`${api.url}/api/v1/incidents/${id}`)).status).toBe(200);

      projector.child.kill('SIGKILL');
      await projector.exited;
      const stalled = await create('while the projector is down');
      expect(stalled.status).toBe(503);
      expect(((await stalled.json()) as { error: string }).error).toMatch(/recorded .* is apps\/projector running\?/);

      projector = startProjector(env);
      await projector.ready;
      for (let i = 0; i < 50; i++) {
        const list = (await (await fetch(`${api.url}/api/v1/incidents`)).json()) as { title: string }[];
        if (list.some((incident) => incident.title === 'while the projector is down')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const titles = ((await (await fetch(`${api.url}/api/v1/incidents`)).json()) as { title: string }[]).map((i) => i.title);
      expect(titles).toEqual(['while the projector is down', 'projected elsewhere']);
    } finally {
      api.child.kill('SIGTERM');
      projector.child.kill('SIGTERM');
      await Promise.all([api.exited, projector.exited]);
    }
  });
});
