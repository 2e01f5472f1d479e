import fc from 'fast-check';
import { ConflictError } from '../domain-errors';
import type { EscalationState, IncidentState } from '../incident';
import type { EscalateIncident, IncidentCommand, PagingPlan } from '../incident-commands';
import { decide, decideRecord, evolve } from '../incident.decider';
import type { IncidentEvent, LedgerEvent } from '../incident-events';
import { type EscalationPolicyShape, nextStep, pageData, type StepTargets, stepDueAt } from './escalation';

const ID = 'INC-0000beef';
const T0 = '2026-11-22T00:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const opened: LedgerEvent[] = [
  { type: 'im.alert.trigger', incidentId: ID, time: T0, data: { title: 'Checkout down', severity: 'SEV-1' }, fingerprint: 'fp' },
  { type: 'im.incident.service_assigned', incidentId: ID, time: T0, data: { service_id: 'svc-1', escalation_policy_id: 'pol-1' } },
];
const given = (events: (IncidentEvent | LedgerEvent)[]): IncidentState => events.reduce<IncidentState>(evolve, undefined);

/** Two steps, 5 and 10 minutes, one repeat. */
const POLICY: EscalationPolicyShape = { steps: [{ delay_seconds: 300 }, { delay_seconds: 600 }], repeat: 1 };
const TARGETS: StepTargets[] = [
  { paged: [{ user: 'alice', via: 'user' }], unstaffed: [] },
  { paged: [{ user: 'bob', via: 'schedule:s1' }], unstaffed: ['s2'] },
];
const plan: PagingPlan = { policy: POLICY, targets: TARGETS };
const escalation = (fields: Partial<EscalationState>): EscalationState => ({
  serviceId: 'svc-1',
  policyId: 'pol-1',
  step: 0,
  round: 0,
  pagedAt: null,
  paged: [],
  exhausted: false,
  ...fields,
});

const page = (state: IncidentState, time = T0) => decide({ kind: 'page', incidentId: ID, time, ...plan }, state);
const timeout = (state: IncidentState, seen: { step: number; round: number }, time: string) =>
  decide({ kind: 'escalate', incidentId: ID, time, reason: 'timeout', seen, ...plan }, state);
const manual = (state: IncidentState, time: string) => decide({ kind: 'escalate', incidentId: ID, time, reason: 'manual', ...plan }, state);
const then = (state: IncidentState, events: IncidentEvent[]) => events.reduce<IncidentState>(evolve, state);

describe('the escalation policy against the state', () => {
  it('pages step after step, then the rounds the repeats allow, then nothing', () => {
    const seen: (string | undefined)[] = [];
    let state = escalation({});
    for (let next = nextStep(POLICY, state); next; next = nextStep(POLICY, state)) {
      seen.push(`${next.step}/${next.round}`);
      state = { ...state, ...next };
    }
    expect(seen).toEqual(['1/1', '2/1', '1/2', '2/2']);
    expect(nextStep({ ...POLICY, repeat: 0 }, escalation({ step: 2, round: 1 }))).toBeUndefined();
    expect(nextStep(POLICY, escalation({ step: 1, round: 1, exhausted: true }))).toBeUndefined();
  });

  it('falls due the current step’s delay after its page; a step the policy no longer has at once; never before the first page', () => {
    expect(stepDueAt(POLICY, escalation({ step: 2, round: 1, pagedAt: at(300) }))).toBe(at(900));
    expect(stepDueAt(POLICY, escalation({ step: 3, round: 1, pagedAt: at(300) }))).toBe(at(300));
    expect(stepDueAt(POLICY, escalation({}))).toBeUndefined();
    expect(stepDueAt(POLICY, escalation({ step: 2, round: 2, pagedAt: at(1), exhausted: true }))).toBeUndefined();
  });

  it('pages a user both targeted and on call once, as the first target that named them', () => {
    const targets: StepTargets = {
      paged: [
        { user: 'alice', via: 'user' },
        { user: 'bob', via: 'schedule:s1' },
        { user: 'alice', via: 'schedule:s1' },
        { user: 'bob', via: 'schedule:s3' },
      ],
      unstaffed: ['s2', 's2'],
    };
    expect(pageData({ step: 1, round: 1 }, targets)).toEqual({
      step: 1,
      round: 1,
      paged: [
        { user: 'alice', via: 'user' },
        { user: 'bob', via: 'schedule:s1' },
      ],
      unstaffed: ['s2'],
    });
  });
});

