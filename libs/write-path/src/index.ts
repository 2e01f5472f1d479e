/** The write path: one read, decide, append, retry loop for every stream's Decider, and what it is injected with. */
export * from './clock';
export * from './command-handler';
export type { Folded } from './folded-streams';
export * from './id-generator';
export * from './ledger.module';
export * from './read-your-writes';
export * from './write-models';
