import { parentPort } from 'node:worker_threads';
import { checkRuns, type RunCheckerData } from './bundle-verification';

// A helper thread of verifyBundleBytes: checks the runs it claims, then says it is done.
parentPort?.once('message', (data: RunCheckerData) => {
  checkRuns(data, (index, outcome) => parentPort?.postMessage({ index, outcome }));
  parentPort?.postMessage('done');
});
