import { join } from 'node:path';
import { KurrentDbEventStore } from '@im/event-store/kurrentdb';
import { PostgresEventStore } from '@im/event-store/postgres';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { CONTRACT_STREAM_PREFIX, describeEventStoreContract } from '../../libs/event-store/src/event-store.contract';
import { temporaryDatabase, type TemporaryDatabase } from '../support/postgres-database';
import { tempDir } from '../support/temp-dir';
import { productionBackend } from './production-backends';

describeEventStoreContract('sqlite', () => {
  const dir = tempDir('events');
  return {
    open: async () => new SqliteEventStore(join(dir.path, 'events.sqlite'), { pollIntervalMs: 20 }),
    dispose: async () => dir.remove(),
  };
});

// The machine's PostgreSQL (test/support/postgres-database.ts): a database of its own per test, dropped after it.
describeEventStoreContract('postgres', () => {
  let database: Promise<TemporaryDatabase> | undefined;
  return {
    open: async () => PostgresEventStore.open((await (database ??= temporaryDatabase('event_store_contract'))).url, { pollIntervalMs: 50 }),
    dispose: async () => (await database)?.drop(),
  };
});

const kurrentdb = productionBackend('KURRENTDB_URL');
if (kurrentdb) {
  // Every test uses fresh stream names under its own prefix, so the suite can share a server.
  describeEventStoreContract('kurrentdb', () => ({
    open: async () => new KurrentDbEventStore(kurrentdb, { streamPrefixes: [CONTRACT_STREAM_PREFIX] }),
    dispose: async () => undefined,
  }));
}
