import { Inject, Injectable } from '@nestjs/common';
import { NOTIFICATION_STORE, type NotificationRecord, type NotificationStore } from '@im/read-models';

/** The responder's own notification decisions, newest first: no one else's are ever listed. */
@Injectable()
export class NotificationQueryService {
  constructor(@Inject(NOTIFICATION_STORE) private readonly store: NotificationStore) {}

  listMine(responder: string, limit: number): Promise<NotificationRecord[]> {
    return this.store.listFor(responder, limit);
  }
}
