import { parentPort, workerData } from 'node:worker_threads';
import { asBundle } from '@im/ledger-proof';
import { checkClaimedChunks, type SharedProgress } from './bundle-verification';

// The second thread of verifyBundleText: the same text, its share of the chunks, its earliest failure back.
const { text, progress } = workerData as { text: string; progress: SharedProgress };
let failure = null;
try {
  failure = checkClaimedChunks(asBundle(JSON.parse(text)), progress) ?? null;
} catch {
  // Not a bundle: the caller's own parse says so.
}
parentPort!.postMessage(failure);
