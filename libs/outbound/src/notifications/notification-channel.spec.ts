import type { CloudEvent } from '@im/cloudevents';
import type { EventStore, RecordedEvent } from '@im/event-store';
import { incidentStreamId, PAGE_EVENT_TYPE } from '@im/incidents';
import type { NotificationPreferences, NotificationRecord, NotificationStore, PushSubscriptionRecord } from '@im/read-models';
import type { IncidentVisibility } from '@im/access';
import type { Mail, MailSender } from './mail-sender';
import { type MediumTarget, NotificationChannel, type NotificationMessage } from './notification-channel';
import type { PushSender } from './push-sender';

/**
 * The channel against stores kept in memory: what a page makes of each paged
 * responder's settings, and that a page event read again (the consumer's
 * checkpoint lags the decisions after a restart) sends nothing twice.
 */
const INCIDENT = 'INC-0000feed';
const NOW = new Date('2026-11-22T10:30:00Z'); // 23:30 in Auckland

const cloudEvent = (id: string, type: string, data: Record<string, unknown>): CloudEvent =>
  ({ specversion: '1.0', id, source: 'test', type, time: NOW.toISOString(), 'im.actor': 'system:escalation', data }) as CloudEvent;
const recorded = (revision: number, event: CloudEvent): RecordedEvent => ({ streamId: incidentStreamId(INCIDENT), revision: BigInt(revision), position: BigInt(100 + revision), recordedAt: NOW.toISOString(), event });

const stream = [
  recorded(0, cloudEvent('e-declare', 'im.incident.declare', { title: 'Checkout is down', severity: 'SEV-3' })),
  recorded(1, cloudEvent('e-page', PAGE_EVENT_TYPE, {
    step: 1,
    round: 2,
    paged: [{ user: 'carol', via: 'user' }, { user: 'dan', via: 'schedule:sch_1' }, { user: 'carol', via: 'schedule:sch_2' }],
    unstaffed: [],
  })),
];
const page = stream[1];

const asleep = { quietHours: { start: '22:00', end: '07:00', timeZone: 'Pacific/Auckland' }, severityFilter: ['SEV-1' as const], clearance: 'internal', updatedAt: NOW.toISOString() };
const preferences: Record<string, NotificationPreferences> = {
  // Quiet hours now, and a filter leaving the incident's SEV-3 out: a page still goes, on both channels.
  carol: { userId: 'carol', pushEnabled: true, channels: ['email', 'push'], email: 'carol@example.com', ...asleep },
  // Email turned off, push switched off.
  dan: { userId: 'dan', pushEnabled: false, channels: ['push'], email: 'dan@example.com', ...asleep },
};
const subscription = (userId: string): PushSubscriptionRecord => ({ id: `ps_${userId}`, userId, endpoint: `https://push.example/${userId}`, keys: { p256dh: 'k', auth: 'a' }, clearance: 'internal', createdAt: NOW.toISOString() });

/** The notification store as both adapters keep it: a record per id, written whole. */
class MemoryNotificationStore implements NotificationStore {
  readonly records = new Map<string, NotificationRecord>();
  async find(ids: string[]) {
    return ids.flatMap((id) => (this.records.has(id) ? [structuredClone(this.records.get(id)!)] : []));
  }
  async save(record: NotificationRecord) {
    this.records.set(record.id, structuredClone(record));
  }
  async due(channel: string, now: string, limit: number) {
    return [...this.records.values()].filter((r) => r.channel === channel && r.dueAt !== null && r.dueAt <= now).slice(0, limit);
  }
  async listFor(responder: string, limit: number) {
    return [...this.records.values()].filter((r) => r.responder === responder).slice(0, limit);
  }
}

function setUp(store = new MemoryNotificationStore()) {
  const mails: Mail[] = [];
  const pushes: { to: string; payload: string; urgent: boolean }[] = [];
  const channel = new NotificationChannel({
    eventStore: { readStream: async () => stream } as unknown as EventStore,
    store,
    preferences: { findByUser: async (user: string) => preferences[user] },
    subscriptions: { listByUser: async (user: string) => [subscription(user)] },
    visibility: { shows: () => true } as unknown as IncidentVisibility,
    progress: { waitFor: async () => undefined } as never,
    progressWaitMs: 1000,
    clock: { now: () => NOW, sleep: async () => undefined },
    consoleUrl: 'https://im.example.com',
    mail: { send: async (mail: Mail) => (mails.push(mail), { statusCode: 250, error: null }) } as unknown as MailSender,
    push: { send: async (to: PushSubscriptionRecord, payload: string, urgent: boolean) => (pushes.push({ to: to.userId, payload, urgent }), { result: 'delivered', statusCode: 201 }) } as unknown as PushSender,
    removeSubscription: async () => undefined,
  });
  return { channel, store, mails, pushes };
}

