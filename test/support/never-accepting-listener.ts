import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/**
 * A port on 127.0.0.1 whose connections never complete: a process listens with a backlog of
 * one and never accepts (its event loop blocked), and connections are opened until the
 * kernel's queue is full, so the next connect waits for the handshake as a blackholed host
 * would. `close` frees it; the process ends by itself after a minute if it is left behind.
 */
export async function neverAcceptingListener(): Promise<{ port: number; close: () => void }> {
  // The port is written (synchronously, to a pipe) only as the event loop blocks: no connection is accepted after it.
  const script = `const server = require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
    process.stdout.write(server.address().port + '\\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
    process.exit(0);
  });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = Number(String(await once(child.stdout!, 'data')).trim());
  const held: Socket[] = [];
  const close = () => {
    held.forEach((socket) => socket.destroy());
    child.kill('SIGKILL');
  };
  for (let connected = true; connected; ) {
    const socket = connect(port, '127.0.0.1');
    held.push(socket);
    // A connect still waiting after 500 ms found the queue full; one that failed means the listener is gone.
    connected = await new Promise<boolean>((resolve, reject) => {
      socket.once('connect', () => resolve(true)).once('error', reject);
      setTimeout(() => resolve(false), 500);
    }).catch((error: unknown) => {
      close();
      throw error;
    });
    if (held.length > 20) {
      close();
      throw new Error('the listener kept accepting connections');
    }
  }
  return { port, close };
}
