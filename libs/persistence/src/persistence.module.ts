import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EVENT_STORE, type EventStore, SqliteEventStore } from '@im/event-store';
import { READ_STORE, type ReadStore, SqliteReadStore } from '@im/read-models';

export const EVENTS_FILE = 'events.sqlite';
export const READ_MODELS_FILE = 'read-models.sqlite';

export function openEventStore(config: AppConfig): EventStore {
  mkdirSync(config.dataDir, { recursive: true });
  return new SqliteEventStore(join(config.dataDir, EVENTS_FILE));
}

export function openReadStore(config: AppConfig): ReadStore {
  mkdirSync(config.dataDir, { recursive: true });
  return new SqliteReadStore(join(config.dataDir, READ_MODELS_FILE));
}

/** Binds the EventStore and ReadStore ports to the adapters the configuration names. */
@Global()
@Module({})
export class PersistenceModule implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: PersistenceModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: EVENT_STORE, useFactory: () => openEventStore(config) },
        { provide: READ_STORE, useFactory: () => openReadStore(config) },
      ],
      exports: [APP_CONFIG, EVENT_STORE, READ_STORE],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.eventStore.close();
    await this.readStore.close();
  }
}