describe('the fold', () => {
  it('starts paging from the service the incident opened in, first assignment winning', () => {
    const state = given([...opened, { type: 'im.incident.service_assigned', incidentId: ID, time: T0, data: { service_id: 'svc-2', escalation_policy_id: null } }]);
    expect(state?.escalation).toEqual(escalation({}));
    expect(given([opened[0]])).not.toHaveProperty('escalation');
    expect(given([opened[0], { type: 'im.incident.service_assigned', incidentId: ID, time: T0, data: { service_id: 'svc-2', escalation_policy_id: null } }])?.escalation).toEqual(
      escalation({ serviceId: 'svc-2', policyId: null }),
    );
  });

  it('records the page (its time, who), exhaustion; leaves an integration’s im.paging.escalate and the update time alone', () => {
    const paged = then(given(opened), page(given(opened), at(5)));
    expect(paged?.escalation).toEqual(escalation({ step: 1, round: 1, pagedAt: at(5), paged: ['alice'] }));
    expect(paged?.updatedAt).toBe(T0);
    const foreign = { type: 'im.paging.escalate', incidentId: ID, time: at(6), data: { title: 'step 2', step: 'two' } };
    expect(evolve(paged, foreign)).toBe(paged);
    expect(evolve(paged, { type: 'im.paging.exhausted', incidentId: ID, time: at(7), data: { rounds: 1 } })?.escalation?.exhausted).toBe(true);
  });

  it('ignores a page without a service, or one it cannot read', () => {
    const noService = given([opened[0]]);
    expect(evolve(noService, { type: 'im.paging.page', incidentId: ID, time: at(1), data: { step: 1, round: 1, paged: [], unstaffed: [] } })).toBe(noService);
    const state = given(opened);
    expect(evolve(state, { type: 'im.paging.page', incidentId: ID, time: at(1), data: { step: 0, round: 1, paged: [] } })).toBe(state);
  });
});

