import fc from 'fast-check';
import { decide, evolve } from '../incident.decider';
import { type IncidentState, SEVERITIES } from '../incident';
import type { LedgerEvent } from '../incident-events';
import { DEFAULT_NOTIFICATION_SETTINGS, type NotificationSettings } from '../notification-preferences';
import { decideNotification, type DecisionInput, NOTIFICATION_MEDIA, type NotificationDecision, NOTIFICATION_TRIGGERS, notificationsDue } from './notification-rules';
import { PAGE_EVENT_TYPE } from './pages';
import { quietHoursEnd } from './quiet-hours';
import { decideSubscribe, decideUnsubscribe, evolvePushSubscriptions, initialPushSubscriptionsState } from './push-subscriptions';
import { NotFoundError } from '../domain-errors';

const ID = 'INC-0000feed';
const T0 = '2026-11-22T00:00:00.000Z';
const T1 = '2026-11-22T00:05:00.000Z';

/** Folds the events one by one and answers what each one makes due. */
function dueAlong(events: LedgerEvent[]) {
  let state: IncidentState;
  return events.map((event) => {
    const before = state;
    state = evolve(state, event);
    return notificationsDue(before, event, state);
  });
}

const declaredBy = (commander: string) => decide({ kind: 'declare', incidentId: ID, time: T0, title: 'DB down', severity: 'SEV-2', commander }, undefined);
const caller = { id: 'alice', roles: [] };

describe('who is notified of what', () => {
  it('notifies the declaring commander once, as declared_ic, not also as assigned', () => {
    expect(dueAlong(declaredBy('alice'))).toEqual([[], [{ responder: 'alice', trigger: 'declared_ic' }]]);
  });

  it('notifies the responder a role is assigned to, and every role holder once of a severity or status change', () => {
    const history = declaredBy('alice');
    const state = history.reduce<IncidentState>(evolve, undefined);
    const ops = decide({ kind: 'assign_role', incidentId: ID, time: T1, role: 'OPS', userId: 'bob', caller }, state);
    const afterOps = ops.reduce(evolve, state);
    const comms = decide({ kind: 'assign_role', incidentId: ID, time: T1, role: 'COMMS', userId: 'bob', caller }, afterOps);
    const afterComms = comms.reduce(evolve, afterOps);
    const severity = decide({ kind: 'change_severity', incidentId: ID, time: T1, severity: 'SEV-1' }, afterComms);
    const ack = decide({ kind: 'ack', incidentId: ID, time: T1 }, severity.reduce(evolve, afterComms));
    const note = { type: 'im.incident.note', incidentId: ID, time: T1, data: { content: 'secret details' } };
    const due = dueAlong([...history, ...ops, ...comms, ...severity, note, ...ack]);
    expect(due.slice(2)).toEqual([
      [{ responder: 'bob', trigger: 'assigned' }],
      [{ responder: 'bob', trigger: 'assigned' }],
      [{ responder: 'alice', trigger: 'severity_changed' }, { responder: 'bob', trigger: 'severity_changed' }],
      [],
      [{ responder: 'alice', trigger: 'status_changed' }, { responder: 'bob', trigger: 'status_changed' }],
    ]);
  });

  it('notifies nobody of a repeated move or a severity that stays the same', () => {
    const history = [...declaredBy('alice'), { type: 'im.incident.ack', incidentId: ID, time: T1 }, { type: 'im.incident.ack', incidentId: ID, time: T1 }];
    expect(dueAlong([...history, { type: 'im.incident.severity', incidentId: ID, time: T1, data: { severity: 'SEV-2' } }]).slice(2)).toEqual([
      [{ responder: 'alice', trigger: 'status_changed' }],
      [],
      [],
    ]);
  });
});

