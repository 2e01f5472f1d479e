import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig, ConfigError } from '@im/config';
import type { SchemaStatus } from '@im/postgres-runtime';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { KurrentDbEventStore } from '@im/event-store/kurrentdb';
import { PostgresEventStore } from '@im/event-store/postgres';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { SERVICE_STREAM_PREFIXES } from '@im/incidents';
import {
  INCIDENT_METRICS_QUERIES,
  INCIDENT_QUERIES,
  INTEGRATION_KEY_HISTORY_QUERIES,
  INTEGRATION_KEY_QUERIES,
  LEASE_STORE,
  OUTBOUND_STORE,
  NOTIFICATION_STORE,
  PUSH_SUBSCRIPTION_QUERIES,
  ONCALL_QUERIES,
  PREFERENCES_QUERIES,
  PROJECTION_STORE,
  type ReadStore,
  TIMELINE_QUERIES,
  WEBHOOK_QUERIES,
} from '@im/read-models';
import { MongoReadStore } from '@im/read-models/mongodb';
import { PostgresReadStore } from '@im/read-models/postgres';
import { SqliteReadStore } from '@im/read-models/sqlite';
import { type DataDirLock, lockDataDir } from './data-dir-lock';
import { storageError } from './storage-error';
import { checkIntegrity, type EmbeddedStoreFile } from './storage-checks';

export type { SchemaStatus };

export const EVENTS_FILE = 'events.sqlite';
export const READ_MODELS_FILE = 'read-models.sqlite';

/** The files of the configured stores that live in DATA_DIR (none when both are servers). */
export function embeddedStoreFiles(config: AppConfig): EmbeddedStoreFile[] {
  const files: EmbeddedStoreFile[] = [];
  if (config.eventStore.kind === 'sqlite') {
    files.push({
      component: 'event_store',
      file: join(config.dataDir, EVENTS_FILE),
      quickCheck: SqliteEventStore.checkIntegrity,
      ifDamaged: '. It is the only copy of the event log: restore it from a backup',
    });
  }
  if (config.readStore.kind === 'sqlite') {
    const file = join(config.dataDir, READ_MODELS_FILE);
    files.push({
      component: 'read_store',
      file,
      quickCheck: SqliteReadStore.checkIntegrity,
      ifDamaged: `. The read models hold nothing the event log does not: stop the service, move ${file} and its -wal and -shm files aside and start again: they are rebuilt from the log`,
    });
  }
  return files;
}

/**
 * The open stores kept in PostgreSQL, each answering for the server and its own
 * migrations (validate's `database` checks); none on the other backends.
 */
export function postgresSchemas(eventStore: EventStore, readStore: object): (() => Promise<SchemaStatus>)[] {
  return [eventStore, readStore].filter((store) => store instanceof PostgresEventStore || store instanceof PostgresReadStore).map((store) => () => store.schemaStatus());
}

