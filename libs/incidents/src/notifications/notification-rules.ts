import type { Incident, IncidentState, Severity } from '../incident';
import { ROLE_ASSIGNED_TYPE, SEVERITY_CHANGED_TYPE, type LedgerEvent, transitionOf } from '../incident-events';
import type { NotificationSettings } from '../notification-preferences';
import { type PageNotice, pageOf, PAGE_EVENT_TYPE } from './pages';
import { quietHoursEnd } from './quiet-hours';

/** Why a responder is notified (docs/api.md, "Notifications"): the values are a public contract. */
export const NOTIFICATION_TRIGGERS = ['assigned', 'declared_ic', 'severity_changed', 'status_changed', 'paged'] as const;
export type NotificationTrigger = (typeof NOTIFICATION_TRIGGERS)[number];

export const NOTIFICATION_MEDIA = ['email', 'push'] as const;
export type NotificationMedium = (typeof NOTIFICATION_MEDIA)[number];

export const NOTIFICATION_DECISIONS = ['SENT', 'SUPPRESSED', 'HELD', 'FAILED'] as const;
export type NotificationDecisionKind = (typeof NOTIFICATION_DECISIONS)[number];

/** The severity that pages through quiet hours. */
export const PAGING_SEVERITY: Severity = 'SEV-1';

/**
 * What goes through quiet hours, and is pushed as urgent: a page (someone on
 * call is to wake up, whatever the severity) or anything about a SEV-1.
 */
export const pagesThrough = (trigger: NotificationTrigger, severity: Severity): boolean => trigger === 'paged' || severity === PAGING_SEVERITY;

export interface NotificationDue {
  responder: string;
  trigger: NotificationTrigger;
  /** A page: its step and round, for the text that wakes the responder. */
  page?: PageNotice;
}

/** Whether an event of this type can make a notification due: a role, severity or status change, or a page. */
export const mayNotify = (type: string): boolean =>
  type === ROLE_ASSIGNED_TYPE || type === SEVERITY_CHANGED_TYPE || type === PAGE_EVENT_TYPE || transitionOf(type) !== undefined;

/** The responders holding any RACI role, each once (one person may hold several roles). */
const roleHolders = (incident: Incident): string[] => [...new Set(Object.values(incident.roles ?? {}).filter((id): id is string => typeof id === 'string'))];

/**
 * Who is notified of what when `event` moves an incident from `before` to
 * `after` (both folded by the domain's evolve): the responder a role is
 * assigned to; every role holder when the severity or the status changes. The
 * commander assignment recorded with the declaration itself (the same instant,
 * no role before it) is `declared_ic`, one trigger and not two. A page
 * (`im.paging.page`) notifies exactly the users it pages, each once, whatever
 * role they hold or do not hold.
 */
export function notificationsDue(before: IncidentState, event: LedgerEvent, after: IncidentState): NotificationDue[] {
  if (!before || !after) return [];
  const page = pageOf(event);
  if (page) return page.users.map((responder) => ({ responder, trigger: 'paged', ...(page.notice && { page: page.notice }) }));
  if (event.type === ROLE_ASSIGNED_TYPE) {
    const responder = event.data?.user_id;
    if (typeof responder !== 'string' || after.roles === before.roles) return [];
    const withDeclaration = event.data?.role === 'IC' && before.roles === undefined && before.createdAt === event.time;
    return [{ responder, trigger: withDeclaration ? 'declared_ic' : 'assigned' }];
  }
  const trigger: NotificationTrigger | undefined =
    after.severity !== before.severity ? 'severity_changed' : after.status !== before.status ? 'status_changed' : undefined;
  return trigger ? roleHolders(after).map((responder) => ({ responder, trigger })) : [];
}

/** What the responder's settings and reachability make of one notification on one medium. */
export type NotificationDecision =
  | { decision: 'SEND' }
  | { decision: 'SUPPRESSED'; reason: string }
  | { decision: 'HELD'; reason: 'quiet_hours'; until: Date };

export interface DecisionInput {
  medium: NotificationMedium;
  trigger: NotificationTrigger;
  severity: Severity;
  settings: NotificationSettings;
  /** The responder can be reached on this medium (an email address is known; a push subscription is registered). */
  reachable: boolean;
  /** The service is configured to send on this medium (SMTP_URL). */
  configured: boolean;
  now: Date;
}

/**
 * The decision for one responder, medium and trigger, in the order a
 * responder would ask "why not?": the channel they turned off, push turned
 * off, the severities they asked for, how to reach them, then quiet hours in
 * their time zone (a SEV-1 pages through; anything else waits for their end).
 * A page is what being on call means: the severity filter and quiet hours do
 * not hold it back; the channels and push switch still choose where it goes.
 */
export function decideNotification({ medium, trigger, severity, settings, reachable, configured, now }: DecisionInput): NotificationDecision {
  if (!settings.channels.includes(medium)) return { decision: 'SUPPRESSED', reason: 'channel_disabled' };
  if (medium === 'push' && !settings.pushEnabled) return { decision: 'SUPPRESSED', reason: 'push_disabled' };
  if (trigger !== 'paged' && !settings.severityFilter.includes(severity)) return { decision: 'SUPPRESSED', reason: 'severity_filter' };
  if (!configured) return { decision: 'SUPPRESSED', reason: medium === 'email' ? 'smtp_not_configured' : 'push_not_configured' };
  if (!reachable) return { decision: 'SUPPRESSED', reason: medium === 'email' ? 'no_email_address' : 'no_push_subscription' };
  const until = pagesThrough(trigger, severity) ? undefined : quietHoursEnd(settings.quietHours, now);
  return until ? { decision: 'HELD', reason: 'quiet_hours', until } : { decision: 'SEND' };
}
