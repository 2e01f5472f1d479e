import { isMainThread } from 'node:worker_threads';

// The api. Run again as a worker thread (the event store's LedgerChainWorker), this script
// computes the ledger's links, and loads only what that needs: hence the imports on demand.
if (isMainThread) void import('./start-api').then(({ startApi }) => startApi());
else void import('@im/event-store').then(({ serveLedgerChaining }) => serveLedgerChaining());
