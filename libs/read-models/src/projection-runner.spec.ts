import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { toCloudEvent } from '@im/cloudevents';
import { followLog, type LogHandler, type RecordedEvent } from '@im/event-store';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { incidentStreamId } from '@im/incidents';
import { ALL_PROJECTIONS } from './index';
import { incidentProjection } from './incidents/incident.projection';
import type { Projection } from './projection';
import type { ProjectionFault } from './projection-fault';
import { ReadModelCatchingUpError } from './projection-progress';
import { MAX_FOLD_ATTEMPTS, ProjectionRunner, rebuildProjections } from './projection-runner';
import { SqliteReadStore } from './adapters/sqlite/sqlite-read-store';
import type { ProjectionStore } from './projection-store.port';

/** The SQLite log, retrying a failed batch after 10 ms instead of a second, so attempts are quick to count. */
class QuickRetryEventStore extends SqliteEventStore {
  override subscribeToAll(after: bigint, handler: LogHandler, onError?: (error: unknown) => void) {
    return followLog({
      after,
      handler,
      onError,
      retryDelayMs: 10,
      read: (position, limit) => this.readAll(position, limit),
      waitForAppend: (_position, signal) => sleep(10, undefined, { signal }).catch(() => undefined),
    });
  }
}

let dir: string;
let events: QuickRetryEventStore;
let read: SqliteReadStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'im-runner-'));
  events = new QuickRetryEventStore(join(dir, 'events.sqlite'));
  read = new SqliteReadStore(join(dir, 'read.sqlite'));
});
afterEach(async () => {
  await events.close();
  await read.close();
  rmSync(dir, { recursive: true, force: true });
});

const declare = (incidentId: string, title: string) =>
  events.append(
    incidentStreamId(incidentId),
    [toCloudEvent({ type: 'im.incident.declare', incidentId, time: '2026-11-22T10:00:00.000Z', data: { title, severity: 'SEV-2' } }, { actor: 'test', sender: 'test' })],
    'no_stream',
  );

/** The incident read model, except that its fold throws on incidents titled "poison". */
const attempts: bigint[] = [];
const poisonedIncidents: Projection<unknown> = {
  ...(incidentProjection as Projection<unknown>),
  evolve: (doc, recorded: RecordedEvent) => {
    if (recorded.event.data?.title === 'poison') {
      attempts.push(recorded.position);
      throw new RangeError('Invalid time value');
    }
    return incidentProjection.evolve(doc as never, recorded);
  },
};
const projections = ALL_PROJECTIONS.map((projection) => (projection.name === incidentProjection.name ? poisonedIncidents : projection));

describe('ProjectionRunner with a projection that throws on one event', () => {
  beforeEach(() => (attempts.length = 0));

  it('records the event as a fault after a bounded number of attempts, skips it, and keeps every read model moving', async () => {
    const faults: ProjectionFault[] = [];
    const retried: string[] = [];
    const runner = new ProjectionRunner(events, read, projections, {
      onRetry: (projection) => retried.push(projection),
      onFault: (fault) => faults.push(fault),
    });
    await declare('INC-00000001', 'before');
    const poison = await declare('INC-00000002', 'poison');
    await runner.start();
    try {
      const after = await declare('INC-00000003', 'after');
      // Writers wait on this: it resolves, the write path is not blocked for good.
      await runner.waitFor(after.position, 5000);

      expect(attempts).toEqual(Array(MAX_FOLD_ATTEMPTS).fill(poison.position));
      expect(retried).toEqual(Array(MAX_FOLD_ATTEMPTS - 1).fill(incidentProjection.name));
      const stored = await read.projectionFaults();
      expect(stored).toEqual([
        {
          projection: 'incidents',
          position: poison.position,
          eventId: (await events.readAll(poison.position - 1n, 1))[0].event.id,
          streamId: 'incident-INC-00000002',
          error: 'RangeError: Invalid time value',
          firstSeen: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
          lastSeen: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        },
      ]);
      expect(stored[0].firstSeen <= stored[0].lastSeen).toBe(true);
      expect(faults).toEqual(stored);
      // The skipped event is missing from that read model only; the events around it are there.
      expect(await read.incidents.findById('INC-00000001')).toMatchObject({ title: 'before' });
      expect(await read.incidents.findById('INC-00000002')).toBeUndefined();
      expect(await read.incidents.findById('INC-00000003')).toMatchObject({ title: 'after' });
      expect((await read.timeline.list({ incidentId: 'INC-00000002', order: 'asc', limit: 10 })).map((r) => r.entry.title)).toEqual(['poison']);
      for (const projection of ALL_PROJECTIONS) expect(await read.checkpoint(projection.name)).toBe(after.position);
    } finally {
      await runner.stop();
    }

    // After a restart the checkpoint is past the event: it is not tried again, and the fault is still there.
    const restarted = new ProjectionRunner(events, read, projections);
    await restarted.start();
    try {
      const next = await declare('INC-00000004', 'next');
      await restarted.waitFor(next.position, 5000);
      expect(attempts).toHaveLength(MAX_FOLD_ATTEMPTS);
      expect(await read.projectionFaults()).toHaveLength(1);
    } finally {
      await restarted.stop();
    }
  });

  it('retries a failing commit (the store) without skipping anything or recording a fault', async () => {
    let failures = MAX_FOLD_ATTEMPTS + 2;
    const flaky: ProjectionStore = Object.create(read, {
      commitBatch: {
        value: async (...args: Parameters<ProjectionStore['commitBatch']>) => {
          if (failures-- > 0) throw new Error('SQLITE_BUSY: database is locked');
          return read.commitBatch(...args);
        },
      },
    });
    const retried: unknown[] = [];
    const runner = new ProjectionRunner(events, flaky, ALL_PROJECTIONS, { onRetry: (_projection, error) => retried.push(error) });
    const declared = await declare('INC-00000001', 'kept');
    await runner.start();
    try {
      await runner.waitFor(declared.position, 5000);
      expect(retried).toHaveLength(MAX_FOLD_ATTEMPTS + 2);
      expect(await read.projectionFaults()).toEqual([]);
      expect(await read.incidents.findById('INC-00000001')).toMatchObject({ title: 'kept' });
    } finally {
      await runner.stop();
    }
  });

  it('rebuilds to the end, recording the fault instead of failing', async () => {
    await declare('INC-00000001', 'before');
    const poison = await declare('INC-00000002', 'poison');
    await declare('INC-00000003', 'after');
    expect(await rebuildProjections(events, read, projections)).toBe(3);
    expect(await read.projectionFaults()).toEqual([expect.objectContaining({ projection: 'incidents', position: poison.position, error: 'RangeError: Invalid time value' })]);
    expect(await read.incidents.findById('INC-00000003')).toMatchObject({ title: 'after' });
    // Once the cause is gone, a rebuild leaves no fault behind.
    expect(await rebuildProjections(events, read, ALL_PROJECTIONS)).toBe(3);
    expect(await read.projectionFaults()).toEqual([]);
    expect(await read.incidents.findById('INC-00000002')).toMatchObject({ title: 'poison' });
  });
});

