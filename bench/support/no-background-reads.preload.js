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
  constructor(file, options) {
    // The reads' worker is its own file (libs/sqlite-runtime/src/workers/reads.worker.ts, built as workers/reads.worker.js).
    const isBackgroundReads = /[\\/]reads\.worker\.[jt]s$/.test(String(file));
    super(isBackgroundReads ? require('node:path').join(__dirname, 'failed-worker.js') : file, isBackgroundReads ? {} : options);
  }
};
