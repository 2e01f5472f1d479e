import { spawn } from 'node:child_process';
import { PROJECTOR_MAIN, startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';

jest.setTimeout(60_000);

/** The projector as its own process (`node dist/apps/projector/main.js run`), resolved once it projects. */
function startProjector(env: Record<string, string>) {
  const child = spawn(process.execPath, [PROJECTOR_MAIN, 'run'], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Projecting from position')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`projector exited:\n${output}`)));
  });
  return { child, exited, ready };
}

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
