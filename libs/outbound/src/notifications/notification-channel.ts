import { createHash } from 'node:crypto';
import { type Visibility, toLedgerEvent } from '@im/cloudevents';
import type { EventStore, RecordedEvent } from '@im/event-store';
import {
  decideNotification,
  DEFAULT_NOTIFICATION_SETTINGS,
  evolve,
  type Incident,
  type IncidentState,
  incidentIdOfStream,
  incidentStreamId,
  mayNotify,
  type NotificationDecision,
  type NotificationMedium,
  type Severity,
  notificationsDue,
  type NotificationTrigger,
  pagesThrough,
} from '@im/incidents';
import type {
  NotificationContent,
  NotificationRecord,
  NotificationStore,
  PreferencesQueries,
  ProjectionProgress,
  PushSubscriptionQueries,
} from '@im/read-models';
import type { Clock } from '@im/write-path';
import { type IncidentVisibility, type Principal, TIMELINE_ROLES } from '@im/access';
import type { OutboundChannel, OutboundMessage, OutboundTarget, SendOutcome } from '../outbound-channel';
import type { MailSender } from './mail-sender';
import { notificationMail, notificationPayload } from './notification-text';
import type { PushSender } from './push-sender';

export const NOTIFICATION_CHANNEL = 'notification';
/** The reason of a decision to send that is not sent yet (stored so before the send). */
const SENDING = 'sending';
/** The held decisions released per look. */
const DUE_BATCH = 100;

/** One medium: its worker decides, records and sends every notification on it, in ledger order. */
export interface MediumTarget extends OutboundTarget {
  id: NotificationMedium;
}

export interface NotificationMessage extends OutboundMessage {
  /** The decision as stored, or about to be: a send updates it in place. */
  record: NotificationRecord;
  /** Push: the subscriptions that already took this notification (a retry sends to the others only). */
  delivered: Set<string>;
}

/** A notification due on the medium, before it is decided: the record to store, why, and the incident as the event left it. */
interface Candidate {
  record: NotificationRecord;
  trigger: NotificationTrigger;
  incident: Incident;
}

/** One decision per responder, medium and triggering event: deciding the event again (after a restart) finds it. */
export const notificationId = (responder: string, medium: string, eventId: string): string =>
  `ntf_${createHash('sha256').update(`${responder}\n${medium}\n${eventId}`).digest('base64url').slice(0, 24)}`;

/** The incident as its events before `untilRevision` (all of them without it) leave it. */
function foldIncident(incidentId: string, events: RecordedEvent[], untilRevision?: bigint): IncidentState {
  let state: IncidentState;
  for (const recorded of events) {
    if (untilRevision !== undefined && recorded.revision >= untilRevision) break;
    state = evolve(state, toLedgerEvent(recorded.event, incidentId));
  }
  return state;
}

/** Whose clearance a responder's notifications are read with: the token that saved the address, or registered the subscription. */
const readerOf = (sub: string, clearance: string | undefined): Principal => ({
  sub,
  roles: [TIMELINE_ROLES.reader],
  clearance: (clearance ?? 'public') as Visibility,
  dataAccess: [],
  authenticated: true,
});

export interface NotificationChannelDeps {
  eventStore: EventStore;
  store: NotificationStore;
  preferences: PreferencesQueries;
  subscriptions: PushSubscriptionQueries;
  visibility: IncidentVisibility;
  progress: ProjectionProgress;
  progressWaitMs: number;
  clock: Clock;
  consoleUrl: string;
  /** undefined: SMTP_URL is not set. */
  mail: MailSender | undefined;
  push: PushSender;
  /** A push service answered 404 or 410 for this subscription. */
  removeSubscription: (userId: string, id: string) => Promise<void>;
}

/**
 * Notifications as an outbound channel: a target per medium (email, push),
 * each following the ledger from its own checkpoint. For each event that
 * changes an incident, `prepare` works out who is notified of what (the
 * domain's notificationsDue), decides each by the responder's settings and
 * records it (SUPPRESSED, HELD until their quiet hours end) or hands it on
 * to be sent; `send` records SENT or FAILED on the same record; held ones
 * come back through `due` when their time comes.
 */
export class NotificationChannel implements OutboundChannel<MediumTarget, NotificationMessage> {
  readonly name = NOTIFICATION_CHANNEL;

  constructor(private readonly deps: NotificationChannelDeps) {}

