import { type BeforeApplicationShutdown, ConflictException, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { createPublicKey, sign, verify } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '@im/event-store';
import { incidentIdOfStream, incidentStreamId } from '@im/incidents';
import { type Chain, type ChainHeads, CHAINS, headSignedBy, isChain, type LedgerEvent, type LedgerJwk, type SignedHead } from '@im/ledger-proof';
import { describeRewrite, followChains, type Rewrite, type SignedPositions, type StoredLink, type Verified } from './chain-continuity';
import { RetryLaterError } from '../errors/error-mapping';
import { LedgerKeys } from './ledger-keys';

/** Every head the service signs, one JSON line each, for the operator to ship where the server cannot rewrite it. */
export const SIGNED_HEADS_FILE = 'ledger-heads.jsonl';
/** How far each incident stream's chains were verified, signed with the ledger key so that the store's writer cannot move it. */
export const VERIFIED_FILE = 'ledger-verified.json';
/** Events read per step of the log's check: a bound on memory (docs/benchmarks.md, "Checking the ledger's chains at start", measured the check with it). */
const LOG_BATCH = 1000;

const CHECKED: unique symbol = Symbol('checked');

/** A line of the heads file; `ok` once its signature was checked. */
interface SignedLine {
  head: SignedHead;
  ok?: boolean;
}

/** Heads that the check vouches for: only `LedgerContinuity` makes them, and only these are signed. */
export interface CheckedHeads {
  readonly incidentId: string;
  readonly heads: ChainHeads;
  readonly checked: typeof CHECKED;
}

/** What a caller is told of a chain that no longer extends what the service vouched for. */
export class LedgerRewrittenError extends ConflictException {
  constructor(readonly rewrite: Rewrite) {
    super(`the ledger of ${describeRewrite(rewrite)}. The service signs no head for this chain until the stored history is restored`);
  }
}

/**
 * Keeps the service from vouching for a rewritten history (docs/security.md, "Write access
 * to the store"). A head is signed only for a chain that extends the last head signed for it,
 * as recomputed from the stored events; at start and in validate every incident stream is
 * checked from where it was last verified (DATA_DIR/ledger-verified.json), so the cost is the
 * events written since, plus one read per stream.
 */
@Injectable()
export class LedgerContinuity implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('LedgerContinuity');
  private readonly headsFile: string;
  private readonly verifiedFile: string;
  /**
   * incident id -> chain -> every head signed for it, as the heads file holds them. A line's
   * signature is checked when the line is first needed (an Ed25519 check costs about 0.2 ms:
   * minutes for a heads file of a few years), and a line that fails is left out.
   */
  private readonly signed = new Map<string, Partial<Record<Chain, SignedLine[]>>>();
  private publishedKeys = new Map<string, LedgerJwk>();
  /** stream id -> how far it was verified. */
  private verified = new Map<string, Verified>();
  /** Incident streams found in the log but not verified yet (new, or rewritten before their first check): checked from their start. */
  private unverified = new Set<string>();
  /** The log position below which every incident stream is in `verified` or `unverified`. */
  private position = 0n;
  private readonly rewrites = new Map<string, Partial<Record<Chain, Rewrite>>>();
  private dirty = false;
  /** Events read by the checks since start: what the incremental check saves is events not read again. */
  eventsRead = 0;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly keys: LedgerKeys,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.headsFile = join(config.dataDir, SIGNED_HEADS_FILE);
    this.verifiedFile = join(config.dataDir, VERIFIED_FILE);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.loadSignedHeads();
    this.loadVerified();
    const started = Date.now();
    const read = this.eventsRead;
    // Each rewrite found is logged as an error line where it is recorded.
    const found = await this.checkAll();
    this.logger.log(
      `ledger: ${this.verified.size} incident stream(s) checked from where they were last verified, ${this.eventsRead - read} event(s) read, in ${Date.now() - started} ms` +
        (found.length > 0 ? `; ${found.length} chain(s) rewritten` : ''),
    );
  }

  /** The last check before the stores close: a restart then checks only what is written after it. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.checkAll().catch((error: unknown) => this.logger.warn(`checking the ledger before shutdown failed: ${(error as Error).message}`));
  }

  /**
   * Checks every incident stream from where it was verified, and those new since, then keeps
   * how far; answers every rewrite found (now or before, in this process).
   */
  async checkAll(): Promise<Rewrite[]> {
    for (let after = this.position; ; ) {
      const events = await this.store.readAll(after, LOG_BATCH);
      this.eventsRead += events.length;
      for (const { streamId } of events) {
        if (incidentIdOfStream(streamId) !== undefined && !this.verified.has(streamId)) this.unverified.add(streamId);
      }
      if (events.length > 0) {
        after = events[events.length - 1].position;
        this.position = after;
        this.dirty = true;
      }
      if (events.length < LOG_BATCH) break;
    }
    for (const streamId of [...this.verified.keys(), ...this.unverified]) await this.checkStream(streamId);
    this.save();
    return this.found();
  }

  /** Every rewrite found, by incident and chain. */
  found(): Rewrite[] {
    return [...this.rewrites.values()].flatMap((chains) => Object.values(chains));
  }

  /** Checks the incident's stream from where it was verified: the heads to sign, or the chains' rewrites. */
  async check(incidentId: string): Promise<CheckedHeads> {
    const streamId = incidentStreamId(incidentId);
    await this.checkStream(streamId);
    return this.checkedHeads(incidentId, this.verified.get(streamId)?.heads ?? {});
  }

  /**
   * Checks a stream as an export read it, from where it was last verified (the event there
   * must still have the verified heads; the links after it are recomputed), against what was
   * signed: the heads of what was read, to sign. Undefined when the read was overtaken (a check
   * or a head signed since went further than it): the caller reads again.
   */
  async checkRead(incidentId: string, stream: RecordedEvent[]): Promise<CheckedHeads | undefined> {
    const streamId = incidentStreamId(incidentId);
    const known = this.verified.get(streamId);
    const heads = stream.at(-1)?.ledger?.heads ?? {};
    const signedFurther = CHAINS.some((chain) => (this.lastSignedHead(incidentId, chain)?.n ?? 0) > (heads[chain]?.n ?? 0));
    if (signedFurther || (known && Number(stream.at(-1)?.revision ?? -1) < known.revision)) {
      // Appends checked or signed since the read, or a stream that lost its tail: a fresh read tells which.
      await this.check(incidentId);
      return this.rewrites.has(incidentId) ? this.checkedHeads(incidentId, heads) : undefined;
    }
    const unverified = known ? stream.filter((e) => Number(e.revision) >= known.revision) : stream;
    const outcome = followChains(incidentId, unverified.map(storedLink), known, known, this.signedPast(incidentId, known), new Date().toISOString());
    this.record(incidentId, outcome.rewrites);
    if (outcome.through && outcome.through.revision > (known?.revision ?? -1)) this.keep(streamId, outcome.through);
    return this.checkedHeads(incidentId, heads);
  }

  /** The rewrite found in the chain, if any. */
  rewriteOf(incidentId: string, chain: Chain): Rewrite | undefined {
    return this.rewrites.get(incidentId)?.[chain];
  }

  /**
   * Records a head about to be kept. Refuses one that does not extend the last head signed for
   * its chain (a lower position, or the same with another hash), unless that exact head was
   * signed before: the checks record rewrites, so here it is an export overtaken by a later
   * signature, and it is asked again.
   */
  noteSigned(head: SignedHead): void {
    const rewrite = this.rewriteOf(head.incident_id, head.chain);
    if (rewrite) throw new LedgerRewrittenError(rewrite);
    const last = this.lastSignedHead(head.incident_id, head.chain);
    const signedBefore = (this.signed.get(head.incident_id)?.[head.chain] ?? []).some((line) => line.head.n === head.n && line.head.hash === head.hash && this.genuine(line));
    if (last && !signedBefore && (head.n < last.n || (head.n === last.n && head.hash !== last.hash))) {
      throw new RetryLaterError(`The ${head.chain} chain of incident ${head.incident_id} was signed further while it was exported; retry`, 1);
    }
    this.remember(head, true);
  }

  /** Saves how far each stream was verified, when that moved (atomically: a crash leaves the previous record). */
  save(): void {
    if (!this.dirty) return;
    const body = JSON.stringify({ position: this.position.toString(), unverified: [...this.unverified], streams: Object.fromEntries([...this.verified].map(([id, v]) => [id, [v.revision, v.heads, v.at]])) });
    const sig = sign(null, Buffer.from(body, 'utf8'), this.keys.signingKey).toString('base64url');
    // A name of this process's own: two processes on one DATA_DIR must not rename each other's file.
    const temporary = `${this.verifiedFile}.${process.pid}.tmp`;
    writeFileSync(temporary, `${body}\n${JSON.stringify({ kid: this.keys.active.kid, sig })}\n`);
    renameSync(temporary, this.verifiedFile);
    this.dirty = false;
  }

  private async checkStream(streamId: string): Promise<void> {
    const incidentId = incidentIdOfStream(streamId)!;
    const from = this.verified.get(streamId);
    // Taken before the read: a head signed while it is in flight lies beyond what it returns, and is not a deleted tail.
    const signed = this.signedPast(incidentId, from);
    const events = await this.store.readStream(streamId, BigInt(from?.revision ?? 0));
    this.eventsRead += events.length;
    const outcome = followChains(incidentId, events.map(storedLink), from, from, signed, new Date().toISOString());
    this.record(incidentId, outcome.rewrites);
    // A check that ran meanwhile may have gone further: the record never moves back.
    if (outcome.through && outcome.through.revision > (this.verified.get(streamId)?.revision ?? -1)) this.keep(streamId, outcome.through);
  }

  private keep(streamId: string, through: Verified): void {
    this.verified.set(streamId, through);
    this.unverified.delete(streamId);
    this.dirty = true;
  }

  private record(incidentId: string, rewrites: Rewrite[]): void {
    if (rewrites.length === 0) return;
    const chains = this.rewrites.get(incidentId) ?? {};
    for (const rewrite of rewrites) {
      if (!chains[rewrite.chain]) this.logger.error(`REWRITTEN LEDGER: ${describeRewrite(rewrite)}`);
      chains[rewrite.chain] ??= rewrite;
    }
    this.rewrites.set(incidentId, chains);
  }

  private checkedHeads(incidentId: string, heads: ChainHeads): CheckedHeads {
    return { incidentId, heads, checked: CHECKED };
  }

  private remember(head: SignedHead, ok?: boolean): void {
    if (head.n === 0 || head.hash === null) return;
    const chains = this.signed.get(head.incident_id) ?? {};
    (chains[head.chain] ??= []).push({ head, ok });
    this.signed.set(head.incident_id, chains);
  }

  /** Whether a key the service has signed with signed the line (checked once). */
  private genuine(line: SignedLine): boolean {
    if (line.ok === undefined) {
      const key = this.publishedKeys.get(line.head.kid);
      line.ok = key !== undefined && headSignedBy(line.head, key);
      if (!line.ok) this.logger.warn(`${SIGNED_HEADS_FILE}: a head not signed by a ledger key is left out: ${JSON.stringify(line.head)}`);
    }
    return line.ok;
  }

  /** The last genuine head signed for the chain, if any. */
  private lastSignedHead(incidentId: string, chain: Chain): SignedHead | undefined {
    const lines = [...(this.signed.get(incidentId)?.[chain] ?? [])].sort((a, b) => b.head.n - a.head.n);
    return lines.find((line) => this.genuine(line))?.head;
  }

  /** The genuine heads signed for the incident's chains past where `from` verified them: what a check from there compares with. */
  private signedPast(incidentId: string, from: Verified | undefined): SignedPositions {
    const positions: SignedPositions = {};
    for (const [chain, lines] of Object.entries(this.signed.get(incidentId) ?? {}) as [Chain, SignedLine[]][]) {
      const past = from?.heads[chain]?.n ?? 0;
      for (const line of lines) {
        if (line.head.n <= past || !this.genuine(line)) continue;
        const map = (positions[chain] ??= new Map<number, { hash: string; signedAt: string }[]>());
        const there = map.get(line.head.n) ?? [];
        if (!there.some((h) => h.hash === line.head.hash)) there.push({ hash: line.head.hash!, signedAt: line.head.signed_at });
        map.set(line.head.n, there);
      }
    }
    return positions;
  }

  /** The heads file, parsed; signatures are checked when a line is first needed. */
  private loadSignedHeads(): void {
    this.publishedKeys = new Map(this.keys.published().map((key) => [key.kid, key]));
    if (!existsSync(this.headsFile)) return;
    let unreadable = 0;
    for (const line of readFileSync(this.headsFile, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        const head = JSON.parse(line) as SignedHead;
        if (isChain(head.chain) && typeof head.incident_id === 'string' && Number.isInteger(head.n) && typeof head.sig === 'string') this.remember(head);
        else unreadable++;
      } catch {
        unreadable++;
      }
    }
    if (unreadable > 0) this.logger.warn(`${SIGNED_HEADS_FILE}: ${unreadable} line(s) that are not signed heads were left out`);
  }

  /** The verified record, if the active key signed it; else every stream is checked from its start (a rotated key, a first start, a record tampered with). */
  private loadVerified(): void {
    if (!existsSync(this.verifiedFile)) return;
    const [body, trailer] = readFileSync(this.verifiedFile, 'utf8').split('\n');
    try {
      const { kid, sig } = JSON.parse(trailer) as { kid: string; sig: string };
      const key = createPublicKey(this.keys.signingKey);
      if (kid !== this.keys.active.kid || !verify(null, Buffer.from(body, 'utf8'), key, Buffer.from(sig, 'base64url'))) throw new Error('not signed by the active key');
      const parsed = JSON.parse(body) as { position: string; unverified: string[]; streams: Record<string, [number, ChainHeads, string]> };
      this.position = BigInt(parsed.position);
      this.unverified = new Set(parsed.unverified);
      this.verified = new Map(Object.entries(parsed.streams).map(([id, [revision, heads, at]]) => [id, { revision, heads, at }]));
    } catch (error) {
      this.logger.warn(`${VERIFIED_FILE} is not usable (${(error as Error).message}): every incident stream is checked from its start`);
    }
  }
}

const storedLink = (recorded: RecordedEvent): StoredLink => ({
  revision: Number(recorded.revision),
  id: recorded.event.id,
  event: recorded.event as unknown as LedgerEvent,
  ledger: recorded.ledger,
});
