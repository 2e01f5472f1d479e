import { createServer, get, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { WireChunk, writeNow } from './sse-writer';

/** A server whose every response opens a stream, then at a later turn (as at a flush tick) writes two chunks with writeNow and ends. */
async function streamingServer(onWritten: (res: ServerResponse) => void) {
  const server = createServer((_req, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // The response corks its socket on this write, until the next tick.
    res.write(': stream open\n\n');
    setImmediate(() => {
      const shared = new WireChunk(Buffer.from('data: é\n\n'));
      writeNow(res, shared);
      writeNow(res, new WireChunk(Buffer.from('data: x\n\n')));
      onWritten(res);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('writeNow', () => {
  it('hands the chunk to the kernel within the call, framed for HTTP/1.1 so that a real client reads the events in order', async () => {
    const unsent: number[] = [];
    const { server, port } = await streamingServer((res) => unsent.push(res.socket!.writableLength, res.socket!.writableCorked));
    try {
      const body = await new Promise<string>((resolve, reject) =>
        get(`http://127.0.0.1:${port}`, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
        }).on('error', reject),
      );
      expect(body).toBe(': stream open\n\ndata: é\n\ndata: x\n\n');
      expect(unsent).toEqual([0, 0]);
    } finally {
      server.close();
    }
  });

  it('writes the bare bytes to an HTTP/1.0 client, which is not sent chunks', async () => {
    const { server, port } = await streamingServer(() => undefined);
    try {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.0\r\n\r\n'));
        let text = '';
        socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text)).on('error', reject);
      });
      expect(raw.slice(raw.indexOf('\r\n\r\n') + 4)).toBe(': stream open\n\ndata: é\n\ndata: x\n\n');
      expect(raw.toLowerCase()).not.toContain('transfer-encoding');
    } finally {
      server.close();
    }
  });
});
