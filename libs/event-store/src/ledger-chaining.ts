import type { CloudEvent } from '@im/cloudevents';
import { type ChainHeads, chainWithFreshSalts, type LedgerEvent, type LedgerRecord } from '@im/ledger-proof';

/**
 * The ledger records of events appended after a stream's last links: every adapter calls
 * this from one place in its append, with the heads it keeps per stream, so an append costs
 * the same however long the stream is.
 */
export function chainLedger(heads: ChainHeads, events: CloudEvent[]): LedgerRecord[] {
  return chainWithFreshSalts(heads, events as unknown as LedgerEvent[]);
}

/** The heads a stored record leaves its stream with; a stream without one (or without events) has none yet. */
export const headsAfter = (record: LedgerRecord | undefined): ChainHeads => record?.heads ?? {};
