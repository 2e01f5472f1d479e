import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@im/config';
import { LedgerModule } from '@im/write-path';
import { NotificationDelivery } from './notification-delivery.service';
import { PushSubscriptionCommandHandler } from './push-subscription-command.handler';
import { VAPID_KEYS, vapidKeys } from './vapid-keys';

/**
 * Push subscriptions' write side and the notifications' delivery: imported by
 * the api, and by apps/projector, which delivers when the api runs with
 * PROJECTOR=external. It needs PolicyModule and the persistence ports.
 */
@Module({
  imports: [LedgerModule],
  providers: [NotificationDelivery, PushSubscriptionCommandHandler, { provide: VAPID_KEYS, inject: [APP_CONFIG], useFactory: vapidKeys }],
  exports: [NotificationDelivery, PushSubscriptionCommandHandler, VAPID_KEYS],
})
export class NotificationDeliveryModule {}
