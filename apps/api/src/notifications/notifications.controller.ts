import { Controller, Get, Inject } from '@nestjs/common';
import { VAPID_KEYS, type VapidKeys } from '@im/outbound';
import { Public } from '../auth/access.decorators';
import { NotificationsApiDocs } from './notifications.api-docs';

@NotificationsApiDocs.controller
@Controller('api/v1/notifications')
export class NotificationsController {
  constructor(@Inject(VAPID_KEYS) private readonly vapid: VapidKeys) {}

  /** A public key: clients fetch it before they can subscribe, so no token is asked for. */
  @Public()
  @Get('vapid-public-key')
  @NotificationsApiDocs.vapidPublicKey
  vapidPublicKey(): { publicKey: string } {
    return { publicKey: this.vapid.publicKey };
  }
}
