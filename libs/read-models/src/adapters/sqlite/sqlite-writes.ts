import type Database from 'better-sqlite3';
import type { StatementCache } from './statement-cache';

/** One statement of a write: its text and its parameters, positional or named (`@name`). */
export type WriteStep = [sql: string, params: unknown[] | object];

/**
 * Every write of the read-model file (projections, outbound deliveries,
 * notifications) goes through here: the steps as one transaction on the
 * store's connection, answered with each step's number of changed rows. (A
 * worker thread for the large ones cost more CPU than it saved and made no
 * write faster: docs/benchmarks.md, "SQLite runtime: what each worker earns".)
 * The leases' own statements run in SqliteLeaseStore: each answers a row.
 */
export class SqliteWrites {
  private readonly runSteps;

  constructor(db: Database.Database, statements: StatementCache) {
    this.runSteps = db.transaction((steps: WriteStep[], check?: () => void) => {
      check?.();
      return steps.map(([sql, params]) => {
        const statement = statements.get(sql);
        return (Array.isArray(params) ? statement.run(...params) : statement.run(params as Record<string, unknown>)).changes;
      });
    });
  }

  /**
   * Runs the steps as one transaction; answers each step's changes. `check`
   * (a lease's fence) runs first, inside it: begun IMMEDIATE, the transaction
   * holds the file's write lock from the start, so no other process changes
   * the lease between the check and the writes.
   */
  async transaction(steps: WriteStep[], check?: () => void): Promise<number[]> {
    return check ? this.runSteps.immediate(steps, check) : this.runSteps(steps);
  }
}
