import { Injectable } from '@nestjs/common';
import { BUNDLE_FORMAT, type Chain, chainView, type LedgerBundle, type LedgerEvent, type SignedHead, verifyBundle } from '@im/ledger-proof';
import type { RedactedEntry } from '@im/policy';
import type { Principal } from '@im/access';
import { RetryLaterError } from '../errors/error-mapping';
import { TimelineReader } from '../timeline/timeline-reader.service';
import { LedgerContinuity } from './ledger-continuity';
import { LedgerKeys } from './ledger-keys';
import { SignedHeads } from './signed-heads';

/** An exported event: as the caller is shown it, with its `im.ledger` in the caller's chain. */
export interface ExportedEvent {
  shown: RedactedEntry;
  position: bigint;
  event: LedgerEvent;
}

/** The caller's view of an incident's ledger: the events in stream order and the chain's signed head. */
export interface LedgerExport {
  chain: Chain;
  events: ExportedEvent[];
  head: SignedHead;
}

/** The answer of GET /api/v1/incidents/{id}/timeline/verify. */
export type VerifyAnswer =
  | { intact: true; chain: Chain; n: number; head: string | null }
  | { intact: false; chain: Chain; broken_at: { n: number; event_id: string | null; reason: string } };

/**
 * Exports of the verifiable ledger (docs/api.md, "Verifiable ledger"): the caller's chain is their
 * clearance; each event they are shown carries its link and the salts of what they see.
 */
@Injectable()
export class LedgerExports {
  constructor(
    private readonly reader: TimelineReader,
    private readonly heads: SignedHeads,
    private readonly keys: LedgerKeys,
    private readonly continuity: LedgerContinuity,
  ) {}

  /** Signs (and keeps) the chain's head unless `keep` is false. */
  async export(caller: Principal, incidentId: string, keep = true): Promise<LedgerExport> {
    const chain: Chain = caller.clearance;
    // Recomputed against what was signed and verified before: a rewritten chain gets no new signature (LedgerRewrittenError, 409).
    // A read overtaken by later events already checked or signed is read again, once.
    let read = await this.checkedRead(caller, incidentId);
    if (!read.checked) read = await this.checkedRead(caller, incidentId);
    const { stream, checked } = read;
    if (!checked) throw new RetryLaterError("The incident's ledger is being appended to faster than it can be exported; retry shortly", 1);
    const views = chainView(
      stream.map((entry) => ({ event: entry.recorded.event as unknown as LedgerEvent, ledger: entry.recorded.ledger, entry })),
      chain,
      (s) => s.entry.shown?.entry.event as unknown as LedgerEvent | undefined,
    );
    const events = views.map(({ stored, event }) => ({ shown: stored.entry.shown!, position: stored.entry.recorded.position, event }));
    return { chain, events, head: this.heads.sign(checked, chain, keep) };
  }

  private async checkedRead(caller: Principal, incidentId: string) {
    const stream = await this.reader.ledger(caller, incidentId);
    return { stream, checked: await this.continuity.checkRead(incidentId, stream.map((entry) => entry.recorded)) };
  }

  /** `?format=ledger`: the bundle an auditor keeps. */
  bundle(incidentId: string, exported: LedgerExport): LedgerBundle {
    return { format: BUNDLE_FORMAT, incident_id: incidentId, events: exported.events.map((e) => e.event), head: exported.head, keys: [this.keys.active] };
  }

  /** Recomputes the caller's chain from the stored events, as the verify command would from their export. */
  async verify(caller: Principal, incidentId: string): Promise<VerifyAnswer> {
    const exported = await this.export(caller, incidentId, false);
    const verdict = verifyBundle(this.bundle(incidentId, exported), [this.keys.active]);
    // Links that chain, but not through what the service signed or verified before: a rewritten history.
    const rewrite = verdict.intact ? this.continuity.rewriteOf(incidentId, exported.chain) : undefined;
    if (rewrite) return { intact: false, chain: exported.chain, broken_at: { n: rewrite.n, event_id: rewrite.eventId, reason: rewrite.reason } };
    if (verdict.intact) return { intact: true, chain: exported.chain, n: verdict.n, head: verdict.head };
    const at = verdict.brokenAt === 'head' ? { n: exported.events.length, event_id: (exported.events.at(-1)?.event.id as string | undefined) ?? null } : { n: verdict.brokenAt.n, event_id: verdict.brokenAt.eventId };
    return { intact: false, chain: exported.chain, broken_at: { ...at, reason: verdict.reason } };
  }
}

/** JSON and Markdown exports keep the timeline's order: event time, then log position. */
export const inTimelineOrder = (events: ExportedEvent[]): ExportedEvent[] =>
  [...events].sort((a, b) => (a.shown.entry.eventTime < b.shown.entry.eventTime ? -1 : a.shown.entry.eventTime > b.shown.entry.eventTime ? 1 : a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
