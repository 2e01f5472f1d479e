import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** With a backlog of one, Linux queues two connections the process has not accepted; a third waits for the handshake. */
const QUEUED = 2;

/**
 * A port on 127.0.0.1 whose connections never complete: a process listens with a backlog of
 * one and never accepts (its event loop blocked), and connections fill the kernel's queue, so
 * the next connect waits for the handshake as a blackholed host would. `close` frees it; the
 * process ends by itself after a minute if it is left behind.
 */
export async function neverAcceptingListener(): Promise<{ port: number; close: () => void }> {
  // The port is written (synchronously, to a pipe) only as the event loop blocks: no connection is accepted after it.
  const script = `const server = require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
    process.stdout.write(server.address().port + '\\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
    process.exit(0);
  });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const printed = await Promise.race([once(child.stdout!, 'data'), once(child, 'exit').then(() => undefined)]);
  if (!printed) throw new Error('the listening process ended before it listened');
  const port = Number(String(printed).trim());
  const held: Socket[] = [];
  const close = () => {
    held.forEach((socket) => socket.destroy());
    child.kill('SIGKILL');
  };
  /** Opens a connection; true once it is made, false if it is still waiting after `waitMs`. */
  const opened = (waitMs: number) =>
    new Promise<boolean>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      held.push(socket);
      socket.once('connect', () => resolve(true)).once('error', reject);
      setTimeout(() => resolve(false), waitMs);
    });
  try {
    for (let i = 0; i < QUEUED; i++) if (!(await opened(10_000))) throw new Error('a connection to fill the queue was not made');
    if (await opened(500)) throw new Error('the listener took a connection past its queue');
  } catch (error) {
    close();
    throw error;
  }
  return { port, close };
}
