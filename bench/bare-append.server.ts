/**
 * The ceiling for timeline appends: plain node:http and better-sqlite3 with
 * the same durability (WAL, synchronous=FULL, one commit before the answer)
 * and the same idempotency index on (source, origin id), nothing else.
 */
import Database from 'better-sqlite3';
import { createServer } from 'node:http';
import { join } from 'node:path';

const db = new Database(join(process.argv[2], 'bare.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY, source TEXT NOT NULL, id TEXT NOT NULL, origin_id TEXT, body TEXT NOT NULL,
  UNIQUE (source, id));
  CREATE UNIQUE INDEX IF NOT EXISTS events_origin ON events (source, origin_id) WHERE origin_id IS NOT NULL;`);
const insert = db.prepare(`INSERT INTO events (source, id, origin_id, body) VALUES (?, ?, ?, ?)`);

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      const body = Buffer.concat(chunks).toString();
      const event = JSON.parse(body);
      insert.run(event.source, event.id, event['im.origin_id'] ?? null, body);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ event_id: event.id, created: true }));
    } catch (error) {
      res.writeHead(400).end(String(error));
    }
  });
}).listen(0, '127.0.0.1', function (this: import('node:net').Server) {
  const address = this.address() as import('node:net').AddressInfo;
  console.log(`listening on http://127.0.0.1:${address.port},`);
});