  async prepare(target: MediumTarget, events: RecordedEvent[]): Promise<NotificationMessage[]> {
    const changes = events.filter((recorded) => incidentIdOfStream(recorded.streamId) !== undefined && mayNotify(recorded.event.type));
    if (changes.length === 0) return [];
    // Settings and subscriptions are read from the read models: they must show what was saved before these events.
    await this.deps.progress.waitFor(changes[changes.length - 1].position, this.deps.progressWaitMs);
    const candidates = await this.candidates(target.id, changes);
    const recorded = new Map((await this.deps.store.find(candidates.map(({ record }) => record.id))).map((record) => [record.id, record]));
    const messages: NotificationMessage[] = [];
    for (const { record, trigger, incident } of candidates) {
      const stored = recorded.get(record.id);
      // Decided before (a restart re-reads from the checkpoint): what is still to be sent is due, and `due` sends it.
      if (stored) continue;
      const decision = await this.decide(target.id, record.responder, trigger, incident);
      if (decision.decision === 'SEND') {
        // Stored before it goes, due now: a crash before the outcome is stored leaves it to `due` after the restart,
        // which sends it again under the same Message-ID (mail) or Topic (push) rather than deciding it anew.
        const sending: NotificationRecord = { ...record, decision: 'HELD', reason: SENDING, dueAt: record.createdAt };
        await this.deps.store.save(sending);
        messages.push(this.message(sending));
      } else {
        await this.deps.store.save({ ...record, decision: decision.decision, reason: decision.reason, dueAt: decision.decision === 'HELD' ? decision.until.toISOString() : null });
      }
    }
    return messages;
  }

  async send(target: MediumTarget, message: NotificationMessage): Promise<SendOutcome> {
    const outcome = target.id === 'email' ? await this.sendMail(message.record) : await this.sendPush(message);
    await this.deps.store.save(message.record);
    return outcome;
  }

  /** Nothing retires a medium: a gone push subscription is removed by itself. */
  async retire(): Promise<void> {}

  async due(target: MediumTarget): Promise<NotificationMessage[]> {
    const due = await this.deps.store.due(target.id, this.deps.clock.now().toISOString(), DUE_BATCH);
    return due.map((record) => this.message(record));
  }

  /** A failed send is tried again when due: the record stays FAILED (with why) until then, and the worker goes on to the others. */
  async postpone(_: MediumTarget, message: NotificationMessage, retryAt: Date): Promise<void> {
    message.record = { ...message.record, dueAt: retryAt.toISOString() };
    await this.deps.store.save(message.record);
  }

  /** Retries over without success: the record stays FAILED, and is no longer due (nor sent again after a restart). */
  async settled(_: MediumTarget, message: NotificationMessage, outcome: SendOutcome): Promise<void> {
    if (outcome.error === null || message.record.dueAt === null) return;
    message.record = { ...message.record, dueAt: null };
    await this.deps.store.save(message.record);
  }

  private message(record: NotificationRecord): NotificationMessage {
    return { eventId: record.eventId, position: record.position, messageId: record.id, record, delivered: new Set() };
  }

  /** Each responder to notify of each event, with the incident as the event left it; incident streams are read once per batch. */
  private async candidates(medium: NotificationMedium, changes: RecordedEvent[]): Promise<Candidate[]> {
    const streams = new Map<string, RecordedEvent[]>();
    const candidates: Candidate[] = [];
    for (const recorded of changes) {
      if (!streams.has(recorded.streamId)) streams.set(recorded.streamId, await this.deps.eventStore.readStream(recorded.streamId));
      const incidentId = incidentIdOfStream(recorded.streamId)!;
      const before = foldIncident(incidentId, streams.get(recorded.streamId)!, recorded.revision);
      const event = toLedgerEvent(recorded.event, incidentId);
      const after = evolve(before, event);
      for (const { responder, trigger, page } of notificationsDue(before, event, after)) {
        const content: NotificationContent = {
          incident_id: incidentId,
          title: after!.title,
          severity: after!.severity,
          status: after!.status,
          trigger,
          // The incident's page in the console; a page's link (`?ack=1`) makes its Acknowledge one tap, without a confirmation.
          url: `${this.deps.consoleUrl}/incidents/${encodeURIComponent(incidentId)}${page ? '?ack=1' : ''}`,
          ...(page && { page }),
        };
        const record: NotificationRecord = {
          id: notificationId(responder, medium, recorded.event.id),
          responder,
          incidentId,
          channel: medium,
          trigger,
          eventId: recorded.event.id,
          position: recorded.position,
          decision: 'FAILED',
          reason: null,
          createdAt: this.deps.clock.now().toISOString(),
          sentAt: null,
          dueAt: null,
          content,
        };
        candidates.push({ record, trigger, incident: after! });
      }
    }
    return candidates;
  }