describe('who is paged', () => {
  const page = (data: Record<string, unknown>): LedgerEvent => ({ type: PAGE_EVENT_TYPE, incidentId: ID, time: T1, data });
  const history = () => {
    const declared = declaredBy('alice');
    const state = declared.reduce<IncidentState>(evolve, undefined);
    return [...declared, ...decide({ kind: 'assign_role', incidentId: ID, time: T1, role: 'OPS', userId: 'bob', caller }, state)];
  };

  it('notifies exactly the users the page names, each once, whatever role they hold or do not hold', () => {
    const paged = [{ user: 'carol', via: 'user' }, { user: 'bob', via: 'schedule:sch_1' }, { user: 'carol', via: 'schedule:sch_2' }];
    const due = dueAlong([...history(), page({ step: 2, round: 1, paged, unstaffed: ['sch_3'] })]);
    // alice is IC and bob OPS: only the paged bob and carol (who holds no role) are notified, carol once.
    expect(due[due.length - 1]).toEqual([
      { responder: 'carol', trigger: 'paged', page: { step: 2, round: 1 } },
      { responder: 'bob', trigger: 'paged', page: { step: 2, round: 1 } },
    ]);
  });

  it('notifies nobody of a page that pages no one (every schedule unstaffed), nor of a page before the incident exists', () => {
    expect(dueAlong([...history(), page({ step: 1, round: 1, paged: [], unstaffed: ['sch_1'] })]).pop()).toEqual([]);
    expect(dueAlong([page({ step: 1, round: 1, paged: [{ user: 'carol', via: 'user' }], unstaffed: [] })])).toEqual([[]]);
  });

  it('still pages the users of a page whose step or round is missing, and skips entries naming no user', () => {
    expect(dueAlong([...history(), page({ paged: [{ via: 'user' }, null, { user: '' }, { user: 'dave', via: 'user' }] })]).pop()).toEqual([{ responder: 'dave', trigger: 'paged' }]);
  });
});

describe('quiet hours in the responder\'s time zone', () => {
  const night = { start: '22:00', end: '07:00', timeZone: 'Pacific/Auckland' };

  it('holds until the local end, across the UTC date line (Auckland is UTC+13 in November)', () => {
    // 10:30 UTC on the 22nd is 23:30 on the 22nd in Auckland: quiet until 07:00 on the 23rd there, 18:00 UTC on the 22nd.
    expect(quietHoursEnd(night, new Date('2026-11-22T10:30:00Z'))?.toISOString()).toBe('2026-11-22T18:00:00.000Z');
    // 17:59:30 UTC is 06:59:30 in Auckland: still quiet, for 30 s.
    expect(quietHoursEnd(night, new Date('2026-11-22T17:59:30Z'))?.toISOString()).toBe('2026-11-22T18:00:00.000Z');
    // 18:00 UTC is 07:00 there: the quiet hours are over; 08:59 UTC is 21:59, not yet begun.
    expect(quietHoursEnd(night, new Date('2026-11-22T18:00:00Z'))).toBeUndefined();
    expect(quietHoursEnd(night, new Date('2026-11-22T08:59:00Z'))).toBeUndefined();
  });

  it('is the same instant read in another zone as another wall time: 23:30 in Auckland is midday in Berlin', () => {
    const berlin = { ...night, timeZone: 'Europe/Berlin' };
    expect(quietHoursEnd(berlin, new Date('2026-11-22T10:30:00Z'))).toBeUndefined();
    expect(quietHoursEnd(berlin, new Date('2026-11-22T22:30:00Z'))?.toISOString()).toBe('2026-11-23T06:00:00.000Z');
  });

  it('ends at the local end time across a daylight-saving change (New York, 1 November 2026)', () => {
    const ny = { start: '00:00', end: '08:00', timeZone: 'America/New_York' };
    // 05:00 UTC is 01:00 EDT; the clocks fall back at 02:00, so 08:00 EST is 13:00 UTC, not 12:00.
    expect(quietHoursEnd(ny, new Date('2026-11-01T05:00:00Z'))?.toISOString()).toBe('2026-11-01T13:00:00.000Z');
  });

  it('handles a window within one day, and none at all', () => {
    const afternoon = { start: '13:00', end: '14:30', timeZone: 'UTC' };
    expect(quietHoursEnd(afternoon, new Date('2026-11-22T13:10:00Z'))?.toISOString()).toBe('2026-11-22T14:30:00.000Z');
    expect(quietHoursEnd(afternoon, new Date('2026-11-22T14:30:00Z'))).toBeUndefined();
    expect(quietHoursEnd(null, new Date())).toBeUndefined();
  });
});