/** Opens an embedded store's file and refuses it when quick_check finds damage: one line at start-up instead of 500s later. */
async function openEmbedded<S extends { close(): Promise<void> }>(
  config: AppConfig,
  component: EmbeddedStoreFile['component'],
  open: (file: string) => S,
): Promise<S> {
  const embedded = embeddedStoreFiles(config).find((f) => f.component === component)!;
  const { file, ifDamaged } = embedded;
  let store: S;
  try {
    store = open(file);
  } catch (error) {
    throw storageError(file, error, ifDamaged);
  }
  try {
    await checkIntegrity(embedded);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** A backend the configuration names but that cannot be reached: one line at start-up, non-zero exit. */
const unreachable = (what: string, url: string, error: unknown) =>
  new ConfigError(`${what} at ${url.replace(/\/\/[^@/]*@/, '//***@')} is unreachable: ${(error as Error).message}`);

async function openEventStore(config: AppConfig, takesAppends: boolean): Promise<EventStore> {
  if (config.eventStore.kind === 'kurrentdb') {
    const store = new KurrentDbEventStore(config.eventStore.url, { streamPrefixes: SERVICE_STREAM_PREFIXES });
    try {
      await store.headPosition();
    } catch (error) {
      await store.close().catch(() => undefined);
      throw unreachable('KurrentDB', config.eventStore.url, error);
    }
    return store;
  }
  if (config.eventStore.kind === 'postgres') {
    try {
      return await PostgresEventStore.open(config.eventStore.url);
    } catch (error) {
      throw unreachable('PostgreSQL', config.eventStore.url, error);
    }
  }
  return openEmbedded(config, 'event_store', (file) => new SqliteEventStore(file, { chainInWorker: takesAppends, checkpointInWorker: takesAppends }));
}

/**
 * `serves`: the process answers requests while the read models catch up (the
 * api, the projector), so the read store runs its worker threads; a rebuild,
 * where nothing waits on the event loop, runs all on the store's connection
 * (the index builds' worker made it 0.70 times as fast: docs/benchmarks.md,
 * "SQLite runtime: what each worker earns").
 */
async function openReadStore(config: AppConfig, serves: boolean): Promise<ReadStore> {
  if (config.readStore.kind === 'mongodb') {
    try {
      return await MongoReadStore.connect(config.readStore.url);
    } catch (error) {
      throw unreachable('MongoDB', config.readStore.url, error);
    }
  }
  if (config.readStore.kind === 'postgres') {
    try {
      return await PostgresReadStore.connect(config.readStore.url);
    } catch (error) {
      throw unreachable('PostgreSQL', config.readStore.url, error);
    }
  }
  return openEmbedded(config, 'read_store', (file) => new SqliteReadStore(file, undefined, { workers: serves }));
}

export interface Stores {
  eventStore: EventStore;
  readStore: ReadStore;
  /** Held while the stores are open when they were opened with `lock`; released after they close. */
  lock?: DataDirLock;
}

export interface OpenStoresOptions {
  /**
   * Take DATA_DIR's exclusive lock before opening anything in it: the api
   * serving it, or a rebuild of its read models. The projector's `run`
   * shares the directory with an api (PROJECTOR=external) and takes none.
   */
  lock?: 'api' | 'rebuild';
  /** This process takes the appends (the api): the embedded event store then chains the ledger in a worker thread. */
  takesAppends?: boolean;
}

/**
 * Opens the backends the configuration names: an unreachable server is a
 * ConfigError, a data directory or file that cannot be used a StorageError
 * (one line each, before Nest starts).
 */
export async function openStores(config: AppConfig, options: OpenStoresOptions = {}): Promise<Stores> {
  let lock: DataDirLock | undefined;
  if (embeddedStoreFiles(config).length > 0) {
    try {
      mkdirSync(config.dataDir, { recursive: true });
      // Before SQLite, whose "unable to open database file" would not say why.
      accessSync(config.dataDir, constants.W_OK);
    } catch (error) {
      throw storageError(config.dataDir, error);
    }
    if (options.lock) lock = lockDataDir(config.dataDir, options.lock);
  }
  try {
    const eventStore = await openEventStore(config, options.takesAppends ?? false);
    let readStore: ReadStore | undefined;
    try {
      readStore = await openReadStore(config, options.lock !== 'rebuild');
      return { eventStore, readStore, lock };
    } catch (error) {
      await readStore?.close();
      await eventStore.close();
      throw error;
    }
  } catch (error) {
    lock?.release();
    throw error;
  }
}

const DATA_DIR_LOCK = Symbol('DATA_DIR_LOCK');
/** The opened read-store adapter as a whole: only this module holds it, to close it. */
const READ_STORES = Symbol('READ_STORES');

/** Binds the EventStore port, the projections' storage and each read model's query port to the opened adapters. */
@Global()
@Module({})
export class PersistenceModule implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORES) private readonly readStore: ReadStore,
    @Inject(DATA_DIR_LOCK) private readonly lock: DataDirLock | null,
  ) {}

  static forRoot(config: AppConfig, stores: Stores): DynamicModule {
    return {
      module: PersistenceModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: EVENT_STORE, useValue: stores.eventStore },
        { provide: READ_STORES, useValue: stores.readStore },
        { provide: PROJECTION_STORE, useValue: stores.readStore },
        { provide: INCIDENT_QUERIES, useValue: stores.readStore.incidents },
        { provide: TIMELINE_QUERIES, useValue: stores.readStore.timeline },
        { provide: PREFERENCES_QUERIES, useValue: stores.readStore.preferences },
        { provide: INTEGRATION_KEY_QUERIES, useValue: stores.readStore.integrationKeys },
        { provide: INTEGRATION_KEY_HISTORY_QUERIES, useValue: stores.readStore.integrationKeyHistory },
        { provide: WEBHOOK_QUERIES, useValue: stores.readStore.webhooks },
        { provide: OUTBOUND_STORE, useValue: stores.readStore.outbound },
        { provide: NOTIFICATION_STORE, useValue: stores.readStore.notifications },
        { provide: PUSH_SUBSCRIPTION_QUERIES, useValue: stores.readStore.pushSubscriptions },
        { provide: ONCALL_QUERIES, useValue: stores.readStore.oncall },
        { provide: INCIDENT_METRICS_QUERIES, useValue: stores.readStore.metrics },
        { provide: LEASE_STORE, useValue: stores.readStore.leases },
        { provide: DATA_DIR_LOCK, useValue: stores.lock ?? null },
      ],
      exports: [APP_CONFIG, EVENT_STORE, PROJECTION_STORE, INCIDENT_QUERIES, TIMELINE_QUERIES, PREFERENCES_QUERIES, INTEGRATION_KEY_QUERIES, INTEGRATION_KEY_HISTORY_QUERIES, WEBHOOK_QUERIES, OUTBOUND_STORE, NOTIFICATION_STORE, PUSH_SUBSCRIPTION_QUERIES, ONCALL_QUERIES, INCIDENT_METRICS_QUERIES, LEASE_STORE],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await closeStores({ eventStore: this.eventStore, readStore: this.readStore, lock: this.lock ?? undefined });
  }
}

/** Closes what openStores opened: at shutdown, and when a start fails after opening them (else the files and the lock stay open). */
export async function closeStores(stores: Stores): Promise<void> {
  await stores.eventStore.close();
  await stores.readStore.close();
  // Only once the files are closed may another process open them.
  stores.lock?.release();
}