  private async decide(medium: NotificationMedium, responder: string, trigger: NotificationTrigger, incident: Incident): Promise<NotificationDecision> {
    const saved = await this.deps.preferences.findByUser(responder);
    const settings = saved ?? DEFAULT_NOTIFICATION_SETTINGS;
    const base = { medium, trigger, severity: incident.severity, settings, configured: medium === 'push' || this.deps.mail !== undefined, now: this.deps.clock.now() };
    if (medium === 'email') {
      if (saved?.email === undefined) return decideNotification({ ...base, reachable: false });
      const shown = this.deps.visibility.shows(readerOf(responder, saved.clearance), incident);
      return shown ? decideNotification({ ...base, reachable: true }) : this.withheld(decideNotification({ ...base, reachable: true }));
    }
    const subscriptions = await this.deps.subscriptions.listByUser(responder);
    const decision = decideNotification({ ...base, reachable: subscriptions.length > 0 });
    const shown = subscriptions.some((subscription) => this.deps.visibility.shows(readerOf(responder, subscription.clearance), incident));
    return shown || subscriptions.length === 0 ? decision : this.withheld(decision);
  }

  /** The incident is withheld from the responder's clearance: what would have gone out is suppressed, nothing of it sent. */
  private withheld(decision: NotificationDecision): NotificationDecision {
    return decision.decision === 'SUPPRESSED' ? decision : { decision: 'SUPPRESSED', reason: 'withheld' };
  }

  private async sendMail(record: NotificationRecord): Promise<SendOutcome> {
    const address = (await this.deps.preferences.findByUser(record.responder))?.email;
    if (!this.deps.mail || address === undefined) {
      Object.assign(record, { decision: 'SUPPRESSED', reason: this.deps.mail ? 'no_email_address' : 'smtp_not_configured', dueAt: null });
      return { statusCode: null, error: null };
    }
    const outcome = await this.deps.mail.send({ to: address, ...notificationMail(record.content), messageId: `<${record.id}@notifications.incident-service>` });
    this.settle(record, outcome);
    return outcome;
  }

  private async sendPush(message: NotificationMessage): Promise<SendOutcome> {
    const { record } = message;
    const all = await this.deps.subscriptions.listByUser(record.responder);
    if (all.length === 0) {
      Object.assign(record, { decision: 'SUPPRESSED', reason: 'no_push_subscription', dueAt: null });
      return { statusCode: null, error: null };
    }
    // Each subscription sees what the token that registered it may see: the others get nothing of this incident.
    const incident = foldIncident(record.incidentId, await this.deps.eventStore.readStream(incidentStreamId(record.incidentId)));
    const cleared = all.filter((subscription) => incident && this.deps.visibility.shows(readerOf(record.responder, subscription.clearance), incident));
    if (cleared.length === 0) {
      Object.assign(record, { decision: 'SUPPRESSED', reason: 'withheld', dueAt: null });
      return { statusCode: null, error: null };
    }
    const waiting = cleared.filter((subscription) => !message.delivered.has(subscription.id));
    const payload = notificationPayload(record.content);
    const urgent = pagesThrough(record.trigger as NotificationTrigger, record.content.severity as Severity);
    const outcomes = await Promise.all(waiting.map(async (subscription) => ({ subscription, outcome: await this.deps.push.send(subscription, payload, urgent, record.id) })));
    for (const { subscription, outcome } of outcomes) {
      if (outcome.result === 'delivered') message.delivered.add(subscription.id);
      if (outcome.result === 'gone') await this.removeGone(record.responder, subscription.id);
    }
    const failed = outcomes.flatMap(({ outcome }) => (outcome.result === 'failed' ? [outcome] : []));
    const last = outcomes[outcomes.length - 1]?.outcome;
    if (message.delivered.size === 0 && failed.length === 0) {
      // Every subscription was gone: there is no one left to send to.
      Object.assign(record, { decision: 'SUPPRESSED', reason: 'no_push_subscription', dueAt: null });
      return { statusCode: last?.statusCode ?? null, error: null };
    }
    // One of the responder's devices has it: that is a notification sent.
    if (message.delivered.size > 0) return this.settle(record, { statusCode: 201, error: null });
    // Final only when no subscription could take it later (a blocked address, keys nothing can encrypt for).
    return this.settle(record, { statusCode: failed[0].statusCode, error: failed[0].error, final: failed.every((failure) => failure.final) });
  }

  /** A failure to record the removal leaves it for the next send, which meets the same 404/410. */
  private async removeGone(userId: string, id: string): Promise<void> {
    try {
      await this.deps.removeSubscription(userId, id);
    } catch {
      // Logged by nobody on purpose: the next notification retries it.
    }
  }

  /**
   * The same record becomes SENT (held or failed before), or FAILED with why:
   * still due (now, until the worker postpones it) when it is to be retried,
   * so a crash in between leaves it to `due`; no longer due when refused for good.
   */
  private settle(record: NotificationRecord, outcome: SendOutcome): SendOutcome {
    const now = this.deps.clock.now().toISOString();
    if (outcome.error === null) Object.assign(record, { decision: 'SENT', reason: null, sentAt: now, dueAt: null });
    else Object.assign(record, { decision: 'FAILED', reason: outcome.error, dueAt: outcome.final ? null : (record.dueAt ?? now) });
    return outcome;
  }
}
