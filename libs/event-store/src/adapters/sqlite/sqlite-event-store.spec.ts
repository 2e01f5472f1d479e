import Database from 'better-sqlite3';
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CloudEvent } from '@im/cloudevents';
import { DuplicateEventError, WrongExpectedRevisionError } from '../../event-store.port';
import { expectChained } from '../../event-store.contract';
import * as ledgerChaining from '../../ledger-chaining';
import { BUNDLE_FORMAT, chainView, type LedgerBundle, type LedgerEvent, type LedgerRecord, publicJwkOf, signHead, type StoredLedgerEvent, verifyBundle } from '@im/ledger-proof';
import { SqliteEventStore } from './sqlite-event-store';

/** While set, the log's fdatasync fails with it (an EIO the disk reported). */
let failSync: NodeJS.ErrnoException | undefined;
jest.mock('node:fs', () => {
  const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
  return { ...fs, fdatasync: (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => (failSync ? done(failSync) : fs.fdatasync(fd, done)) };
});

const note = (id: string): CloudEvent => ({ specversion: '1.0', id, source: 'im://test', type: 'im.incident.note', time: '2026-11-23T10:00:00.000Z', data: { content: id } });

describe('the SQLite event store after a failed sync of its log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-event-store-'));
  const file = join(dir, 'events.sqlite');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports nothing of it as stored, refuses every read and write until reopened, and reopens on what the file holds', async () => {
    const store = new SqliteEventStore(file);
    await store.append('incident-A', [note('a1')], 'no_stream', { dedupKeys: ['k-a1'] });
    failSync = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', syscall: 'fdatasync' });
    await expect(store.append('incident-A', [note('a2')], 0n, { dedupKeys: ['k-a2'] })).rejects.toMatchObject({ code: 'EIO' });
    failSync = undefined;
    // The commit is in the file, but a later successful sync would not prove it is on disk: no answer may rest on it.
    await expect(store.findByDedupKey('k-a2')).rejects.toMatchObject({ code: 'EIO' });
    await expect(store.readStream('incident-A')).rejects.toMatchObject({ code: 'EIO' });
    await expect(store.readAll(0n, 10)).rejects.toMatchObject({ code: 'EIO' });
    await expect(store.append('incident-B', [note('b1')], 'no_stream')).rejects.toMatchObject({ code: 'EIO' });
    await store.close();

    const reopened = new SqliteEventStore(file);
    try {
      expect((await reopened.readStream('incident-A')).map((e) => e.event.id)).toEqual(expect.arrayContaining(['a1']));
      await reopened.append('incident-B', [note('b1')], 'no_stream');
      expect((await reopened.readStream('incident-B')).map((e) => e.event.id)).toEqual(['b1']);
    } finally {
      await reopened.close();
    }
  });
});

describe('the SQLite event store, appends committed in one batch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-event-store-batch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('checks each append against what the earlier appends of its batch wrote: successive revisions land, a stale one or a taken key fails alone', async () => {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    try {
      // Made in one tick, so they share one transaction.
      const outcomes = await Promise.allSettled([
        store.append('incident-A', [note('a0')], 'no_stream', { dedupKeys: ['k-a0'] }),
        store.append('incident-A', [note('a1'), note('a2')], 0n, { dedupKeys: ['k-a1'] }),
        store.append('incident-A', [note('a-stale')], 0n),
        store.append('incident-B', [note('b-dup')], 'no_stream', { dedupKeys: ['k-b', 'k-a1'] }),
        store.append('incident-B', [note('b0')], 'no_stream', { dedupKeys: ['k-b'] }),
        store.append('incident-A', [note('a3')], 2n),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
      expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      const duplicate = (outcomes[3] as PromiseRejectedResult).reason as DuplicateEventError;
      expect(duplicate).toBeInstanceOf(DuplicateEventError);
      expect(duplicate.existing.event.id).toBe('a1');
      expect((await store.readStream('incident-A')).map((e) => [e.revision, e.event.id])).toEqual([[0n, 'a0'], [1n, 'a1'], [2n, 'a2'], [3n, 'a3']]);
      expect((await store.readStream('incident-B')).map((e) => e.event.id)).toEqual(['b0']);
      expect((await store.findByDedupKey('k-b'))?.event.id).toBe('b0');
    } finally {
      await store.close();
    }
  });
});

