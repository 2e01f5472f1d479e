import { join } from 'node:path';
import { MongoReadStore } from '@im/read-models/mongodb';
import { PostgresReadStore } from '@im/read-models/postgres';
import { SqliteReadStore } from '@im/read-models/sqlite';
import { BackgroundReads } from '@im/sqlite-runtime';
import { describeOutboundStoreContract } from '../../libs/read-models/src/outbound/outbound-store.contract';
import { describeReadStoreContract } from '../../libs/read-models/src/read-store.contract';
import { describeNotificationStoreContract } from '../../libs/read-models/src/notifications/notification-store.contract';
import { describeLeaseFencingContract, describeLeaseStoreContract } from '../../libs/read-models/src/leases/lease-store.contract';
import { describeIncidentMetricsContract } from '../../libs/read-models/src/metrics/incident-metrics.contract';
import { temporaryDatabase, type TemporaryDatabase } from '../support/postgres-database';
import { tempDir } from '../support/temp-dir';
import { productionBackend } from './production-backends';

/** A harness whose stores open one read-model file in a temporary directory, removed afterwards. */
const fileHarness = (prefix: string, open: (file: string) => Promise<SqliteReadStore>) => () => {
  const dir = tempDir(prefix);
  return { open: () => open(join(dir.path, 'read-models.sqlite')), dispose: async () => dir.remove() };
};

const sqliteHarness = fileHarness('read', async (file) => new SqliteReadStore(file));
describeReadStoreContract('sqlite', sqliteHarness);
describeOutboundStoreContract('sqlite', sqliteHarness);
describeNotificationStoreContract('sqlite', sqliteHarness);
describeLeaseStoreContract('sqlite', sqliteHarness);
describeLeaseFencingContract('sqlite', sqliteHarness);
describeIncidentMetricsContract('sqlite', sqliteHarness);

describe('with the lists read in a worker thread', () => {
  // Every list the contract asks of it is answered by the worker, not by the store's connection as it would be while the worker starts.
  let served = 0;
  const backgroundHarness = fileHarness('read-background', async (file) => {
    const reads = new BackgroundReads(file, (message) => {
      throw new Error(message);
    });
    const store = new SqliteReadStore(file, undefined, {
      backgroundReads: {
        all: async (sql, params, shape) => {
          const rows = await reads.all(sql, params, shape);
          expect(rows).toBeDefined();
          served++;
          return rows;
        },
        close: () => reads.close(),
      },
    });
    await reads.start();
    return store;
  });
  describeReadStoreContract('sqlite, background reads', backgroundHarness);
  describeIncidentMetricsContract('sqlite, background reads', backgroundHarness);
  afterAll(() => expect(served).toBeGreaterThan(10));
});

// The machine's PostgreSQL (test/support/postgres-database.ts): each harness opens its stores in a database of its own, dropped afterwards.
const postgresHarness = () => {
  let database: Promise<TemporaryDatabase> | undefined;
  return {
    open: async () => PostgresReadStore.connect((await (database ??= temporaryDatabase('read_store'))).url),
    dispose: async () => {
      await (await database)?.drop();
    },
  };
};
describeReadStoreContract('postgres', postgresHarness);
describeOutboundStoreContract('postgres', postgresHarness);
describeNotificationStoreContract('postgres', postgresHarness);
describeLeaseStoreContract('postgres', postgresHarness);
describeLeaseFencingContract('postgres', postgresHarness);
describeIncidentMetricsContract('postgres', postgresHarness);

const mongodb = productionBackend('MONGODB_URL');
if (mongodb) {
  // Each harness uses its own database, dropped afterwards.
  const mongoHarness = () => {
    const url = new URL(mongodb);
    url.pathname = `/im_contract_${Date.now()}_${Math.random().toString(16).slice(2, 8)}`;
    const opened: MongoReadStore[] = [];
    return {
      open: async () => {
        const store = await MongoReadStore.connect(url.toString());
        opened.push(store);
        return store;
      },
      dispose: async () => {
        const mongoose = (await import('mongoose')).default;
        const connection = await mongoose.createConnection(url.toString()).asPromise();
        await connection.dropDatabase();
        await connection.close();
      },
    };
  };
  describeReadStoreContract('mongodb', mongoHarness);
  describeOutboundStoreContract('mongodb', mongoHarness);
  describeNotificationStoreContract('mongodb', mongoHarness);
  // MongoDB keeps leases but does not fence its writes (mongodb-lease-store.ts): no fencing suite.
  describeLeaseStoreContract('mongodb', mongoHarness);
  describeIncidentMetricsContract('mongodb', mongoHarness);
}
