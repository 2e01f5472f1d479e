import { randomBytes } from 'node:crypto';
import { commitment, committedFormText, type LedgerEvent, redactableMembers, sha256, valueAt } from './committed-form';
import { jcs } from './jcs';

/** The clearance levels, lowest first: chain L holds the events whose visibility ranks at or below L. */
export const CHAINS = ['public', 'internal', 'restricted', 'confidential'] as const;
export type Chain = (typeof CHAINS)[number];

/** An event without im.visibility is internal. */
const DEFAULT_VISIBILITY: Chain = 'internal';

export const isChain = (value: unknown): value is Chain => (CHAINS as readonly unknown[]).includes(value);

/** The chains that hold an event. A visibility the ledger does not know counts as the highest, so no lower chain shows it. */
export function chainsOf(event: LedgerEvent): Chain[] {
  const visibility = event['im.visibility'] ?? DEFAULT_VISIBILITY;
  const rank = isChain(visibility) ? CHAINS.indexOf(visibility) : CHAINS.length - 1;
  return CHAINS.slice(rank);
}

export interface Link {
  /** Position in the chain, from 1. */
  n: number;
  hash: string;
}

/** The last link of each chain of a stream; a chain without events is absent. */
export type ChainHeads = Partial<Record<Chain, Link>>;

/** What the ledger keeps with each stored event. */
export interface LedgerRecord {
  /** base64url of the 16-byte salt of each redactable member, by JSON Pointer. */
  salts: Record<string, string>;
  /** The heads of the stream's chains once this event is in: its own link in every chain that holds it. */
  heads: ChainHeads;
}

/**
 * `sha256(UTF-8(JCS({"chain", "n", "prev", "event"})))`. The committed form is canonicalised
 * once per event; JCS of the link object is its members in name order, so it is assembled
 * around that text rather than canonicalised again for each chain.
 */
export function linkHash(chain: Chain, n: number, prev: string | null, committedJcs: string): string {
  return sha256(`{"chain":${jcs(chain)},"event":${committedJcs},"n":${n},"prev":${jcs(prev)}}`);
}

/** JCS of the committed form of a stored event: every redactable member replaced by the commitment of its salt and value. */
export function storedCommittedForm(event: LedgerEvent, salts: Record<string, string>): string {
  const commitments: Record<string, string> = {};
  for (const [pointer, salt] of Object.entries(salts)) commitments[pointer] = commitment(salt, valueAt(event, pointer));
  return committedFormText(event, commitments);
}

/**
 * The ledger records of events appended in order after `heads` (the stream's chains as they
 * stand), and the heads after them. Needs nothing of the stream but its heads, so an append
 * costs the same however long the stream is.
 */
export function chainAppends(heads: ChainHeads, events: LedgerEvent[], drawSalt: () => Buffer): { records: LedgerRecord[]; heads: ChainHeads } {
  let current = heads;
  const records = events.map((event) => {
    const salts: Record<string, string> = {};
    const commitments: Record<string, string> = {};
    for (const pointer of redactableMembers(event)) {
      const salt = drawSalt();
      salts[pointer] = salt.toString('base64url');
      commitments[pointer] = commitment(salt, valueAt(event, pointer));
    }
    const committedJcs = committedFormText(event, commitments);
    const next: ChainHeads = { ...current };
    for (const chain of chainsOf(event)) {
      const n = (current[chain]?.n ?? 0) + 1;
      next[chain] = { n, hash: linkHash(chain, n, current[chain]?.hash ?? null, committedJcs) };
    }
    current = next;
    return { salts, heads: next };
  });
  return { records, heads: current };
}

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
 * The ledger records of events appended after a stream's last links, with fresh salts: what
 * the event stores store (their appends, and the SQLite store's ledger-chain worker).
 */
export function chainWithFreshSalts(heads: ChainHeads, events: LedgerEvent[]): LedgerRecord[] {
  return chainAppends(heads, events, drawSalt).records;
}
