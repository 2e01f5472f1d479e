import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStorageFault, StorageFaultError, storageFaultOf, storageFaultStatus } from './storage-fault';

const errno = (code: string, syscall: string) => Object.assign(new Error(`${code}: ${syscall}`), { code, syscall });

describe('storage faults', () => {
  const dir = mkdtempSync(join(tmpdir(), 'im-fault-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** SQLite's own error, not a hand-made one, so the codes the mapping knows are the codes it gets. */
  const thrownBy = (work: () => unknown): unknown => {
    try {
      work();
    } catch (error) {
      return error;
    }
    throw new Error('nothing was thrown');
  };

  it('a database at its size limit is full: 507', () => {
    const db = new Database(join(dir, 'full.sqlite'));
    db.exec('CREATE TABLE t (x TEXT)');
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
    const fault = storageFaultOf(thrownBy(() => db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(10_000))));
    db.close();
    expect(fault).toEqual({ kind: 'full', code: 'SQLITE_FULL' });
    expect(storageFaultStatus(fault!)).toBe(507);
    expect(describeStorageFault(fault!)).toBe("The server's storage is full (SQLITE_FULL)");
  });

  it('a file that is not a database is damaged: 503', () => {
    const file = join(dir, 'garbage.sqlite');
    writeFileSync(file, Buffer.alloc(8192, 'garbage '));
    const fault = storageFaultOf(thrownBy(() => new Database(file).pragma('journal_mode = WAL')));
    expect(fault).toEqual({ kind: 'corrupt', code: 'SQLITE_NOTADB' });
    expect(storageFaultStatus(fault!)).toBe(503);
  });

  it('a read-only database is read-only: 503', () => {
    const file = join(dir, 'ro.sqlite');
    new Database(file).exec('CREATE TABLE t (x)');
    const db = new Database(file, { readonly: true });
    const fault = storageFaultOf(thrownBy(() => db.exec('INSERT INTO t VALUES (1)')));
    db.close();
    expect(fault).toEqual({ kind: 'read_only', code: 'SQLITE_READONLY' });
  });

  it("a fault an adapter recognised in its driver's error counts as it says, with the driver's message: a database server out of reach is 503", () => {
    const refused = new StorageFaultError({ kind: 'unreachable', code: 'ECONNREFUSED' }, errno('ECONNREFUSED', 'connect'));
    const fault = storageFaultOf(refused);
    expect(fault).toEqual({ kind: 'unreachable', code: 'ECONNREFUSED' });
    expect(storageFaultStatus(fault!)).toBe(503);
    expect(describeStorageFault(fault!)).toBe("The server's storage cannot be reached (ECONNREFUSED)");
    expect(refused.message).toBe('ECONNREFUSED: connect');
  });

  it('file system errors count, the same errno from the network does not, nor SQLite errors about the data', () => {
    expect(storageFaultOf(errno('ENOSPC', 'fdatasync'))).toEqual({ kind: 'full', code: 'ENOSPC' });
    expect(storageFaultOf(errno('EROFS', 'open'))).toEqual({ kind: 'read_only', code: 'EROFS' });
    expect(storageFaultOf(errno('EIO', 'write'))).toEqual({ kind: 'io', code: 'EIO' });
    expect(storageFaultOf(errno('EACCES', 'listen'))).toBeUndefined();
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x UNIQUE); INSERT INTO t VALUES (1)');
    expect(storageFaultOf(thrownBy(() => db.exec('INSERT INTO t VALUES (1)')))).toBeUndefined();
    db.close();
    expect(storageFaultOf(new Error('boom'))).toBeUndefined();
    expect(storageFaultOf(undefined)).toBeUndefined();
  });
});
