// What no-background-reads.preload.js starts instead of the reads' worker: a worker that could not open its file.
require('node:worker_threads').parentPort.postMessage({ failed: { message: 'turned off by no-background-reads.preload.js' } });
process.exit(0);