describe('the decision for one responder and medium', () => {
  const settings = (over: Partial<NotificationSettings> = {}): NotificationSettings => ({ ...DEFAULT_NOTIFICATION_SETTINGS, ...over });
  const base = { medium: 'email' as const, trigger: 'assigned' as const, severity: 'SEV-2' as const, settings: settings(), reachable: true, configured: true, now: new Date('2026-11-22T10:30:00Z') };
  const quiet = { start: '22:00', end: '07:00', timeZone: 'Pacific/Auckland' };

  it('sends when nothing stands in the way', () => {
    expect(decideNotification(base)).toEqual({ decision: 'SEND' });
  });

  it.each([
    ['a channel turned off', { settings: settings({ channels: ['push'] }) }, 'channel_disabled'],
    ['push turned off', { medium: 'push' as const, settings: settings({ pushEnabled: false }) }, 'push_disabled'],
    ['a severity left out of the filter', { settings: settings({ severityFilter: ['SEV-1'] }) }, 'severity_filter'],
    ['no SMTP server configured', { configured: false }, 'smtp_not_configured'],
    ['no address known', { reachable: false }, 'no_email_address'],
    ['no push subscription', { medium: 'push' as const, reachable: false }, 'no_push_subscription'],
  ])('suppresses for %s', (_, over, reason) => {
    expect(decideNotification({ ...base, ...over })).toEqual({ decision: 'SUPPRESSED', reason });
  });

  it('holds a SEV-2 in quiet hours until they end, and lets a SEV-1 page through', () => {
    expect(decideNotification({ ...base, settings: settings({ quietHours: quiet }) })).toEqual({ decision: 'HELD', reason: 'quiet_hours', until: new Date('2026-11-22T18:00:00Z') });
    expect(decideNotification({ ...base, severity: 'SEV-1', settings: settings({ quietHours: quiet }) })).toEqual({ decision: 'SEND' });
  });

  it('suppresses by the filter before it holds for quiet hours (nothing is sent at their end)', () => {
    expect(decideNotification({ ...base, settings: settings({ quietHours: quiet, severityFilter: ['SEV-1'] }) })).toEqual({ decision: 'SUPPRESSED', reason: 'severity_filter' });
  });

  it('sends a page inside quiet hours, for a severity the filter leaves out', () => {
    const asleep = settings({ quietHours: quiet, severityFilter: ['SEV-1'] });
    expect(decideNotification({ ...base, trigger: 'paged', severity: 'SEV-4', settings: asleep })).toEqual({ decision: 'SEND' });
    expect(decideNotification({ ...base, trigger: 'paged', medium: 'push', severity: 'SEV-4', settings: asleep })).toEqual({ decision: 'SEND' });
  });

  it.each([
    ['a channel turned off', { settings: settings({ channels: ['push'], quietHours: quiet }) }, 'channel_disabled'],
    ['push turned off', { medium: 'push' as const, settings: settings({ pushEnabled: false, severityFilter: [] }) }, 'push_disabled'],
    ['no SMTP server configured', { configured: false }, 'smtp_not_configured'],
    ['no address known', { reachable: false }, 'no_email_address'],
    ['no push subscription', { medium: 'push' as const, reachable: false }, 'no_push_subscription'],
  ])('still suppresses a page for %s', (_, over, reason) => {
    expect(decideNotification({ ...base, trigger: 'paged', ...over })).toEqual({ decision: 'SUPPRESSED', reason });
  });
});

