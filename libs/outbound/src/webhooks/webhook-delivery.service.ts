import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '@im/event-store';
import { WEBHOOK_DISABLED_TYPE, WEBHOOK_REGISTERED_TYPE, WEBHOOK_REMOVED_TYPE, WEBHOOKS_STREAM, type WebhookRegisteredData } from '@im/incidents';
import { OUTBOUND_STORE, outboundLease, type OutboundStore, PROJECTION_PROGRESS, type ProjectionProgress } from '@im/read-models';
import { LEASE_KEEPER, type LeaseKeeper } from '@im/leases';
import { CLOCK, type Clock } from '@im/write-path';
import { TimelineAuthorizer } from '@im/access';
import { OutboundDispatcher } from '../outbound-dispatcher';
import { RetrySchedule } from '../retry-schedule';
import { WEBHOOK_CHANNEL, WebhookChannel, type WebhookMessage, webhookReader, type WebhookTarget } from './webhook-channel';
import { WebhookCommandHandler } from './webhook-command.handler';
import { openWebhookSecret, WEBHOOK_SECRET_KEY } from './webhook-secret';
import { WebhookEndpoint, WebhookSender } from './webhook-sender';

const HOUR_MS = 3_600_000;

/**
 * Delivers every registration's events: in one process at a time, the one
 * holding the channel's lease, among those that run workers (PROJECTOR=embedded
 * in the api, always in apps/projector).
 * The registrations are folded from the `webhooks` stream itself: those up
 * to the head at start from the stream, later ones as the ledger brings them,
 * so a registration starts at its own position and removals stop it at once.
 */
@Injectable()
export class WebhookDelivery implements OnApplicationBootstrap {
  private readonly logger = new Logger('Webhooks');
  private dispatcher?: OutboundDispatcher<WebhookTarget, WebhookMessage>;
  private readonly targets = new Map<string, WebhookTarget>();
  /** The `webhooks` stream is applied up to here; events the ledger brings before the history is read wait in `early`. */
  private applied = -1n;
  private early?: RecordedEvent[] = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(OUTBOUND_STORE) private readonly store: OutboundStore,
    @Inject(PROJECTION_PROGRESS) private readonly progress: ProjectionProgress,
    @Inject(WEBHOOK_SECRET_KEY) private readonly secretKey: Buffer,
    private readonly authorizer: TimelineAuthorizer,
    private readonly commands: WebhookCommandHandler,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LEASE_KEEPER) private readonly keeper: LeaseKeeper,
  ) {}

  /** Whether this process delivers (else apps/projector does). */
  get active(): boolean {
    return this.config.projector === 'embedded';
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.active) await this.keeper.hold(outboundLease(WEBHOOK_CHANNEL), { start: () => this.start(), stop: () => this.stop() });
  }

  /** Starts delivering (again, after the lease was won back): the registrations as the stream holds them now. */
  private async start(): Promise<void> {
    this.applied = -1n;
    this.early = [];
    const { webhooks } = this.config;
    const sender = new WebhookSender({ timeoutMs: webhooks.timeoutMs, connections: webhooks.connections, allowPrivateNetworks: webhooks.allowPrivateNetworks });
    const channel = new WebhookChannel(this.authorizer, this.progress, this.config.projectionWaitMs, sender, (id) => this.commands.disable(id, 'gone'));
    this.dispatcher = new OutboundDispatcher(channel, this.eventStore, this.store, {
      schedule: new RetrySchedule({ initialMs: webhooks.retryInitialMs, windowMs: webhooks.retryHours * HOUR_MS }),
      logDays: this.config.deliveryLogDays,
      onError: (what, error) => this.logger.error(`Could not ${what}, will try again: ${String(error)}`),
      now: () => this.clock.now().getTime(),
    });
    await this.dispatcher.start((events) => {
      const ours = events.filter((recorded) => recorded.streamId === WEBHOOKS_STREAM);
      if (this.early) this.early.push(...ours);
      else this.apply(ours);
    });
    this.apply(await this.eventStore.readStream(WEBHOOKS_STREAM));
    const early = this.early;
    this.early = undefined;
    this.apply(early ?? []);
    this.dispatcher.serveResends();
  }

  private async stop(): Promise<void> {
    await this.dispatcher?.stop();
    this.dispatcher = undefined;
    this.targets.forEach(({ endpoint }) => endpoint.destroy());
    this.targets.clear();
  }

  private apply(events: RecordedEvent[]): void {
    for (const recorded of events) {
      if (recorded.position <= this.applied) continue;
      this.applied = recorded.position;
      const id = (recorded.event.data as { id?: string } | undefined)?.id;
      if (typeof id !== 'string') continue;
      if (recorded.event.type === WEBHOOK_REGISTERED_TYPE) this.add(recorded, recorded.event.data as unknown as WebhookRegisteredData);
      else if (recorded.event.type === WEBHOOK_DISABLED_TYPE || recorded.event.type === WEBHOOK_REMOVED_TYPE) this.remove(id);
    }
  }

  private add(recorded: RecordedEvent, data: WebhookRegisteredData): void {
    const secret = openWebhookSecret(this.secretKey, data.id, data.sealed_secret);
    if (secret === undefined) this.logger.error(`Webhook ${data.id}: its secret does not open with this WEBHOOK_SECRET_KEY; its deliveries fail until the key is restored`);
    const target: WebhookTarget = {
      id: data.id,
      startAfter: recorded.position,
      eventTypes: data.event_types,
      reader: webhookReader(data.id, data.clearance, data.data_access),
      endpoint: new WebhookEndpoint(data.url, secret),
    };
    this.targets.set(target.id, target);
    void this.dispatcher!.add(target);
  }

  private remove(id: string): void {
    const target = this.targets.get(id);
    this.targets.delete(id);
    void this.dispatcher!.remove(id).then(() => target?.endpoint.destroy());
  }
}
