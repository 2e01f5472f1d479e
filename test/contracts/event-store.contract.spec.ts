import { join } from 'node:path';
import { SqliteEventStore } from '@im/event-store';
import { describeEventStoreContract } from '../../libs/event-store/src/event-store.contract';
import { tempDir } from '../support/temp-dir';

describeEventStoreContract('sqlite', () => {
  const dir = tempDir('events');
  return {
    open: async () => new SqliteEventStore(join(dir.path, 'events.sqlite'), { pollIntervalMs: 20 }),
    dispose: async () => dir.remove(),
  };
});
