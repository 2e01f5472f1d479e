import { type Chain, type ChainHeads, CHAINS, chainsOf, type LedgerEvent, type LedgerRecord, type Link, linkHash, storedCommittedForm } from '@im/ledger-proof';

/** How far a stream's chains were verified: through the event at `revision`, whose stored heads are `heads`. */
export interface Verified {
  revision: number;
  heads: ChainHeads;
  /** When it was verified (RFC 3339), named in a report. */
  at: string;
}

/** A stored event as the check reads it. */
export interface StoredLink {
  revision: number;
  id: string;
  event: LedgerEvent;
  ledger: LedgerRecord | undefined;
}

/** The positions of a chain the service vouched for: n -> the hashes signed there, and when (more than one hash is itself a rewrite). */
export type SignedPositions = Partial<Record<Chain, Map<number, { hash: string; signedAt: string }[]>>>;

/** Where a chain of an incident stopped extending what was verified or signed before. */
export interface Rewrite {
  incidentId: string;
  chain: Chain;
  /** The chain position where the stored chain and the earlier record disagree; the changed event is at or before it. */
  n: number;
  /** The stored event at that position, when there is one. */
  eventId: string | null;
  reason: string;
}

export interface ContinuityOutcome {
  /** How far the stream is now verified; undefined when a chain was rewritten (the record stays where it was) or no event was read. */
  through: Verified | undefined;
  /** At most one per chain: the first disagreement found in it. */
  rewrites: Rewrite[];
}

const sameLink = (a: Link | undefined, b: Link | undefined) => a?.n === b?.n && a?.hash === b?.hash;
const short = (hash: string) => hash.slice(0, 'sha256:'.length + 12);

/**
 * Checks a stream's events, read from `from.revision` on (the event `from` ends with first),
 * or from its start: each stored link is recomputed from the event's committed form and the
 * link before it; the chains must pass through every head signed past `from`, and through
 * `known` (how far the stream was verified before) when the events reach it; no chain may end
 * before a position that was verified or signed. Pure: the caller reads.
 */
export function followChains(incidentId: string, events: StoredLink[], from: Verified | undefined, known: Verified | undefined, signed: SignedPositions, now: string): ContinuityOutcome {
  const rewrites = new Map<Chain, Rewrite>();
  const report = (chain: Chain, n: number, eventId: string | null, reason: string) => {
    if (!rewrites.has(chain)) rewrites.set(chain, { incidentId, chain, n, eventId, reason });
  };
  const matchKnown = (revision: number, id: string, holding: readonly Chain[], heads: ChainHeads) => {
    if (!known || revision !== known.revision) return;
    for (const chain of CHAINS) {
      const link = known.heads[chain];
      if (sameLink(heads[chain], link)) continue;
      const n = link?.n ?? heads[chain]?.n ?? 0;
      // The event verified last may not be in this chain: then its id is not named to the chain's readers.
      report(chain, n, holding.includes(chain) ? id : null, `its link at position ${n} is not the one verified at ${known.at} (${link ? short(link.hash) : 'none'}): an event at or before it was changed or removed`);
    }
  };
  let current: ChainHeads = {};
  let rest = events;
  if (from) {
    const [first] = events;
    if (first?.revision === from.revision) {
      matchKnown(first.revision, first.id, first.ledger ? chainsOf(first.event) : [], first.ledger?.heads ?? {});
      current = from.heads;
      rest = events.slice(1);
    }
  }
  for (const { revision, id, event, ledger } of rest) {
    if (!ledger) {
      // Stored before the ledger (KurrentDB events are not upgraded): the store chains the next event from nothing, and so does the check.
      current = {};
      matchKnown(revision, id, [], {});
      continue;
    }
    const holding = chainsOf(event);
    const committed = storedCommittedForm(event, ledger.salts);
    for (const chain of CHAINS) {
      const stored = ledger.heads[chain];
      const before = current[chain];
      const n = (before?.n ?? 0) + 1;
      const expected = holding.includes(chain) ? { n, hash: linkHash(chain, n, before?.hash ?? null, committed) } : before;
      if (!sameLink(stored, expected)) {
        // Named by chain position only: a stream revision counts the events of every chain, withheld ones included.
        report(chain, expected?.n ?? stored?.n ?? 0, holding.includes(chain) ? id : null, 'its stored link does not match its content and the link before it');
        continue;
      }
      const other = holding.includes(chain) ? signed[chain]?.get(n)?.find((head) => head.hash !== expected!.hash) : undefined;
      if (other) report(chain, n, id, `the head signed at ${other.signedAt} for position ${n} is ${short(other.hash)}, the stored chain has ${short(expected!.hash)}: an event at or before it was changed`);
    }
    current = ledger.heads;
    matchKnown(revision, id, holding, ledger.heads);
  }
  const end = events.at(-1)?.revision ?? -1;
  if (known && end < known.revision) {
    for (const chain of CHAINS) {
      const link = known.heads[chain];
      if (link) report(chain, link.n, null, `the chain ends before position ${link.n}, verified at ${known.at}: its tail was deleted`);
    }
  }
  for (const chain of CHAINS) {
    const last = current[chain]?.n ?? 0;
    const beyond = [...(signed[chain]?.entries() ?? [])].filter(([n]) => n > last).sort(([a], [b]) => a - b)[0];
    if (beyond) report(chain, beyond[0], null, `the chain ends at position ${last}, but a head was signed for position ${beyond[0]} at ${beyond[1][0].signedAt}: its tail was deleted`);
  }
  const through = rewrites.size === 0 && end >= 0 ? { revision: end, heads: events.at(-1)!.ledger?.heads ?? {}, at: now } : undefined;
  return { through, rewrites: [...rewrites.values()] };
}

/** One line naming a rewrite, for the log and validate. */
export const describeRewrite = (r: Rewrite) => `incident ${r.incidentId}, chain ${r.chain}, position ${r.n}${r.eventId ? ` (event ${r.eventId})` : ''}: ${r.reason}`;