describe('paging decisions', () => {
  it('pages step 1 of round 1 as the incident opens, once', () => {
    const events = page(given(opened));
    expect(events).toEqual([
      { type: 'im.paging.page', incidentId: ID, time: T0, data: { step: 1, round: 1, paged: [{ user: 'alice', via: 'user' }], unstaffed: [] } },
    ]);
    expect(page(then(given(opened), events), at(1))).toEqual([]);
  });

  it('pages nothing without a policy, or once the incident is no longer open', () => {
    expect(page(given([opened[0]]))).toEqual([]);
    expect(page(given([opened[0], { ...opened[1], data: { service_id: 'svc-1', escalation_policy_id: null } }]))).toEqual([]);
    expect(page(given([...opened, { type: 'im.incident.ack', incidentId: ID, time: T0, data: {} }]))).toEqual([]);
  });

  it('escalates a step that fell due: the escalation, then its page', () => {
    const first = then(given(opened), page(given(opened)));
    expect(timeout(first, { step: 1, round: 1 }, at(300))).toEqual([
      { type: 'im.paging.escalate', incidentId: ID, time: at(300), data: { from_step: 1, to_step: 2, reason: 'timeout' } },
      { type: 'im.paging.page', incidentId: ID, time: at(300), data: { step: 2, round: 1, paged: [{ user: 'bob', via: 'schedule:s1' }], unstaffed: ['s2'] } },
    ]);
  });

  it('pages nothing for a timer that fires early, twice, or after the incident left open', () => {
    const first = then(given(opened), page(given(opened)));
    expect(timeout(first, { step: 1, round: 1 }, at(299))).toEqual([]);
    const second = then(first, timeout(first, { step: 1, round: 1 }, at(300)));
    expect(timeout(second, { step: 1, round: 1 }, at(301))).toEqual([]);
    for (const move of ['ack', 'cancel', 'resolve'] as const) {
      const left = evolve(first, { type: `im.incident.${move}`, incidentId: ID, time: at(10), data: {} });
      expect(timeout(left, { step: 1, round: 1 }, at(300))).toEqual([]);
    }
  });

  it('records exhaustion once, when the last step of the last round falls due', () => {
    let state = then(given(opened), page(given(opened)));
    let time = 0;
    for (const seen of [{ step: 1, round: 1 }, { step: 2, round: 1 }, { step: 1, round: 2 }]) {
      time += POLICY.steps[seen.step - 1].delay_seconds;
      state = then(state, timeout(state, seen, at(time)));
    }
    expect(state?.escalation).toMatchObject({ step: 2, round: 2, exhausted: false });
    const last = timeout(state, { step: 2, round: 2 }, at(time + 600));
    expect(last).toEqual([{ type: 'im.paging.exhausted', incidentId: ID, time: at(time + 600), data: { rounds: 2 } }]);
    state = then(state, last);
    expect(timeout(state, { step: 2, round: 2 }, at(time + 601))).toEqual([]);
    expect(() => manual(state, at(time + 601))).toThrow('no step is left');
  });

  it('escalates by hand while open or acknowledged, at once; an acknowledged incident stays so', () => {
    const first = then(given(opened), page(given(opened)));
    const acked = evolve(first, { type: 'im.incident.ack', incidentId: ID, time: at(1), data: {} });
    const events = manual(acked, at(2));
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['im.paging.escalate', { from_step: 1, to_step: 2, reason: 'manual' }],
      ['im.paging.page', { step: 2, round: 1, paged: [{ user: 'bob', via: 'schedule:s1' }], unstaffed: ['s2'] }],
    ]);
    expect(then(acked, events)?.status).toBe('acknowledged');
  });

  it('refuses a manual escalation (409) when nothing is left, the incident is past acknowledged, or it has no policy', () => {
    const lastStep = { ...(given(opened) as object), escalation: escalation({ step: 2, round: 1, pagedAt: T0, paged: ['bob'] }) } as IncidentState;
    const once: EscalateIncident = { kind: 'escalate', incidentId: ID, time: at(1), reason: 'manual', policy: { ...POLICY, repeat: 0 }, targets: TARGETS };
    expect(() => decide(once, lastStep)).toThrow(ConflictError);
    expect(() => manual(evolve(given(opened), { type: 'im.incident.resolve', incidentId: ID, time: at(1), data: {} }), at(2))).toThrow('it is resolved');
    expect(() => manual(given([opened[0]]), at(2))).toThrow('has no escalation policy');
  });

  it('takes no page, exhaustion or service assignment through the timeline; an integration’s im.paging.escalate is stored as before', () => {
    const state = given(opened);
    for (const type of ['im.paging.page', 'im.paging.exhausted', 'im.incident.service_assigned']) {
      expect(() => decideRecord({ kind: 'record', incidentId: ID, event: { type, incidentId: ID, time: T0, data: {} } }, state)).toThrow(`${type} is recorded by the service only`);
    }
    const escalate = { type: 'im.paging.escalate', incidentId: ID, time: T0, data: { title: 'step 2' } };
    expect(decideRecord({ kind: 'record', incidentId: ID, event: escalate }, state)).toEqual([escalate]);
  });
});

