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
 */
export class SqliteWrites {
  private readonly runSteps;

  constructor(db: Database.Database, statements: StatementCache) {
    this.runSteps = db.transaction((steps: WriteStep[]) =>
      steps.map(([sql, params]) => {
        const statement = statements.get(sql);
        return (Array.isArray(params) ? statement.run(...params) : statement.run(params as Record<string, unknown>)).changes;
      }),
    );
  }

  /** Runs the steps as one transaction; answers each step's changes. */
  async transaction(steps: WriteStep[]): Promise<number[]> {
    return this.runSteps(steps);
  }
}
