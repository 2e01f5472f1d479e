export * from './sqlite-event-store';
export { serveLedgerChaining } from './ledger-chain-worker';
