import { createServer, get, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeNow } from './sse-writer';

describe('writeNow', () => {
  it('hands the chunk to the kernel within the call, not on the next tick where the flush slice cannot see its cost', async () => {
    const unsent: number[] = [];
    const server = createServer((_req, res: ServerResponse) => {
      res.writeHead(200);
      res.write(': stream open\n\n');
      // A later turn, as at a flush tick: the response corks its socket on this write.
      setImmediate(() => {
        writeNow(res, Buffer.from('data: x\n\n'));
        unsent.push(res.socket!.writableLength, res.socket!.writableCorked);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const body = await new Promise<string>((resolve, reject) =>
        get(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
        }).on('error', reject),
      );
      expect(body).toBe(': stream open\n\ndata: x\n\n');
      expect(unsent).toEqual([0, 0]);
    } finally {
      server.close();
    }
  });
});
