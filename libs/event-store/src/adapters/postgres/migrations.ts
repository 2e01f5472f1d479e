import type { Migration } from '@im/postgres-runtime';

/** The event store's name in schema_migrations. */
export const EVENT_STORE_COMPONENT = 'event_store';

/**
 * The event store's schema, in order; a change is a new migration at the end.
 *
 * - `event_log_head`: one row, the last position given out. Every append locks
 *   it first and moves it on in its own transaction (PostgresEventStore, "Commit order").
 * - `events`: the log. `body` and `ledger` are `json`, kept as written: a
 *   CloudEvent reads back exactly (members in their order, extension
 *   attributes, data of any JSON type), and so do the salts' order.
 * - `event_dedup_keys`: each key once, naming the first event of the append that took it.
 */
export const EVENT_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'events, dedup keys and the log head',
    sql: `
      CREATE TABLE event_log_head (
        single   boolean PRIMARY KEY DEFAULT true CHECK (single),
        position bigint  NOT NULL
      );
      INSERT INTO event_log_head (position) VALUES (0);
      CREATE TABLE events (
        position    bigint      PRIMARY KEY,
        stream_id   text        NOT NULL,
        revision    bigint      NOT NULL,
        event_id    text        NOT NULL,
        type        text        NOT NULL,
        recorded_at timestamptz NOT NULL,
        body        json        NOT NULL,
        ledger      json        NOT NULL,
        UNIQUE (stream_id, revision)
      );
      CREATE TABLE event_dedup_keys (
        key      text   PRIMARY KEY,
        position bigint NOT NULL REFERENCES events (position)
      );
    `,
  },
];
