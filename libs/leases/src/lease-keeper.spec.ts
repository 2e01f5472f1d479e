import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LeaseStore, PROJECTIONS_LEASE, type ReadStore } from '@im/read-models';
import { SqliteReadStore } from '@im/read-models/sqlite';
import { type KeeperLog, LeaseKeeper, type LeaseTimings } from './lease-keeper';
import { thisProcess } from './lease-holder';

const FAST: LeaseTimings = { ttlMs: 1_500, renewMs: 200, retryMs: 100 };
const quiet: KeeperLog = { won: () => undefined, lost: () => undefined, error: () => undefined };

/** Child processes that stand in for the other processes' pids: alive until the test ends. */
const children: ChildProcess[] = [];

/**
 * A process of this machine that is alive, as its keeper names itself (by a child's pid): two keepers
 * with this process's pid would each take the other for an earlier start of this process, gone.
 */
function liveProcess(kind: 'api' | 'projector') {
  const child = spawn('sleep', ['60']);
  children.push(child);
  const holder = thisProcess(kind);
  return { ...holder, id: holder.id.replace(`:${process.pid}:`, `:${child.pid}:`), pid: child.pid! };
}

/** A work that records when it ran. */
function work() {
  const events: string[] = [];
  return { events, running: () => events.at(-1)?.startsWith('start') ?? false, start: async () => void events.push('start'), stop: async (why: string) => void events.push(`stop:${why}`) };
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe('LeaseKeeper', () => {
  let dir: string;
  let stores: ReadStore[];
  /** Another process on the same read-model file. */
  const open = () => {
    const store = new SqliteReadStore(join(dir, 'read-models.sqlite'));
    stores.push(store);
    return store;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'keeper-'));
    stores = [];
  });
  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
    children.splice(0).forEach((child) => child.kill());
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the work in one process at a time, and hands it over at once on a clean shutdown', async () => {
    const [a, b] = [work(), work()];
    const keeperA = new LeaseKeeper(open().leases, liveProcess('api'), quiet, FAST);
    const keeperB = new LeaseKeeper(open().leases, liveProcess('projector'), quiet, FAST);
    await keeperA.hold(PROJECTIONS_LEASE, a);
    await keeperB.hold(PROJECTIONS_LEASE, b);
    await sleep(FAST.ttlMs);
    // Renewed past its term: A keeps it, B never ran.
    expect(a.events).toEqual(['start']);
    expect(b.events).toEqual([]);
    await keeperA.close();
    expect(a.events).toEqual(['start', 'stop:shutdown']);
    await until(b.running, FAST.retryMs * 10);
    const [lease] = await stores[1].leases.list();
    expect(lease).toMatchObject({ generation: 2, holder: { kind: 'projector' } });
    await keeperB.close();
  });

  it('stops the work when it cannot renew in time, before another process may take it over', async () => {
    const store = open().leases;
    let renewals = true;
    // The database away for this process: a renewal hangs, anything else fails; the lease runs out.
    const away = () => Promise.reject(new Error('connection lost'));
    const stalling: LeaseStore = Object.assign(Object.create(store) as LeaseStore, {
      renew: (...args: Parameters<LeaseStore['renew']>) => (renewals ? store.renew(...args) : new Promise<boolean>(() => undefined)),
      acquire: (...args: Parameters<LeaseStore['acquire']>) => (renewals ? store.acquire(...args) : away()),
      list: () => (renewals ? store.list() : away()),
    });
    const [a, b] = [work(), work()];
    const keeperA = new LeaseKeeper(stalling, liveProcess('api'), quiet, FAST);
    const keeperB = new LeaseKeeper(open().leases, liveProcess('api'), quiet, FAST);
    await keeperA.hold(PROJECTIONS_LEASE, a);
    await keeperB.hold(PROJECTIONS_LEASE, b);
    renewals = false;
    await until(() => b.running());
    // A stopped before B started: at no moment did both run.
    expect(a.events).toEqual(['start', 'stop:lost']);
    await Promise.all([keeperA.close(), keeperB.close()]);
  }, 15_000);

  it('takes a lease at once from a holder on this machine whose process is gone', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(gone.stdout.toString());
    const me = thisProcess('api');
    const dead = { ...thisProcess('api'), id: `${me.id.split(':')[0]}:${deadPid}:earlier-start`, pid: deadPid };
    const store = open().leases;
    await store.acquire(PROJECTIONS_LEASE, dead, 3_600_000);
    const a = work();
    const keeper = new LeaseKeeper(open().leases, me, quiet, FAST);
    await keeper.hold(PROJECTIONS_LEASE, a);
    // Without waiting out the hour the dead holder had left.
    expect(a.events).toEqual(['start']);
    expect((await store.list())[0]).toMatchObject({ generation: 2, holder: { pid: process.pid } });
    await keeper.close();
  });

  it('fails the first try when the work cannot start, and competes no more', async () => {
    const keeper = new LeaseKeeper(open().leases, thisProcess('api'), quiet, FAST);
    await expect(keeper.hold(PROJECTIONS_LEASE, { start: () => Promise.reject(new Error('read models ahead')), stop: async () => undefined })).rejects.toThrow('read models ahead');
    // Given up, so another process can try at once.
    expect((await stores[0].leases.list())[0].holder).toBeNull();
    await keeper.close();
  });
});