describe('ProjectionRunner far behind the log on start', () => {
  beforeEach(() => (attempts.length = 0));

  const until = async (done: () => boolean) => {
    for (let waited = 0; !done(); waited += 10) {
      if (waited > 5000) throw new Error('timed out');
      await sleep(10);
    }
  };

  it('catches up in bulk (queries refused meanwhile), wakes waiting writes, skips a poison event after bounded attempts, then follows the log', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Holds the bulk catch-up at its first commit, to look at the read models meanwhile.
    const held: ProjectionStore = Object.create(read, {
      commitBatch: {
        value: async (...args: Parameters<ProjectionStore['commitBatch']>) => {
          await gate;
          return read.commitBatch(...args);
        },
      },
    });
    const faults: ProjectionFault[] = [];
    await declare('INC-00000001', 'before');
    const poison = await declare('INC-00000002', 'poison');
    await declare('INC-00000003', 'after');
    const head = await events.headPosition();
    const runner = new ProjectionRunner(events, held, projections, { onFault: (fault) => faults.push(fault) }, 2);
    await runner.start();
    try {
      expect(runner.catchUpProgress()).toMatchObject({ projections: projections.map((p) => p.name), from: 0n, applied: 0n, head });
      await expect(read.timeline.list({ incidentId: 'INC-00000001', order: 'asc', limit: 10 })).rejects.toThrow(ReadModelCatchingUpError);
      // A write during the catch-up waits for it, and is shown once the runner follows the log again.
      const during = await declare('INC-00000004', 'during');
      const shown = runner.waitFor(during.position, 5000);
      release();
      await shown;
      await until(() => runner.catchUpProgress() === undefined);

      expect(attempts).toEqual(Array(MAX_FOLD_ATTEMPTS).fill(poison.position));
      expect(faults).toEqual([expect.objectContaining({ projection: 'incidents', position: poison.position })]);
      expect((await read.timeline.list({ incidentId: 'INC-00000003', order: 'asc', limit: 10 })).map((r) => r.entry.title)).toEqual(['after']);
      expect(await read.incidents.findById('INC-00000004')).toMatchObject({ title: 'during' });
      const later = await declare('INC-00000005', 'later');
      await runner.waitFor(later.position, 5000);
      expect(await read.incidents.findById('INC-00000005')).toMatchObject({ title: 'later' });
    } finally {
      release();
      await runner.stop();
    }
  });

  it('follows the log at once when no read model is that far behind', async () => {
    const declared = await declare('INC-00000001', 'near');
    const runner = new ProjectionRunner(events, read, ALL_PROJECTIONS, {}, 10);
    await runner.start();
    try {
      expect(runner.catchUpProgress()).toBeUndefined();
      await expect(read.timeline.list({ incidentId: 'INC-00000001', order: 'asc', limit: 10 })).resolves.toBeDefined();
      await runner.waitFor(declared.position, 5000);
      expect(await read.incidents.findById('INC-00000001')).toMatchObject({ title: 'near' });
    } finally {
      await runner.stop();
    }
  });
});
