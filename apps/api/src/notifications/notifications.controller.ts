import { Controller, Get, Inject } from '@nestjs/common';
import { Public } from '../auth/access.decorators';
import { NotificationsApiDocs } from './notifications.api-docs';
import { VAPID_KEYS, type VapidKeys } from './vapid-keys';

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
