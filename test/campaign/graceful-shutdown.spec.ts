import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { append, caughtUp, createIncident, noteFor, sleep, timelineIds } from './campaign';

jest.setTimeout(60_000);

const WRITERS = 16;

describe('graceful shutdown (SIGTERM under load, the built server)', () => {
  const dir = tempDir('campaign-shutdown');
  afterAll(() => dir.remove());

  it('finishes the requests in flight, flushes the projections, closes the store, and a restart loses nothing', async () => {
    const server = await startServer({ DATA_DIR: dir.path });
    const incidentId = await createIncident(server.url, 'Shutdown campaign');

    let signalledAt = Infinity;
    const acknowledged = new Set<string>();
    const sentBeforeSignal: { outcome: string; sentAt: number; answeredAt: number }[] = [];
    const writers = Array.from({ length: WRITERS }, async () => {
      for (;;) {
        const event = noteFor(incidentId);
        const sentAt = Date.now();
        let outcome: string;
        try {
          const res = await append(server.url, event);
          outcome = String(res.status);
          if (res.status === 201) acknowledged.add(event.id);
        } catch {
          outcome = 'connection closed';
        }
        if (sentAt < signalledAt) sentBeforeSignal.push({ outcome, sentAt, answeredAt: Date.now() });
        if (outcome !== '201') return;
      }
    });
    await sleep(800);
    signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    await Promise.all(writers);

    expect(exit).toBe(0);
    expect(server.output()).toMatch(/Shut down cleanly/);
    // Requests the server was working on when the signal came were answered 201 after it: drained, not dropped.
    const drained = sentBeforeSignal.filter((r) => r.answeredAt >= signalledAt && r.outcome === '201');
    expect(drained.length).toBeGreaterThan(0);
    // Only a request sent in the last moments before the signal may have met the closing server (503 or a closed connection):
    // "moments" allow for the server reading a request late while the suite's other processes share its two cores
    // (under a doubled load, requests sent 84 ms before the signal had not been read yet).
    expect(sentBeforeSignal.filter((r) => r.sentAt < signalledAt - 250 && r.outcome !== '201')).toEqual([]);
    console.info(`graceful shutdown: ${acknowledged.size} appends acknowledged, ${drained.length} answered after SIGTERM, ${sentBeforeSignal.filter((r) => r.outcome !== '201').length} refused while closing`);
    expect(acknowledged.size).toBeGreaterThan(100);

    // The ledger was closed cleanly (SQLite folds and removes the WAL on the last close) and the read models hold the head.
    expect(existsSync(join(dir.path, 'events.sqlite-wal'))).toBe(false);
    const events = new Database(join(dir.path, 'events.sqlite'), { readonly: true });
    const reads = new Database(join(dir.path, 'read-models.sqlite'), { readonly: true });
    const head = events.prepare('SELECT MAX(position) FROM events').pluck().get();
    const checkpoints = reads.prepare('SELECT projection, position FROM checkpoints').all() as { position: number }[];
    events.close();
    reads.close();
    expect(checkpoints.length).toBeGreaterThan(0);
    for (const checkpoint of checkpoints) expect(checkpoint.position).toBe(head);

    const restarted = await startServer({ DATA_DIR: dir.path });
    try {
      await caughtUp(restarted.url);
      const ids = new Set(await timelineIds(restarted.url, incidentId));
      expect([...acknowledged].filter((id) => !ids.has(id))).toEqual([]);
    } finally {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
  });
});
