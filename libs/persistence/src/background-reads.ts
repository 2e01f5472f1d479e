import type { RowShape, SqliteBackgroundReads } from '@im/read-models/sqlite';
import { ServingSqliteWorker } from './sqlite-worker';

/** A read the worker runs; its answer is the rows, none when it failed there. */
interface ReadRequest {
  sql: string;
  params: unknown[];
  shape: RowShape;
}

/**
 * The worker: a read-only connection to the file, its statements prepared
 * once per text, each read answered in the order asked. A read started after
 * a commit of the service's connection sees it (WAL: each read begins at the
 * newest commit), so read-your-writes holds as on that connection.
 */
const READER = `
// background reads (bench/support/no-background-reads.preload.js recognises the worker by this line)
const statements = new Map();
serveRequests(
  (Database) => {
    const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
    return db;
  },
  (db, { sql, params, shape }) => {
    try {
      const key = shape + ' ' + sql;
      let statement = statements.get(key);
      if (!statement) statements.set(key, (statement = shape === 'pluck' ? db.prepare(sql).pluck() : db.prepare(sql).raw()));
      return { rows: statement.all(...params) };
    } catch {
      return {};
    }
  },
);
`;

/**
 * The read store's incident lists and small timeline pages run in a worker
 * thread on a connection of its own. On the event loop their statements cost more
 * than their own time: a list of 20 incidents took about 250 µs of the main
 * thread per request in the api, against 40-80 µs in a loop, because the rest
 * of each request evicts what SQLite keeps warm (docs/benchmarks.md, "Late
 * night of 2026-11-26"). The worker starts with the first read, so a store
 * that serves none (the projector, a rebuild) never starts it; until it is
 * ready, and for good once it fails, reads run on the store's connection.
 */
export class BackgroundReads implements SqliteBackgroundReads {
  private readonly worker: ServingSqliteWorker<ReadRequest, { rows?: unknown[] }>;

  constructor(file: string, onFailure: (message: string) => void, busyTimeoutMs = 5000) {
    this.worker = new ServingSqliteWorker(READER, { file, busyTimeoutMs }, { name: 'Background reads', fallback: 'lists are read on the event loop' }, onFailure);
  }

  /** Answered undefined, a read that failed in the worker runs again on the store's connection and fails there if it must. */
  async all(sql: string, params: unknown[], shape: RowShape): Promise<unknown[] | undefined> {
    return (await this.worker.ask({ sql, params, shape }))?.rows;
  }

  /** Ends the worker; a read still waiting runs on the store's connection. */
  close(): Promise<void> {
    return this.worker.close();
  }

  /** Starts the worker now rather than with the first read; resolves whether it serves. */
  start(): Promise<boolean> {
    return this.worker.start();
  }
}