describe('the SQLite event store, reading the log back from what it keeps in memory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-event-store-recent-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers every page of the log as the file does, before and after the recent events it keeps are trimmed', async () => {
    const file = join(dir, 'events.sqlite');
    const store = new SqliteEventStore(file);
    const pages = async (reader: SqliteEventStore) => {
      const seen: string[] = [];
      for (const [after, limit] of [[0, 50], [4_090, 20], [8_150, 100], [8_990, 200], [9_000, 10]] as const) seen.push((await reader.readAll(BigInt(after), limit)).map((e) => `${e.position}:${e.event.id}`).join());
      return seen;
    };
    try {
      // 9,000 events, 100 an append: past twice the 4,096 kept, where the kept ones are cut back.
      for (let n = 0; n < 90; n++) {
        await store.append(`incident-${n}`, Array.from({ length: 100 }, (_, i) => note(`e${n * 100 + i + 1}`)), 'no_stream');
      }
      const fromMemory = await pages(store);
      const fromFile = new SqliteEventStore(file);
      try {
        expect(fromMemory).toEqual(await pages(fromFile));
      } finally {
        await fromFile.close();
      }
      expect(fromMemory[2].split(',')).toHaveLength(100);
      expect(fromMemory[2].split(',')[0]).toBe('8151:e8151');
      expect(fromMemory[3].split(',')).toHaveLength(10);
      expect(fromMemory[4]).toBe('');
    } finally {
      await store.close();
    }
  });
});

