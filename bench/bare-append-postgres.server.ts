/**
 * The ceiling for appends on PostgreSQL: plain node:http and the api's driver
 * (`pg`, a Pool of its default size, as the event store opens it), one INSERT
 * per request into a table with a unique index on (source, origin id), the
 * idempotency key, committed with synchronous_commit on (the server's
 * default) before the answer, nothing else. The database URL is the argument.
 */
import { createServer } from 'node:http';
import { Pool } from 'pg';

const pool = new Pool({ connectionString: process.argv[2] });

async function main() {
  await pool.query(`CREATE TABLE IF NOT EXISTS events (
    position bigserial PRIMARY KEY, source text NOT NULL, id text NOT NULL, origin_id text, body json NOT NULL,
    UNIQUE (source, id));
    CREATE UNIQUE INDEX IF NOT EXISTS events_origin ON events (source, origin_id) WHERE origin_id IS NOT NULL;`);
  createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      let event: Record<string, string>;
      try {
        event = JSON.parse(body);
      } catch (error) {
        return res.writeHead(400).end(String(error));
      }
      pool.query(`INSERT INTO events (source, id, origin_id, body) VALUES ($1, $2, $3, $4)`, [event.source, event.id, event['im.origin_id'] ?? null, body]).then(
        () => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ event_id: event.id, created: true })),
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
  }).listen(0, '127.0.0.1', function (this: import('node:net').Server) {
    const address = this.address() as import('node:net').AddressInfo;
    console.log(`listening on http://127.0.0.1:${address.port},`);
  });
}

void main();
