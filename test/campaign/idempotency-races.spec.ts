import { randomUUID } from 'node:crypto';
import { startServer } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { append, caughtUp, createIncident, noteFor, timelineIds } from './campaign';

jest.setTimeout(60_000);

const COPIES = 50;

describe('idempotency under races (the built server)', () => {
  const dir = tempDir('campaign-races');
  afterAll(() => dir.remove());

  it(`stores ${COPIES} concurrent identical appends once, and still once after a kill -9 and restart`, async () => {
    let server = await startServer({ DATA_DIR: dir.path });
    const incidentId = await createIncident(server.url, 'Race campaign');
    const same = noteFor(incidentId);
    // The same origin id under fresh CloudEvent ids: a monitoring system re-sending one alert.
    const reissued = Array.from({ length: COPIES }, () => ({ ...same, body: same.body.replace(same.id, randomUUID()) }));

    const race = async (url: string, bodies: (typeof same)[]) => {
      const answers = await Promise.all(bodies.map(async (e) => ({ status: (await append(url, e)).status })));
      return answers.map((a) => a.status).sort();
    };
    const first = await race(server.url, Array.from({ length: COPIES }, () => same));
    expect(first.filter((s) => s === 201)).toHaveLength(1);
    expect(first.filter((s) => s === 200)).toHaveLength(COPIES - 1);
    expect(await race(server.url, reissued)).toEqual(Array(COPIES).fill(200));

    server.child.kill('SIGKILL');
    await server.exited;
    server = await startServer({ DATA_DIR: dir.path });
    try {
      expect(await race(server.url, Array.from({ length: COPIES }, () => same))).toEqual(Array(COPIES).fill(200));
      expect(await race(server.url, reissued)).toEqual(Array(COPIES).fill(200));
      await caughtUp(server.url);
      const ids = await timelineIds(server.url, incidentId);
      // The declaration and the one note.
      expect(ids).toHaveLength(2);
      expect(ids).toContain(same.id);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
