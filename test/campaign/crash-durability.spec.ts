import Database from 'better-sqlite3';
import { join } from 'node:path';
import { startServer } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { append, caughtUp, createIncident, counts, noteFor, type SentEvent, sleep, timelineIds } from './campaign';

jest.setTimeout(counts.kills * 30_000 + 60_000);

const WRITERS = 16;

/** PRAGMA integrity_check on a SQLite file (read-only, beside the running server). */
const integrity = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('integrity_check', { simple: true });
  } finally {
    db.close();
  }
};

describe('crash durability under a sustained append load', () => {
  const dir = tempDir('campaign-crash');
  afterAll(() => dir.remove());

  it(`loses no acknowledged event through ${counts.kills} SIGKILLs at random moments`, async () => {
    const acknowledged = new Set<string>();
    let unanswered: SentEvent[] = [];
    let incidentId = '';
    const summary = { kills: 0, acknowledged: 0, retried: 0, lost: 0, duplicates: 0 };

    /** After a restart: the files are sound, the read models reach the head, every acknowledged event is there once. */
    const verify = async (url: string) => {
      expect(integrity(join(dir.path, 'events.sqlite'))).toBe('ok');
      expect(integrity(join(dir.path, 'read-models.sqlite'))).toBe('ok');
      await caughtUp(url);
      const ids = await timelineIds(url, incidentId);
      const shown = new Set(ids);
      const lost = [...acknowledged].filter((id) => !shown.has(id));
      summary.lost = lost.length;
      summary.duplicates = ids.length - shown.size;
      expect(lost).toEqual([]);
      expect(ids.length).toBe(shown.size);
      // A client retrying what it never got an answer for is told "stored" (201) or "duplicate" (200), never two copies.
      for (const event of unanswered) {
        const res = await append(url, event);
        expect([200, 201]).toContain(res.status);
        acknowledged.add(event.id);
        summary.retried++;
      }
      unanswered = [];
    };

    for (let round = 0; round <= counts.kills; round++) {
      const server = await startServer({ DATA_DIR: dir.path });
      if (round === 0) {
        incidentId = await createIncident(server.url, 'Crash campaign');
      }
      await verify(server.url);
      if (round === counts.kills) {
        server.child.kill('SIGTERM');
        await server.exited;
        break;
      }
      let stopped = false;
      const writers = Array.from({ length: WRITERS }, async () => {
        while (!stopped) {
          const event = noteFor(incidentId);
          try {
            const res = await append(server.url, event);
            if (res.status !== 201) throw new Error(`append answered ${res.status}: ${await res.text()}`);
            acknowledged.add(event.id);
          } catch (error) {
            // Only a connection cut by the kill may go unanswered.
            if (error instanceof Error && error.message.startsWith('append answered')) throw error;
            unanswered.push(event);
            return;
          }
        }
      });
      await sleep(300 + Math.random() * 1200);
      server.child.kill('SIGKILL');
      expect(await server.exited).toBe('SIGKILL');
      summary.kills++;
      stopped = true;
      await Promise.all(writers);
    }
    summary.acknowledged = acknowledged.size;
    console.info(`crash campaign: ${JSON.stringify(summary)}`);
    expect(summary.kills).toBe(counts.kills);
    expect(summary.acknowledged).toBeGreaterThan(counts.kills * 50);
  });
});