describe('paging, for any policy and any order of timers and status changes (property)', () => {
  const policy: fc.Arbitrary<EscalationPolicyShape> = fc.record({
    steps: fc.array(fc.record({ delay_seconds: fc.integer({ min: 1, max: 900 }) }), { minLength: 1, maxLength: 4 }),
    repeat: fc.integer({ min: 0, max: 3 }),
  });
  const USERS = ['alice', 'bob', 'carol'];
  const targets = fc.array(
    fc.record({
      paged: fc.array(fc.record({ user: fc.constantFrom(...USERS), via: fc.constantFrom('user', 'schedule:s1', 'schedule:s2') }), { maxLength: 4 }),
      unstaffed: fc.array(fc.constantFrom('s1', 's2'), { maxLength: 2 }),
    }),
    { minLength: 4, maxLength: 4 },
  );
  type Step =
    | { kind: 'due' }
    | { kind: 'early' }
    | { kind: 'again' }
    | { kind: 'stale'; step: number; round: number; wait: number }
    | { kind: 'page' }
    | { kind: 'manual' }
    | { kind: 'move'; move: 'ack' | 'mitigate' | 'resolve' | 'cancel' | 'duplicate' };
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 6, arbitrary: fc.constant({ kind: 'due' as const }) },
    fc.constant({ kind: 'early' as const }),
    fc.constant({ kind: 'again' as const }),
    fc.record({ kind: fc.constant('stale' as const), step: fc.integer({ min: 0, max: 5 }), round: fc.integer({ min: 0, max: 5 }), wait: fc.integer({ min: 0, max: 2000 }) }),
    fc.constant({ kind: 'page' as const }),
    fc.constant({ kind: 'manual' as const }),
    fc.record({ kind: fc.constant('move' as const), move: fc.constantFrom('ack' as const, 'mitigate' as const, 'resolve' as const, 'cancel' as const, 'duplicate' as const) }),
  );

  it('pages no (step, round) twice, nothing after the incident left open (a manual escalation of an acknowledged one aside), no round past repeat + 1, exhaustion once', () => {
    fc.assert(
      fc.property(policy, targets, fc.array(step, { maxLength: 40 }), (shape, resolved, steps) => {
        const plan = { policy: shape, targets: resolved };
        let state = given(opened);
        let now = 0;
        let lastSeen: { step: number; round: number } | undefined;
        const pages = new Set<string>();
        let exhaustions = 0;
        const run = (command: IncidentCommand) => {
          const before = state!;
          const events = decide(command, before);
          for (const event of events) {
            if (event.type === 'im.paging.page') {
              const { step: s, round: r, paged } = event.data;
              const key = `${s}/${r}`;
              expect(pages.has(key)).toBe(false);
              pages.add(key);
              expect(r).toBeLessThanOrEqual(shape.repeat + 1);
              expect(s).toBeLessThanOrEqual(shape.steps.length);
              expect(new Set(paged.map((p) => p.user)).size).toBe(paged.length);
              const manualOnAck = command.kind === 'escalate' && command.reason === 'manual' && before.status === 'acknowledged';
              expect(before.status === 'open' || manualOnAck).toBe(true);
              expect(exhaustions).toBe(0);
            }
            if (event.type === 'im.paging.exhausted') {
              exhaustions += 1;
              expect(event.data.rounds).toBeLessThanOrEqual(shape.repeat + 1);
              expect(before.status).toBe('open');
            }
          }
          state = then(before, events);
        };
        const current = () => ({ step: state!.escalation!.step, round: state!.escalation!.round });
        run({ kind: 'page', incidentId: ID, time: at(now), ...plan });
        for (const s of steps) {
          const due = stepDueAt(shape, state!.escalation!);
          if (s.kind === 'due' || s.kind === 'early') {
            if (due === undefined) continue;
            const dueSeconds = (Date.parse(due) - Date.parse(T0)) / 1000;
            now = Math.max(now, s.kind === 'due' ? dueSeconds : dueSeconds - 1);
            lastSeen = current();
            const wasOpen = state!.status === 'open';
            const beforePages = pages.size;
            const beforeExhausted = exhaustions;
            run({ kind: 'escalate', incidentId: ID, time: at(now), reason: 'timeout', seen: lastSeen, ...plan });
            // A timer at or past its due time moves an open incident on (a page or exhaustion); an early one never does.
            const moved = pages.size > beforePages || exhaustions > beforeExhausted;
            expect(moved).toBe(wasOpen && now >= dueSeconds);
          } else if (s.kind === 'again' || s.kind === 'stale') {
            if (s.kind === 'stale') now += s.wait;
            const seen = s.kind === 'stale' ? { step: s.step, round: s.round } : lastSeen;
            if (!seen) continue;
            const command: IncidentCommand = { kind: 'escalate', incidentId: ID, time: at(now), reason: 'timeout', seen, ...plan };
            // A timer that saw another (step, round) than the current one decides nothing, however late it fires.
            if (seen.step !== current().step || seen.round !== current().round) expect(decide(command, state)).toEqual([]);
            run(command);
          } else if (s.kind === 'page') {
            run({ kind: 'page', incidentId: ID, time: at(now), ...plan });
          } else if (s.kind === 'manual') {
            const allowed = (state!.status === 'open' || state!.status === 'acknowledged') && nextStep(shape, state!.escalation!) !== undefined;
            if (allowed) run({ kind: 'escalate', incidentId: ID, time: at(now), reason: 'manual', ...plan });
            else expect(() => decide({ kind: 'escalate', incidentId: ID, time: at(now), reason: 'manual', ...plan }, state)).toThrow(ConflictError);
          } else {
            const command: IncidentCommand =
              s.move === 'duplicate'
                ? { kind: 'duplicate', incidentId: ID, time: at(now), of: 'INC-00000001', ofState: { ...state!, id: 'INC-00000001', status: 'open' } }
                : { kind: s.move, incidentId: ID, time: at(now) };
            try {
              run(command);
            } catch (error) {
              expect(error).toBeInstanceOf(ConflictError);
            }
          }
        }
        expect(exhaustions).toBeLessThanOrEqual(1);
        expect(state!.escalation!.round).toBeLessThanOrEqual(shape.repeat + 1);
      }),
      { numRuns: 300 },
    );
  });
});
