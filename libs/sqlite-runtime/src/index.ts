// The embedded store's runtime: the threads the SQLite adapters run beside
// their own connection, each a typed module of workers/ started by its file
// name (worker-thread.ts; the built apps carry one bundle per worker,
// webpack.config.js beside src/). Read top to bottom:
//   messages.ts       what the two sides of a worker say to each other
//   worker-thread.ts  the main thread's side: startThread, askWorker (answers once), ServingWorker (request by request)
//   serve.ts          the worker's side of the same
//   quick-check.ts    quick_check of a file, off the event loop (start-up, GET /api/v1/validate)
//   ledger-chain.ts   the event store's ledger links, computed while the previous commit syncs
//   checkpoints.ts    each store file's WAL copied into the file, off the committing connection
//   index-builds.ts   the indexes that end a bulk load
//   reads.ts          the read store's lists
// The adapters open the workers they use (@im/event-store/sqlite, @im/read-models/sqlite);
// what each earns is measured in docs/benchmarks.md, "SQLite runtime: what each worker earns".
// What the adapters (and the api's bundle checker, which starts its threads the same way) use:
export { startThread } from './worker-thread';
export { quickCheck } from './quick-check';
export { LedgerChainWorker } from './ledger-chain';
export { BackgroundCheckpoints } from './checkpoints';
export { type BulkLoadSettings, buildIndexesInWorker } from './index-builds';
export { BackgroundReads, type RowShape } from './reads';
