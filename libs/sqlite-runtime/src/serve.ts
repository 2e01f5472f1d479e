import { parentPort } from 'node:worker_threads';
import { type Numbered, type ServingWorkerMessage, STOP, type SqliteWorkerError } from './messages';

/** The worker's side: imported by the files of workers/ only, which run as threads of their own. */

function port() {
  if (!parentPort) throw new Error('a SQLite worker runs in a worker thread (worker-thread.ts starts it)');
  return parentPort;
}

/** An error as a worker reports it, SQLite's code kept. */
export const reported = (error: unknown): SqliteWorkerError => ({ message: (error as Error).message, code: (error as { code?: string }).code });

/** Posts `work`'s answer, or `{error}` when it throws: a worker that answers once. */
export function answerOnce(work: () => object): void {
  try {
    port().postMessage(work());
  } catch (error) {
    port().postMessage({ error: reported(error) });
  }
}

/**
 * The worker side of ServingWorker (worker-thread.ts): `open()` answers the
 * connection, or whatever the worker keeps (`{failed}` and the thread ends if
 * it throws), and the worker is ready once it returns; `handle(db, request)`
 * each request's answer, in the order asked; STOP closes what `open` answered
 * and ends the thread.
 */
export function serveRequests<Db extends { close(): unknown }, Request, Answer extends object>(open: () => Db, handle: (db: Db, request: Request) => Answer): void {
  const parent = port();
  let db: Db;
  try {
    db = open();
  } catch (error) {
    parent.postMessage({ failed: reported(error) } satisfies ServingWorkerMessage<Answer>);
    process.exit(0);
  }
  const answer = ({ id, ...request }: Numbered<Request>): Numbered<Answer> => ({ id, ...handle(db, request as Request) });
  parent.on('message', (request: typeof STOP | Numbered<Request> | Numbered<Request>[]) => {
    if (request === STOP) {
      db.close();
      parent.close();
      return;
    }
    // A batch of requests (those asked in one turn of the asker's event loop) is answered in one message.
    parent.postMessage((Array.isArray(request) ? request.map(answer) : answer(request)) satisfies ServingWorkerMessage<Answer>);
  });
  parent.postMessage({ ready: true } satisfies ServingWorkerMessage<Answer>);
}