const EMAIL: MediumTarget = { id: 'email', startAfter: 0n };
const PUSH: MediumTarget = { id: 'push', startAfter: 0n };

async function deliver(channel: NotificationChannel, target: MediumTarget, events: RecordedEvent[]): Promise<NotificationMessage[]> {
  const messages = await channel.prepare(target, events);
  for (const message of messages) await channel.send(target, message);
  return messages;
}

describe('a page, as the notification channel delivers it', () => {
  it('mails each paged user once, through quiet hours and the severity filter, with the console link; email turned off is SUPPRESSED channel_disabled', async () => {
    const { channel, store, mails } = setUp();
    await deliver(channel, EMAIL, stream);
    expect(mails.map((mail) => mail.to)).toEqual(['carol@example.com']);
    expect(mails[0].subject).toBe(`[SEV-3] Paged: ${INCIDENT}: Checkout is down`);
    expect(mails[0].text).toContain('You are paged (escalation step 1, round 2)');
    expect(mails[0].text).toContain(`https://im.example.com/incidents/${INCIDENT}?ack=1`);
    const decisions = [...store.records.values()].map(({ responder, channel: medium, trigger, decision, reason, eventId }) => ({ responder, medium, trigger, decision, reason, eventId }));
    expect(decisions).toEqual([
      { responder: 'carol', medium: 'email', trigger: 'paged', decision: 'SENT', reason: null, eventId: 'e-page' },
      { responder: 'dan', medium: 'email', trigger: 'paged', decision: 'SUPPRESSED', reason: 'channel_disabled', eventId: 'e-page' },
    ]);
  });

  it('pushes as urgent where push is on (the contract payload, trigger paged); push switched off is SUPPRESSED push_disabled', async () => {
    const { channel, store, pushes } = setUp();
    await deliver(channel, PUSH, stream);
    expect(pushes).toEqual([{ to: 'carol', urgent: true, payload: expect.any(String) }]);
    expect(JSON.parse(pushes[0].payload)).toEqual({ incident_id: INCIDENT, title: 'Checkout is down', severity: 'SEV-3', status: 'open', trigger: 'paged', url: `https://im.example.com/incidents/${INCIDENT}?ack=1` });
    expect([...store.records.values()].map(({ responder, decision, reason }) => [responder, decision, reason])).toEqual([
      ['carol', 'SENT', null],
      ['dan', 'SUPPRESSED', 'push_disabled'],
    ]);
  });

  it('sends nothing twice when the page event is read again after a restart (one decision per event, user and medium)', async () => {
    const first = setUp();
    await deliver(first.channel, EMAIL, stream);
    const before = structuredClone([...first.store.records.values()]);
    // A new channel over the same store, as after a restart whose checkpoint lagged: the page is prepared again.
    const again = setUp(first.store);
    expect(await deliver(again.channel, EMAIL, [page])).toEqual([]);
    expect(await again.channel.due(EMAIL)).toEqual([]);
    expect(again.mails).toEqual([]);
    expect([...first.store.records.values()]).toEqual(before);
  });

  it('sends a page decided but cut off by a crash before its outcome was stored once more, as the same record, not as a new decision', async () => {
    const first = setUp();
    expect(await first.channel.prepare(EMAIL, stream)).toHaveLength(1);
    // The process died before `send`: the decision is stored as being sent, due now.
    const again = setUp(first.store);
    expect(await again.channel.prepare(EMAIL, [page])).toEqual([]);
    const due = await again.channel.due(EMAIL);
    expect(due.map((message) => message.record.responder)).toEqual(['carol']);
    await again.channel.send(EMAIL, due[0]);
    expect(again.mails.map((mail) => mail.to)).toEqual(['carol@example.com']);
    expect([...first.store.records.values()].filter((r) => r.responder === 'carol')).toEqual([expect.objectContaining({ decision: 'SENT', trigger: 'paged' })]);
  });
});
