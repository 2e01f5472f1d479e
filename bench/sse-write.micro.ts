/**
 * `npx ts-node --transpile-only -r tsconfig-paths/register bench/sse-write.micro.ts`:
 * the CPU of one SSE write at a flush tick, the service's `writeNow` against
 * the response's own `write` (then uncorked), to 1,000 open event streams on
 * loopback read by a child process, alternated over 4 rounds of 200 ticks.
 * Prints µs per write; not part of `npm run bench` (docs/benchmarks.md
 * quotes it where it was used).
 */
import { fork } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WireChunk, writeNow } from '../apps/api/src/live/sse-writer';

const STREAMS = 1000;
const TICKS = 200;

const readerSource = `
const net = require('node:net');
const [port, n] = process.argv.slice(1).map(Number);
for (let i = 0; i < n; i++) {
  const s = net.connect(port, '127.0.0.1', () => s.write('GET / HTTP/1.1\\r\\nhost: bench\\r\\n\\r\\n'));
  s.on('data', () => {});
}`;

const chunk = new WireChunk(Buffer.from(`id: 1\nevent: timeline\ndata: ${JSON.stringify({ type: 'im.incident.note', data: { text: 'a'.repeat(600) } })}\n\n`));
const ways: Record<string, (res: ServerResponse) => void> = {
  'response.write': (res) => {
    res.write(chunk.bytes);
    if (res.socket && res.socket.writableCorked > 0) res.socket.uncork();
  },
  writeNow: (res) => writeNow(res, chunk),
};

async function main() {
  const responses: ServerResponse[] = [];
  let allOpen!: () => void;
  const opened = new Promise<void>((resolve) => (allOpen = resolve));
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': stream open\n\n');
    if (responses.push(res) === STREAMS) allOpen();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const reader = fork('-e', [readerSource, String((server.address() as AddressInfo).port), String(STREAMS)], { execArgv: [] });
  await opened;
  for (let round = 0; round < 4; round++) {
    for (const [name, write] of round % 2 === 0 ? Object.entries(ways) : Object.entries(ways).reverse()) {
      let cpuUs = 0;
      for (let tick = 0; tick < TICKS; tick++) {
        const before = process.cpuUsage();
        for (const res of responses) write(res);
        const used = process.cpuUsage(before);
        cpuUs += used.user + used.system;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      console.log(`round ${round + 1}  ${name.padEnd(15)} ${(cpuUs / TICKS / STREAMS).toFixed(2)} µs CPU per write`);
    }
  }
  reader.kill();
  server.closeAllConnections();
  server.close();
}

void main();
