import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { NOTIFICATION_MEDIA } from '@im/incidents';
import {
  NOTIFICATION_STORE,
  type NotificationStore,
  OUTBOUND_STORE,
  outboundLease,
  type OutboundStore,
  PREFERENCES_QUERIES,
  type PreferencesQueries,
  PROJECTION_PROGRESS,
  type ProjectionProgress,
  PUSH_SUBSCRIPTION_QUERIES,
  type PushSubscriptionQueries,
} from '@im/read-models';
import { CLOCK, type Clock } from '@im/write-path';
import { LEASE_KEEPER, type LeaseKeeper } from '@im/leases';
import { IncidentVisibility } from '@im/access';
import { OutboundDispatcher } from '../outbound-dispatcher';
import { consumerOf } from '../outbound-worker';
import { RetrySchedule } from '../retry-schedule';
import { MailSender } from './mail-sender';
import { type MediumTarget, NOTIFICATION_CHANNEL, NotificationChannel, type NotificationMessage } from './notification-channel';
import { PushSender } from './push-sender';
import { PushSubscriptionCommandHandler } from './push-subscription-command.handler';
import { VAPID_KEYS, type VapidKeys } from './vapid-keys';

const HOUR_MS = 3_600_000;

/**
 * Notifies responders, through the outbound dispatcher the webhooks use: a
 * durable ledger consumer per medium (email, push) with its own checkpoint.
 * Runs in one process at a time, the one holding the channel's lease, among
 * those that run workers (PROJECTOR=embedded in the api, always in apps/projector). On its first start it begins at the
 * ledger's head: history is never notified.
 */
@Injectable()
export class NotificationDelivery implements OnApplicationBootstrap {
  private readonly logger = new Logger('Notifications');
  private dispatcher?: OutboundDispatcher<MediumTarget, NotificationMessage>;
  private mail?: MailSender;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(OUTBOUND_STORE) private readonly outbound: OutboundStore,
    @Inject(NOTIFICATION_STORE) private readonly store: NotificationStore,
    @Inject(PREFERENCES_QUERIES) private readonly preferences: PreferencesQueries,
    @Inject(PUSH_SUBSCRIPTION_QUERIES) private readonly subscriptions: PushSubscriptionQueries,
    @Inject(PROJECTION_PROGRESS) private readonly progress: ProjectionProgress,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(VAPID_KEYS) private readonly vapid: VapidKeys,
    private readonly visibility: IncidentVisibility,
    private readonly pushSubscriptions: PushSubscriptionCommandHandler,
    @Inject(LEASE_KEEPER) private readonly keeper: LeaseKeeper,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.projector === 'embedded') await this.keeper.hold(outboundLease(NOTIFICATION_CHANNEL), { start: () => this.start(), stop: () => this.stop() });
  }

  private async start(): Promise<void> {
    const { notifications } = this.config;
    this.mail = notifications.smtpUrl ? new MailSender(notifications.smtpUrl, notifications.from, notifications.timeoutMs) : undefined;
    const channel = new NotificationChannel({
      eventStore: this.eventStore,
      store: this.store,
      preferences: this.preferences,
      subscriptions: this.subscriptions,
      visibility: this.visibility,
      progress: this.progress,
      progressWaitMs: this.config.projectionWaitMs,
      clock: this.clock,
      consoleUrl: notifications.consoleUrl,
      mail: this.mail,
      push: new PushSender(this.vapid, notifications.timeoutMs, notifications.allowPrivateNetworks),
      removeSubscription: (userId, id) => this.pushSubscriptions.remove(userId, id, 'gone'),
    });
    this.dispatcher = new OutboundDispatcher(channel, this.eventStore, this.outbound, {
      schedule: new RetrySchedule({ initialMs: notifications.retryInitialMs, windowMs: notifications.retryHours * HOUR_MS }),
      logDays: this.config.deliveryLogDays,
      onError: (what, error) => this.logger.error(`Could not ${what}, will try again: ${String(error)}`),
      // The clock that decides when a decision is due also times its retries.
      now: () => this.clock.now().getTime(),
    });
    const head = await this.dispatcher.start(() => undefined);
    for (const medium of NOTIFICATION_MEDIA) {
      const consumer = consumerOf(NOTIFICATION_CHANNEL, medium);
      // The first start begins at the head, durably: a crash before the first event passes does not make the next start skip it.
      // Every later start resumes from the checkpoint (startAfter 0: never beyond it, or an event cut short by a restart would be skipped).
      if ((await this.outbound.checkpoint(consumer)) === undefined) await this.outbound.commit([{ consumer, position: head, attempts: [] }]);
      await this.dispatcher.add({ id: medium, startAfter: 0n });
    }
  }

  private async stop(): Promise<void> {
    await this.dispatcher?.stop();
    this.dispatcher = undefined;
    this.mail?.close();
  }
}
