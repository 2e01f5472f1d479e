/**
 * `node -r bench/support/no-background-reads.preload.js dist/apps/api/main.js`:
 * the api with its background reads' worker failing at once, so every list
 * runs on the read store's own connection, as before background reads. For
 * comparisons in one run: `VARIANTS="worker:,in-place:NODE_OPTIONS=--require
 * <abs path>/bench/support/no-background-reads.preload.js" … bench/graphql-interleaved.ts`.
 */
const workerThreads = require('node:worker_threads');

const Worker = workerThreads.Worker;
workerThreads.Worker = class extends Worker {
  constructor(code, options) {
    const isBackgroundReads = options?.eval && String(code).includes('// background reads (');
    super(isBackgroundReads ? "require('node:worker_threads').parentPort.postMessage({ failed: { message: 'turned off by no-background-reads.preload.js' } }); process.exit(0);" : code, options);
  }
};
