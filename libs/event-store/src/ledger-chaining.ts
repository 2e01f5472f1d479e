import { randomBytes } from 'node:crypto';
import type { CloudEvent } from '@im/cloudevents';
import { type ChainHeads, chainAppends, type LedgerRecord } from '@im/ledger-proof';

/** Salts are drawn 256 at a time: one call to the CSPRNG costs more than the bytes it gives. */
const SALT = 16;
let pool = Buffer.alloc(0);
let drawn = 0;
function drawSalt(): Buffer {
  if (drawn + SALT > pool.length) {
    pool = randomBytes(SALT * 256);
    drawn = 0;
  }
  drawn += SALT;
  return pool.subarray(drawn - SALT, drawn);
}

/**
 * The ledger records of events appended after a stream's last links: every adapter calls
 * this from one place in its append, with the heads it keeps per stream, so an append costs
 * the same however long the stream is.
 */
export function chainLedger(heads: ChainHeads, events: CloudEvent[]): LedgerRecord[] {
  return chainAppends(heads, events as unknown as Record<string, unknown>[], drawSalt).records;
}

/** The heads a stored record leaves its stream with; a stream without one (or without events) has none yet. */
export const headsAfter = (record: LedgerRecord | undefined): ChainHeads => record?.heads ?? {};
