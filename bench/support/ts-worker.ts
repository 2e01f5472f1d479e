import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * A TypeScript file of bench/ in a worker thread of its own (run through
 * tsx), with the two things its caller does: wait for the next message of a
 * type, and send one. `close` sends `{ type: 'close' }`, then ends the thread.
 */
export function tsWorker<ToWorker>(file: string, workerData: unknown) {
  const worker = new Worker(join(__dirname, '..', file), { execArgv: ['--require', require.resolve('tsx/cjs')], workerData });
  const next = (type: string) =>
    new Promise<any>((resolve, reject) => {
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return;
        worker.off('message', onMessage);
        resolve(message);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  const send = (message: ToWorker) => worker.postMessage(message);
  const close = () => {
    worker.postMessage({ type: 'close' });
    setTimeout(() => void worker.terminate(), 1000);
  };
  return { next, send, close };
}
