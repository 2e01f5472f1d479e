import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { incidentIdOfStream } from '@im/incidents';
import { type Chain, CHAINS, chainsOf, type SignedHead, signHead } from '@im/ledger-proof';
import { type CheckedHeads, LedgerContinuity, SIGNED_HEADS_FILE } from './ledger-continuity';
import { LedgerKeys } from './ledger-keys';
import { RetryLaterError } from '../errors/error-mapping';

export { SIGNED_HEADS_FILE };
/** Events read per step of the log since the last round: a bound on memory, not a knob (a round reads what a minute appended). */
const LOG_BATCH = 1000;

/**
 * Signs chain heads: on each export, and every minute for each chain that changed since
 * (found by following the log from where the last round ended). Every signed head is
 * appended to DATA_DIR/ledger-heads.jsonl and logged. Only heads that LedgerContinuity
 * checked are signed, and a kept one only when it extends the last head signed for its chain.
 */
@Injectable()
export class SignedHeads implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SignedHeads');
  private readonly file: string;
  private position: bigint | undefined;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> = Promise.resolve();
  private readonly intervalMs: number;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly keys: LedgerKeys,
    private readonly continuity: LedgerContinuity,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.file = join(config.dataDir, SIGNED_HEADS_FILE);
    this.intervalMs = config.ledgerHeadIntervalMs;
  }

  /**
   * The chain's head signed now, kept in the heads file unless `keep` is false (a verification
   * keeps nothing, and shows no signature). A kept head throws LedgerRewrittenError for a chain
   * that does not extend what was signed before.
   */
  sign(checked: CheckedHeads, chain: Chain, keep = true): SignedHead {
    const last = checked.heads[chain];
    const head = signHead(
      { incident_id: checked.incidentId, chain, n: last?.n ?? 0, hash: last?.hash ?? null, signed_at: new Date().toISOString(), kid: this.keys.active.kid },
      this.keys.signingKey,
    );
    if (keep) {
      this.continuity.noteSigned(head);
      appendFileSync(this.file, `${JSON.stringify(head)}\n`);
    }
    return head;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.position = await this.store.headPosition();
    this.timer = setInterval(() => {
      this.round = this.round.then(() => this.signChanged()).catch((error: unknown) => this.logger.warn(`signing changed heads failed: ${(error as Error).message}`));
    }, this.intervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.round;
  }

  /** Signs the head of every incident chain an event joined since the last round, once checked; a rewritten chain is logged, not signed. */
  async signChanged(): Promise<void> {
    const changed = new Map<string, Set<Chain>>();
    for (;;) {
      const events = await this.store.readAll(this.position ?? 0n, LOG_BATCH);
      for (const recorded of events) {
        const incidentId = incidentIdOfStream(recorded.streamId);
        if (incidentId === undefined) continue;
        const chains = changed.get(incidentId) ?? new Set<Chain>();
        chainsOf(recorded.event as unknown as Record<string, unknown>).forEach((chain) => chains.add(chain));
        changed.set(incidentId, chains);
      }
      if (events.length > 0) this.position = events[events.length - 1].position;
      if (events.length < LOG_BATCH) break;
    }
    for (const [incidentId, chains] of changed) {
      const checked = await this.continuity.check(incidentId);
      // A stream with a rewritten chain is not verified past it: its exports sign what they recompute.
      if (CHAINS.some((chain) => this.continuity.rewriteOf(incidentId, chain))) continue;
      for (const chain of chains) {
        try {
          this.logger.log(`signed head ${JSON.stringify(this.sign(checked, chain))}`);
        } catch (error) {
          // An export signed this chain further meanwhile: that head stands, and the round goes on to the other incidents.
          if (!(error instanceof RetryLaterError)) throw error;
        }
      }
    }
    this.continuity.save();
  }
}
