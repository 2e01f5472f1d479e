import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig, ConfigError } from '@im/config';
import { EVENT_STORE, type EventStore, KurrentDbEventStore, SqliteEventStore } from '@im/event-store';
import {
  DIAGNOSTICS_STREAM_PREFIX,
  INCIDENT_STREAM_PREFIX,
  MongoReadStore,
  READ_STORE,
  type ReadStore,
  SqliteReadStore,
  USER_STREAM_PREFIX,
} from '@im/read-models';

export const EVENTS_FILE = 'events.sqlite';
export const READ_MODELS_FILE = 'read-models.sqlite';

/** Streams in which alert routing claims a fingerprint for an incident. */
export const FINGERPRINT_STREAM_PREFIX = 'fingerprint-';
/**
 * Every stream the service appends to. A KurrentDB server holds other streams
 * too (system streams, other applications): the ledger reads back only these.
 * Fingerprint claims feed no read model, but they move the head the write path
 * waits for, so the projections must see them pass.
 */
export const SERVICE_STREAM_PREFIXES = [INCIDENT_STREAM_PREFIX, USER_STREAM_PREFIX, FINGERPRINT_STREAM_PREFIX, DIAGNOSTICS_STREAM_PREFIX];

/** A backend the configuration names but that cannot be reached: one line at start-up, non-zero exit. */
const unreachable = (what: string, url: string, error: unknown) =>
  new ConfigError(`${what} at ${url.replace(/\/\/[^@/]*@/, '//***@')} is unreachable: ${(error as Error).message}`);

export async function openEventStore(config: AppConfig): Promise<EventStore> {
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
  mkdirSync(config.dataDir, { recursive: true });
  return new SqliteEventStore(join(config.dataDir, EVENTS_FILE));
}

export async function openReadStore(config: AppConfig): Promise<ReadStore> {
  if (config.readStore.kind === 'mongodb') {
    try {
      return await MongoReadStore.connect(config.readStore.url);
    } catch (error) {
      throw unreachable('MongoDB', config.readStore.url, error);
    }
  }
  mkdirSync(config.dataDir, { recursive: true });
  return new SqliteReadStore(join(config.dataDir, READ_MODELS_FILE));
}

export interface Stores {
  eventStore: EventStore;
  readStore: ReadStore;
}

/** Opens the backends the configuration names; an unreachable one is a ConfigError (one line, before Nest starts). */
export async function openStores(config: AppConfig): Promise<Stores> {
  const eventStore = await openEventStore(config);
  try {
    return { eventStore, readStore: await openReadStore(config) };
  } catch (error) {
    await eventStore.close();
    throw error;
  }
}

/** Binds the EventStore and ReadStore ports to the opened adapters. */
@Global()
@Module({})
export class PersistenceModule implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  static forRoot(config: AppConfig, stores: Stores): DynamicModule {
    return {
      module: PersistenceModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: EVENT_STORE, useValue: stores.eventStore },
        { provide: READ_STORE, useValue: stores.readStore },
      ],
      exports: [APP_CONFIG, EVENT_STORE, READ_STORE],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.eventStore.close();
    await this.readStore.close();
  }
}
