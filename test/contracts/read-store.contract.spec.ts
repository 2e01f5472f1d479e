import { join } from 'node:path';
import { SqliteReadStore } from '@im/read-models';
import { describeReadStoreContract } from '../../libs/read-models/src/read-store.contract';
import { tempDir } from '../support/temp-dir';

describeReadStoreContract('sqlite', () => {
  const dir = tempDir('read');
  return {
    open: async () => new SqliteReadStore(join(dir.path, 'read-models.sqlite')),
    dispose: async () => dir.remove(),
  };
});
