import type Database from 'better-sqlite3';
import type { StatementCache } from './statement-cache';

/** One statement of a write: its text and its parameters, positional or named (`@name`). */
export type WriteStep = [sql: string, params: unknown[] | object];

/**
 * Transactions run on another connection to the same file, off the event
 * loop (a worker thread). `transaction` answers each step's number of changed
 * rows, rejects with SQLite's error (and its code) when the transaction failed
 * there and was rolled back, and answers undefined when it could not run it
 * (not started yet, stopped, or the worker ended before answering): the store
 * then runs it on its own connection.
 */
export interface SqliteBackgroundWrites {
  /** Transactions of fewer steps run on the store's own connection: handing them over costs more than it saves (none when absent). */
  readonly inPlaceBelowSteps?: number;
  transaction(steps: WriteStep[]): Promise<number[] | undefined>;
  close(): Promise<void>;
}

/**
 * Every write of the read-model file (projections, outbound deliveries,
 * notifications) goes through here, one transaction at a time in the order
 * asked, so a write never overtakes an earlier one whichever connection runs
 * it. Each write is idempotent (upserts, deletes, `ON CONFLICT DO NOTHING`,
 * checkpoints that only move forward): a transaction the worker may have
 * committed before it ended is run again here without harm.
 */
export class SqliteWrites {
  private tail: Promise<unknown> = Promise.resolve();
  /** During a bulk load the store's own connection writes: its settings for the load (no sync, a large cache) are what make it fast. */
  inPlace = false;
  /** The steps as one transaction on the store's own connection. */
  private readonly runHere;

  constructor(
    db: Database.Database,
    statements: StatementCache,
    private readonly background: SqliteBackgroundWrites | undefined,
  ) {
    this.runHere = db.transaction((steps: WriteStep[]) =>
      steps.map(([sql, params]) => {
        const statement = statements.get(sql);
        return (Array.isArray(params) ? statement.run(...params) : statement.run(params as Record<string, unknown>)).changes;
      }),
    );
  }

  /** Runs the steps as one transaction after every one asked for before; answers each step's changes. */
  transaction(steps: WriteStep[]): Promise<number[]> {
    const done = this.tail.then(() => this.run(steps));
    this.tail = done.catch(() => undefined);
    return done;
  }

  /** Resolves once every transaction asked for so far has ended. */
  settled(): Promise<unknown> {
    return this.tail;
  }

  /** Ends the worker once every transaction asked for so far has ended. */
  async close(): Promise<void> {
    await this.tail;
    await this.background?.close();
  }

  private async run(steps: WriteStep[]): Promise<number[]> {
    if (this.background && !this.inPlace && steps.length >= (this.background.inPlaceBelowSteps ?? 0)) {
      const changes = await this.background.transaction(steps);
      if (changes) return changes;
    }
    return this.runHere(steps);
  }
}
