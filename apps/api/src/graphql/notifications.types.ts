import { Field, GraphQLISODateTime, ID, InputType, ObjectType, registerEnumType } from '@nestjs/graphql';

/** Spelled as docs/api.md, "Notifications" has them (lowercase: the same words as the mail and push payload's `trigger`). */
export enum NotificationTrigger {
  assigned = 'assigned',
  declared_ic = 'declared_ic',
  severity_changed = 'severity_changed',
  status_changed = 'status_changed',
  /** Paged by an escalation policy (on call): through quiet hours and the severity filter. */
  paged = 'paged',
}

export enum NotificationDecision {
  SENT = 'SENT',
  SUPPRESSED = 'SUPPRESSED',
  HELD = 'HELD',
  FAILED = 'FAILED',
}

registerEnumType(NotificationTrigger, { name: 'NotificationTrigger' });
registerEnumType(NotificationDecision, {
  name: 'NotificationDecision',
  description: 'HELD: until the quiet hours end, then sent (the same record becomes SENT); FAILED: retried until sent or given up',
});

/** notifications' `limit`: the contract's default and bound (docs/api.md), not a tuning knob. */
export const NOTIFICATIONS_DEFAULT_LIMIT = 50;
export const NOTIFICATIONS_MAX_LIMIT = 100;

@ObjectType()
export class Notification {
  @Field(() => ID) id!: string;
  @Field(() => ID) incidentId!: string;
  @Field({ description: 'email or push' }) channel!: string;
  @Field(() => NotificationTrigger) trigger!: NotificationTrigger;
  @Field(() => NotificationDecision) decision!: NotificationDecision;
  @Field(() => String, {
    nullable: true,
    description:
      'Why, for all but SENT: channel_disabled, push_disabled, severity_filter, quiet_hours, withheld, no_email_address, no_push_subscription, smtp_not_configured, smtp_error, push_error',
  })
  reason?: string | null;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Set only once sent' }) sentAt?: Date | null;
}

@ObjectType()
export class PushSubscription {
  @Field(() => ID) id!: string;
  @Field() endpoint!: string;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
}

@InputType()
export class PushSubscriptionKeysInput {
  @Field({ description: "The client's P-256 public key, base64url (PushSubscription.getKey('p256dh'))" }) p256dh!: string;
  @Field({ description: 'The 16-byte authentication secret, base64url' }) auth!: string;
}

@InputType({ description: "A browser's PushSubscription, as its toJSON() gives it" })
export class PushSubscriptionInput {
  @Field({ description: "The push service's https URL for this browser" }) endpoint!: string;
  @Field(() => PushSubscriptionKeysInput) keys!: PushSubscriptionKeysInput;
}