describe('the SQLite event store with the ledger chained in a worker thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-chain-worker-'));
  const file = join(dir, 'events.sqlite');
  const open = () => new SqliteEventStore(file, { chainInWorker: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Loading the sources in the worker takes seconds.
  it('stores the links the worker chained, chains on the main thread a batch of a few events and an append whose stream is not where it was chained from, and goes on from the file when opened again', async () => {
    const chainedHere = jest.spyOn(ledgerChaining, 'chainLedger');
    const store = open();
    try {
      // One batch of 30 events, enough to go to the worker: successive appends to a stream, three streams, and an append chained after a refused one.
      const outcomes = await Promise.allSettled([
        store.append('incident-A', [note('a0')], 'no_stream'),
        store.append('incident-A', [note('a1'), { ...note('a2'), 'im.visibility': 'public' } as CloudEvent], 0n),
        store.append('incident-B', [note('b0')], 'no_stream'),
        store.append('incident-B', [note('b-stale')], 5n),
        store.append('incident-B', [note('b1')], 'any'),
        store.append('incident-C', Array.from({ length: 24 }, (_, i) => note(`c${i}`)), 'no_stream'),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      // Only b1: the worker chained it from revision 1, which the refused append never took.
      expect(chainedHere).toHaveBeenCalledTimes(1);
      // A batch of a few events is chained in its transaction.
      await store.append('incident-A', [note('a3')], 2n);
      expect(chainedHere).toHaveBeenCalledTimes(2);
    } finally {
      await store.close();
    }
    const reopened = open();
    try {
      await reopened.append('incident-A', [note('a4')], 3n);
      const a = await reopened.readStream('incident-A');
      expect(a.map((e) => e.event.id)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
      expectChained(a);
      expectChained(await reopened.readStream('incident-B'));
      expectChained(await reopened.readStream('incident-C'));
      expect(await reopened.ledgerHeads('incident-A')).toEqual(a[4].ledger!.heads);
    } finally {
      await reopened.close();
      chainedHere.mockRestore();
    }
  }, 60_000);
});

describe('the SQLite event store on a ledger written before salts and links', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-ledger-upgrade-'));
  const file = join(dir, 'events.sqlite');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('adds them in place at start, changing no event, so every chain verifies and goes on', async () => {
    // A data directory the service wrote before this change (test/fixtures/data-before-ledger).
    copyFileSync(join(__dirname, '../../../../../test/fixtures/data-before-ledger/events.sqlite'), file);
    const rowsOf = () => {
      const db = new Database(file, { readonly: true });
      const rows = db.prepare('SELECT position, stream_id, revision, event_id, type, recorded_at, body FROM events ORDER BY position').all();
      db.close();
      return rows;
    };
    const before = rowsOf();
    expect(before.length).toBeGreaterThan(10);

    const store = new SqliteEventStore(file);
    const streams = [...new Set(before.map((row) => (row as { stream_id: string }).stream_id))];
    const records = new Map<string, LedgerRecord[]>();
    for (const stream of streams) {
      const read = await store.readStream(stream);
      expect(read.every((r) => r.ledger !== undefined)).toBe(true);
      const bundle = exported(read.map((r) => ({ event: r.event as unknown as LedgerEvent, ledger: r.ledger! })));
      expect(verifyBundle(bundle)).toMatchObject({ intact: true, n: bundle.events.length });
      records.set(stream, read.map((r) => r.ledger!));
    }
    const [first] = streams;
    await store.append(first, [note('after-upgrade')], 'stream_exists');
    const after = await store.readStream(first);
    expect(verifyBundle(exported(after.map((r) => ({ event: r.event as unknown as LedgerEvent, ledger: r.ledger! }))))).toMatchObject({ intact: true });
    await store.close();

    expect(rowsOf().slice(0, before.length)).toEqual(before);
    // Opened again: nothing left to upgrade, nothing redrawn.
    const reopened = new SqliteEventStore(file);
    for (const stream of streams) expect((await reopened.readStream(stream)).slice(0, records.get(stream)!.length).map((r) => r.ledger)).toEqual(records.get(stream));
    await reopened.close();
  });
});

/** The confidential chain of a stream as a bundle signed with a throwaway key. */
function exported(stream: StoredLedgerEvent[]): LedgerBundle {
  const { privateKey } = generateKeyPairSync('ed25519');
  const key = publicJwkOf(privateKey);
  const incident = String(stream[0].event.subject ?? '').replace('incident/', '');
  const last = stream[stream.length - 1].ledger!.heads.confidential!;
  return {
    format: BUNDLE_FORMAT,
    incident_id: incident,
    events: chainView(stream, 'confidential', (s) => s.event).map((v) => v.event),
    head: signHead({ incident_id: incident, chain: 'confidential', n: last.n, hash: last.hash, signed_at: new Date().toISOString(), kid: key.kid }, privateKey),
    keys: [key],
  };
}

describe('an append to several streams in a batch chained in the worker thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-append-multi-'));
  const file = join(dir, 'events.sqlite');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the parts of an accepted one, none of a refused one, and chains the appends after them from where their streams stand', async () => {
    const store = new SqliteEventStore(file, { chainInWorker: true });
    try {
      await store.append('fingerprint-F', [note('f0')], 'no_stream');
      // One batch of more than 24 events: an accepted and a refused appendMulti, and appends behind each to the same streams.
      const outcomes = await Promise.allSettled([
        store.appendMulti([
          { streamId: 'fingerprint-F', events: [note('f1')], expected: 0n },
          { streamId: 'incident-N', events: Array.from({ length: 24 }, (_, i) => note(`n${i}`)), expected: 'no_stream', dedupKeys: ['key-n'] },
        ]),
        store.appendMulti([
          { streamId: 'incident-M', events: [note('m-lost')], expected: 'no_stream', dedupKeys: ['key-m'] },
          { streamId: 'fingerprint-F', events: [note('f-lost')], expected: 0n },
        ]),
        store.append('incident-M', [note('m0')], 'any'),
        store.append('incident-N', [note('n24')], 'any'),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream('fingerprint-F')).map((e) => e.event.id)).toEqual(['f0', 'f1']);
      expect((await store.readStream('incident-M')).map((e) => e.event.id)).toEqual(['m0']);
      expect(await store.findByDedupKey('key-m')).toBeUndefined();
      expect((await store.findByDedupKey('key-n'))?.event.id).toBe('n0');
      for (const stream of ['fingerprint-F', 'incident-M', 'incident-N']) expectChained(await store.readStream(stream));
    } finally {
      await store.close();
    }
  }, 60_000);

  it('(chained on the main thread) writes no part of one whose later part meets an I/O fault, fails the appends of its batch with that error, and takes the next appends', async () => {
    const store = new SqliteEventStore(join(dir, 'fault.sqlite'));
    try {
      await store.append('fingerprint-F', [note('f0')], 'no_stream');
      const fault = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
      const chain = ledgerChaining.chainLedger;
      // The second part's events are chained as it is written, after the first part's: the fault strikes mid-transaction.
      jest.spyOn(ledgerChaining, 'chainLedger').mockImplementationOnce(chain).mockImplementationOnce(() => {
        throw fault;
      });
      const outcomes = await Promise.allSettled([
        store.appendMulti([
          { streamId: 'fingerprint-F', events: [note('f1')], expected: 0n },
          { streamId: 'incident-N', events: [note('n0')], expected: 'no_stream', dedupKeys: ['key-n'] },
        ]),
        store.append('incident-M', [note('m0')], 'no_stream'),
      ]);
      expect(outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason)).toEqual([fault, fault]);
      expect((await store.readStream('fingerprint-F')).map((e) => e.event.id)).toEqual(['f0']);
      expect(await store.readStream('incident-N')).toEqual([]);
      expect(await store.readStream('incident-M')).toEqual([]);
      expect(await store.findByDedupKey('key-n')).toBeUndefined();
      jest.restoreAllMocks();
      await store.append('fingerprint-F', [note('f1')], 0n);
      expectChained(await store.readStream('fingerprint-F'));
    } finally {
      jest.restoreAllMocks();
      await store.close();
    }
  });
});