describe('a page against every setting (property)', () => {
  const zones = ['UTC', 'Pacific/Auckland', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Europe/Berlin'];
  const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
  const settingsArb: fc.Arbitrary<NotificationSettings> = fc.record({
    pushEnabled: fc.boolean(),
    severityFilter: fc.subarray([...SEVERITIES]),
    quietHours: fc.option(fc.record({ start: hhmm, end: hhmm, timeZone: fc.constantFrom(...zones) }), { nil: null }),
    channels: fc.subarray<string>([...NOTIFICATION_MEDIA]),
  });
  const inputArb = fc.record({
    medium: fc.constantFrom(...NOTIFICATION_MEDIA),
    trigger: fc.constantFrom(...NOTIFICATION_TRIGGERS.filter((trigger) => trigger !== 'paged')),
    severity: fc.constantFrom(...SEVERITIES),
    settings: settingsArb,
    reachable: fc.boolean(),
    configured: fc.boolean(),
    now: fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2035-12-31T23:59:59Z'), noInvalidDate: true }),
  });
  /** What the settings decided before pages existed: the first setting that stops it, else quiet hours (a SEV-1 goes through them). */
  function beforePages(input: DecisionInput): NotificationDecision {
    const { medium, severity, settings, now } = input;
    const stops: [boolean, string][] = [
      [!settings.channels.includes(medium), 'channel_disabled'],
      [medium === 'push' && !settings.pushEnabled, 'push_disabled'],
      [!settings.severityFilter.includes(severity), 'severity_filter'],
      [!input.configured, `${medium === 'email' ? 'smtp' : 'push'}_not_configured`],
      [!input.reachable, medium === 'email' ? 'no_email_address' : 'no_push_subscription'],
    ];
    const stop = stops.find(([stopped]) => stopped);
    if (stop) return { decision: 'SUPPRESSED', reason: stop[1] };
    const until = severity === 'SEV-1' ? undefined : quietHoursEnd(settings.quietHours, now);
    return until ? { decision: 'HELD', reason: 'quiet_hours', until } : { decision: 'SEND' };
  }

  it('is never held, nor suppressed for the severity filter: sent unless a channel, push, the configuration or reachability stops it', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const decision = decideNotification({ ...input, trigger: 'paged' });
        const stopped = !input.settings.channels.includes(input.medium) || (input.medium === 'push' && !input.settings.pushEnabled) || !input.configured || !input.reachable;
        expect(decision.decision).toBe(stopped ? 'SUPPRESSED' : 'SEND');
        if (decision.decision === 'SUPPRESSED') expect(['quiet_hours', 'severity_filter']).not.toContain(decision.reason);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves every other trigger decided as before', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        expect(decideNotification(input)).toEqual(beforePages(input));
      }),
      { numRuns: 500 },
    );
  });
});

describe('push subscriptions of a responder', () => {
  const sub = (id: string, endpoint = 'https://push.example/a') => ({ id, endpoint, keys: { p256dh: 'k', auth: 'a' }, clearance: 'internal' });
  const fold = (events: { type: string; data?: object }[]) => events.reduce(evolvePushSubscriptions, initialPushSubscriptionsState);

  it('keeps one subscription per endpoint: registering it again replaces the old one', () => {
    const first = decideSubscribe(sub('ps_1'), initialPushSubscriptionsState);
    const again = decideSubscribe(sub('ps_2'), fold(first));
    expect(again).toEqual([
      { type: 'im.user.push_unsubscribed', data: { id: 'ps_1', reason: 'replaced' } },
      { type: 'im.user.push_subscribed', data: sub('ps_2') },
    ]);
    expect([...fold([...first, ...again]).keys()]).toEqual(['ps_2']);
  });

  it('removes its own subscription; an unknown one is not found, except when a push service said it is gone twice', () => {
    const state = fold(decideSubscribe(sub('ps_1'), initialPushSubscriptionsState));
    expect(decideUnsubscribe('ps_1', 'unregistered', state)).toEqual([{ type: 'im.user.push_unsubscribed', data: { id: 'ps_1', reason: 'unregistered' } }]);
    expect(() => decideUnsubscribe('ps_9', 'unregistered', state)).toThrow(NotFoundError);
    expect(decideUnsubscribe('ps_9', 'gone', state)).toEqual([]);
  });
});
