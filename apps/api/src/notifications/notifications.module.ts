import { Module } from '@nestjs/common';
import { NotificationDeliveryModule } from '@im/outbound';
import { NotificationQueryService } from './notification-query.service';
import { NotificationsController } from './notifications.controller';

@Module({
  imports: [NotificationDeliveryModule],
  controllers: [NotificationsController],
  providers: [NotificationQueryService],
  exports: [NotificationDeliveryModule, NotificationQueryService],
})
export class NotificationsModule {}
