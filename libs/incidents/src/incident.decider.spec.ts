import {
  ConflictError,
  decideRecord,
  ForbiddenError,
  decide,
  evolve,
  type Incident,
  type IncidentCommand,
  type IncidentEvent,
  type IncidentState,
  InvalidError,
  type LedgerEvent,
  NotFoundError,
  noteRefusal,
  roleAssignmentRefusal,
  severityChangeRefusal,
  type Status,
  type Transition,
} from './index';

const ID = 'INC-0000beef';
const T0 = '2026-11-22T00:00:00.000Z';
const T1 = '2026-11-22T00:05:00.000Z';

const declared: IncidentEvent = {
  type: 'im.incident.declare',
  incidentId: ID,
  time: T0,
  data: { title: 'Checkout is down', severity: 'SEV-1' },
};

const moved = (kind: Transition, time = T0): IncidentEvent => ({
  type: `im.incident.${kind}`,
  incidentId: ID,
  time,
  data: {},
});

/** The shortest history that leaves an incident in each status. */
const HISTORY: Record<Status, IncidentEvent[]> = {
  open: [declared],
  acknowledged: [declared, moved('ack')],
  mitigated: [declared, moved('ack'), moved('mitigate')],
  resolved: [declared, moved('resolve')],
  closed: [declared, moved('resolve'), moved('close')],
  canceled: [declared, moved('cancel')],
  duplicate: [declared, { type: 'im.incident.duplicate', incidentId: ID, time: T0, data: { of: 'INC-00000001' } }],
};

const given = (events: (IncidentEvent | LedgerEvent)[]): IncidentState => events.reduce<IncidentState>(evolve, undefined);

describe('incident lifecycle (decisions.md table)', () => {
  // from, move, expected: a status (one event), 'no change' (200, no event) or 409.
  const table: [Status, Transition, Status | 'no change' | 409][] = [
    ['open', 'ack', 'acknowledged'],
    ['open', 'mitigate', 409],
    ['open', 'resolve', 'resolved'],
    ['open', 'close', 409],
    ['acknowledged', 'ack', 'no change'],
    ['acknowledged', 'mitigate', 'mitigated'],
    ['acknowledged', 'resolve', 'resolved'],
    ['acknowledged', 'close', 409],
    ['mitigated', 'ack', 409],
    ['mitigated', 'mitigate', 'no change'],
    ['mitigated', 'resolve', 'resolved'],
    ['mitigated', 'close', 409],
    ['resolved', 'ack', 409],
    ['resolved', 'mitigate', 409],
    ['resolved', 'resolve', 'no change'],
    ['resolved', 'close', 'closed'],
    ['closed', 'ack', 409],
    ['closed', 'mitigate', 409],
    ['closed', 'resolve', 409],
    ['closed', 'close', 'no change'],
    ['open', 'cancel', 'canceled'],
    ['acknowledged', 'cancel', 'canceled'],
    ['mitigated', 'cancel', 409],
    ['resolved', 'cancel', 409],
    ['closed', 'cancel', 409],
    ['canceled', 'cancel', 'no change'],
    ['canceled', 'ack', 409],
    ['canceled', 'mitigate', 409],
    ['canceled', 'resolve', 409],
    ['canceled', 'close', 409],
    ['duplicate', 'cancel', 409],
    ['duplicate', 'ack', 409],
    ['duplicate', 'mitigate', 409],
    ['duplicate', 'resolve', 409],
    ['duplicate', 'close', 409],
  ];

  it.each(table)('given %s, when %s, then %s', (from, kind, expected) => {
    const state = given(HISTORY[from]);
    expect(state?.status).toBe(from);
    const command = { kind, incidentId: ID, time: T1 };

    if (expected === 409) {
      expect(() => decide(command, state)).toThrow(ConflictError);
      expect(() => decide(command, state)).toThrow(`it is ${from}`);
    } else if (expected === 'no change') {
      expect(decide(command, state)).toEqual([]);
    } else {
      const events = decide(command, state);
      expect(events).toEqual([{ type: `im.incident.${kind}`, incidentId: ID, time: T1, data: {} }]);
      const after = events.reduce<IncidentState>(evolve, state);
      expect(after).toMatchObject({ status: expected, updatedAt: T1, createdAt: T0 });
    }
  });

  it.each(['ack', 'mitigate', 'resolve', 'close', 'cancel'] as const)('%s of an unknown incident is not found', (kind) => {
    expect(() => decide({ kind, incidentId: ID, time: T1 }, undefined)).toThrow(NotFoundError);
    expect(() => decide({ kind, incidentId: ID, time: T1 }, undefined)).toThrow(`Incident ${ID} not found`);
  });

  it('decides only the command kinds it names: any other is refused, not taken for a transition', () => {
    // @ts-expect-error a kind the IncidentCommand union does not have is a compile error
    const unknown: IncidentCommand = { kind: 'reopen', incidentId: ID, time: T1 };
    expect(() => decide(unknown, given([declared, moved('resolve')]))).toThrow(InvalidError);
    expect(() => decide(unknown, given([declared, moved('resolve')]))).toThrow('Unknown command reopen');
  });
});

describe('declare', () => {
  const declare = (fields: Record<string, unknown>) =>
    decide({ kind: 'declare', incidentId: ID, time: T0, title: undefined, severity: undefined, ...fields }, undefined);

  it('opens a new incident with created_at = updated_at', () => {
    const events = declare({ title: '  Checkout is down ', severity: 'SEV-2', description: 'p99 > 5s' });
    expect(events).toEqual([
      {
        type: 'im.incident.declare',
        incidentId: ID,
        time: T0,
        data: { title: 'Checkout is down', severity: 'SEV-2', description: 'p99 > 5s' },
      },
    ]);
    expect(given(events)).toEqual<Incident>({
      id: ID,
      title: 'Checkout is down',
      description: 'p99 > 5s',
      severity: 'SEV-2',
      status: 'open',
      createdAt: T0,
      updatedAt: T0,
    });
  });

  it('accepts title and severity alone', () => {
    expect(given(declare({ title: 'x', severity: 'SEV-4' }))).not.toHaveProperty('description');
  });

  it.each([
    [{ severity: 'SEV-1' }, 'title'],
    [{ title: '', severity: 'SEV-1' }, 'title'],
    [{ title: '   ', severity: 'SEV-1' }, 'title'],
    [{ title: 42, severity: 'SEV-1' }, 'title'],
    [{ title: 'x'.repeat(501), severity: 'SEV-1' }, 'title'],
    [{ title: 'x' }, 'severity'],
    [{ title: 'x', severity: 'SEV-5' }, 'severity'],
    [{ title: 'x', severity: 'sev-1' }, 'severity'],
    [{ title: 'x', severity: 'SEV-1', description: 7 }, 'description'],
  ])('refuses %j (%s)', (fields, field) => {
    expect(() => declare(fields)).toThrow(InvalidError);
    expect(() => declare(fields)).toThrow(field);
  });

  it('refuses to declare an incident twice', () => {
    expect(() =>
      decide({ kind: 'declare', incidentId: ID, time: T1, title: 'again', severity: 'SEV-1' }, given([declared])),
    ).toThrow(ConflictError);
  });
});

describe('evolve', () => {
  it('ignores events the lifecycle does not know (notes, alerts)', () => {
    const state = given([declared]);
    expect(evolve(state, { type: 'im.incident.note', incidentId: ID, time: T1, data: { content: 'hi' } })).toBe(state);
  });

  it('leaves the state alone for a repeated transition stored on the timeline', () => {
    const state = given(HISTORY.acknowledged);
    expect(evolve(state, moved('ack', T1))).toBe(state);
  });

  it('keeps the visibility the incident was opened with, and none when it was opened without', () => {
    const withVisibility = { ...declared, visibility: 'confidential' };
    expect(given([withVisibility, moved('ack')])).toMatchObject({ status: 'acknowledged', visibility: 'confidential' });
    expect(given([declared, { ...moved('ack'), visibility: 'public' }])).not.toHaveProperty('visibility');
  });

  it('ignores a transition before the incident exists', () => {
    expect(evolve(undefined, moved('ack'))).toBeUndefined();
  });
});

describe('roles, notes and GraphQL declarations', () => {
  const open = given([declared]);

  it('makes the declaring responder incident commander, with services and labels', () => {
    const events = decide(
      { kind: 'declare', incidentId: ID, time: T0, title: 'x', severity: 'SEV-2', services: ['db '], labels: { team: 'core' }, commander: 'alice' },
      undefined,
    );
    expect(events.map((e) => e.type)).toEqual(['im.incident.declare', 'im.incident.role_assigned']);
    expect(given(events)).toMatchObject({ services: ['db'], labels: { team: 'core' }, roles: { IC: 'alice' } });
  });

  it.each([
    [{ services: 'db' }, 'services'],
    [{ services: [''] }, 'services'],
    [{ labels: ['a'] }, 'labels'],
    [{ labels: { team: 3 } }, 'labels'],
  ])('refuses %j', (fields, message) => {
    expect(() => decide({ kind: 'declare', incidentId: ID, time: T0, title: 'x', severity: 'SEV-2', ...fields }, undefined)).toThrow(message);
  });

  const assign = (role: unknown, userId: unknown, callerId: string, state: IncidentState, roles: string[] = []) =>
    decide({ kind: 'assign_role', incidentId: ID, time: T1, role, userId, caller: { id: callerId, roles } }, state);

  it('lets anyone assign while there is no commander, then only the commander', () => {
    const withIc = given([declared, ...assign('IC', 'alice', 'bob', open)]);
    expect(withIc?.roles).toEqual({ IC: 'alice' });
    expect(assign('OPS', 'carol', 'alice', withIc)).toHaveLength(1);
    expect(() => assign('OPS', 'carol', 'bob', withIc)).toThrow(ForbiddenError);
  });

  it('lets the commander or an incidents.admin replace the commander, and nobody else', () => {
    const withIc = given([declared, ...assign('IC', 'alice', 'alice', open)]);
    expect(() => assign('IC', 'mallory', 'mallory', withIc, ['timeline.writer'])).toThrow(ForbiddenError);
    expect(given([declared, ...assign('IC', 'alice', 'alice', open), ...assign('IC', 'bob', 'alice', withIc)])?.roles).toEqual({ IC: 'bob' });
    const replaced = assign('IC', 'carol', 'root', withIc, ['incidents.admin']);
    expect(given([declared, ...assign('IC', 'alice', 'alice', open), ...replaced])?.roles).toEqual({ IC: 'carol' });
    expect(assign('OPS', 'dave', 'root', withIc, ['incidents.admin'])).toHaveLength(1);
  });

  it('refuses notes and role assignments on a closed incident, by the rules quickActions shows', () => {
    const closed = given([...HISTORY.closed, ...assign('IC', 'alice', 'alice', open)]);
    const admin = { id: 'root', roles: ['incidents.admin'] };
    expect(() => decide({ kind: 'add_note', incidentId: ID, time: T1, content: 'late' }, closed)).toThrow(ConflictError);
    expect(() => decide({ kind: 'add_note', incidentId: ID, time: T1, content: 'late' }, closed)).toThrow('it is closed');
    expect(() => assign('OPS', 'bob', 'alice', closed)).toThrow(ConflictError);
    expect(() => assign('IC', 'bob', 'root', closed, admin.roles)).toThrow('it is closed');
    const recordedNote = { type: 'im.incident.note', incidentId: ID, time: T1, data: { content: 'late' } };
    expect(() => decideRecord({ kind: 'record', incidentId: ID, event: recordedNote }, closed)).toThrow('it is closed');
    expect(noteRefusal(closed!)).toBeInstanceOf(ConflictError);
    expect(roleAssignmentRefusal(closed!, admin)).toBeInstanceOf(ConflictError);
    const resolved = given([...HISTORY.resolved, ...assign('IC', 'alice', 'alice', open)])!;
    expect(noteRefusal(resolved)).toBeUndefined();
    expect(roleAssignmentRefusal(resolved, { id: 'alice', roles: [] })).toBeUndefined();
    expect(roleAssignmentRefusal(resolved, { id: 'bob', roles: [] })).toBeInstanceOf(ForbiddenError);
  });

  it('answers a repeated assignment with no event, and refuses unknown roles, empty users and unknown incidents', () => {
    const withIc = given([declared, ...assign('IC', 'alice', 'alice', open)]);
    expect(assign('IC', 'alice', 'alice', withIc)).toEqual([]);
    expect(() => assign('CEO', 'x', 'alice', withIc)).toThrow(InvalidError);
    expect(() => assign('OPS', ' ', 'alice', withIc)).toThrow(InvalidError);
    expect(() => assign('OPS', 'x', 'alice', undefined)).toThrow(NotFoundError);
  });

  it('adds a note to an existing incident, refusing empty ones', () => {
    expect(decide({ kind: 'add_note', incidentId: ID, time: T1, content: 'Rolled back' }, open)).toEqual([
      { type: 'im.incident.note', incidentId: ID, time: T1, data: { content: 'Rolled back' } },
    ]);
    expect(() => decide({ kind: 'add_note', incidentId: ID, time: T1, content: '  ' }, open)).toThrow(InvalidError);
    expect(() => decide({ kind: 'add_note', incidentId: ID, time: T1, content: 'x' }, undefined)).toThrow(NotFoundError);
  });

  it('refuses role assignments pushed through the timeline', () => {
    const event = { type: 'im.incident.role_assigned', incidentId: ID, time: T1, data: { role: 'IC', user_id: 'mallory' } };
    expect(() => decideRecord({ kind: 'record', incidentId: ID, event }, open)).toThrow(InvalidError);
  });
});

describe('declarations through the timeline', () => {
  const record = (type: string, data: Record<string, unknown>) =>
    decideRecord({ kind: 'record', incidentId: ID, event: { type, incidentId: ID, time: T0, data } }, undefined);
  const title = { title: 'Checkout is down', severity: 'SEV-1' };

  it.each([
    ['services that are not names', { services: [{ x: 1 }] }, /services must be a list/],
    ['services that are not a list', { services: 'api' }, /services must be a list/],
    ['labels with a non-text value', { labels: { team: 1 } }, /labels must be an object.*: "team" is not text$/],
    ['labels that are a list', { labels: ['a'] }, /labels must be an object.*: they are not an object$/],
    ['a label value over 200 characters', { labels: { alertname: 'A'.repeat(201) } }, /: "alertname" has 201 characters$/],
    ['a label name over 200 characters', { labels: { ['n'.repeat(201)]: 'x' } }, /: the name "n{37}\.\.\." has 201 characters$/],
    ['an empty label name', { labels: { '': 'x' } }, /: the name "" has 0 characters$/],
    ['more than 50 labels', { labels: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`l${i}`, 'x'])) }, /: there are 51$/],
    ['a description that is not text', { description: 5 }, /description must be a string/],
  ])('refuses %s, as the REST and GraphQL declare do', (_, fields, message) => {
    expect(() => decide({ kind: 'declare', incidentId: ID, time: T0, ...title, ...fields }, undefined)).toThrow(message);
    expect(() => record('im.incident.declare', { ...title, ...fields })).toThrow(message);
    expect(() => record('im.alert.trigger', fields)).toThrow(message);
  });

  it('folds a declaration stored before these checks without its broken fields', () => {
    const stored = { ...declared, data: { ...declared.data, services: [{ x: 1 }], labels: { team: 7 } } } as unknown as IncidentEvent;
    const state = evolve(undefined, stored);
    expect(state).toMatchObject({ title: 'Checkout is down', status: 'open' });
    expect(state).not.toHaveProperty('services');
    expect(state).not.toHaveProperty('labels');
  });

  it("opens an alert's incident with its one data.service (the seed's key), and with the services: [name] of alerts stored before", () => {
    const trigger = (data: Record<string, unknown>): LedgerEvent => ({ type: 'im.alert.trigger', incidentId: ID, time: T0, data });
    expect(evolve(undefined, trigger({ title: 'Disk full', service: ' edge ' }))).toMatchObject({ services: ['edge'] });
    expect(evolve(undefined, trigger({ title: 'Disk full', services: ['edge'] }))).toMatchObject({ services: ['edge'] });
    expect(evolve(undefined, trigger({ title: 'Disk full', services: ['a', 'b'], service: 'c' }))).toMatchObject({ services: ['a', 'b'] });
    expect(evolve(undefined, trigger({ title: 'Disk full', service: 7 }))).not.toHaveProperty('services');
    expect(record('im.alert.trigger', { service: 'edge' })).toEqual([{ type: 'im.alert.trigger', incidentId: ID, time: T0, data: { service: 'edge' } }]);
  });

  it.each([
    ['not text', 7],
    ['blank', ' '],
    ['over 200 characters', 'x'.repeat(201)],
  ])('accepts an opening event whose service is %s, as before, and gives its incident no service from it', (_, service) => {
    for (const [type, data] of [['im.alert.trigger', { service }], ['im.incident.declare', { ...title, service }]] as const) {
      const [event] = record(type, data);
      expect(event).toMatchObject({ type, data: { service } });
      expect(evolve(undefined, event)).not.toHaveProperty('services');
    }
  });

  it('stores a valid declaration as it came', () => {
    const data = { ...title, services: ['api'], labels: { team: 'payments' } };
    expect(record('im.incident.declare', data)).toEqual([{ type: 'im.incident.declare', incidentId: ID, time: T0, data }]);
  });
});

describe('severity changes', () => {
  const open = given([declared]);
  const change = (severity: unknown, state: IncidentState) => decide({ kind: 'change_severity', incidentId: ID, time: T1, severity }, state);
  const recorded = (severity: unknown) => ({ type: 'im.incident.severity', incidentId: ID, time: T1, data: { severity } });

  it('records im.incident.severity, and the incident takes the new severity', () => {
    const events = change('SEV-3', open);
    expect(events).toEqual([{ type: 'im.incident.severity', incidentId: ID, time: T1, data: { severity: 'SEV-3' } }]);
    expect(given([declared, ...events])).toMatchObject({ severity: 'SEV-3', updatedAt: T1 });
  });

  it('answers the same severity with no event, and refuses unknown severities, unknown and closed incidents', () => {
    expect(change('SEV-1', open)).toEqual([]);
    expect(() => change('SEV-9', open)).toThrow(InvalidError);
    expect(() => change('SEV-2', undefined)).toThrow(NotFoundError);
    expect(() => change('SEV-2', given(HISTORY.closed))).toThrow('it is closed');
    expect(severityChangeRefusal(given(HISTORY.resolved)!)).toBeUndefined();
  });

  it('takes a severity change pushed through the timeline by the same rules', () => {
    expect(decideRecord({ kind: 'record', incidentId: ID, event: recorded('SEV-2') }, open)).toEqual([recorded('SEV-2')]);
    expect(() => decideRecord({ kind: 'record', incidentId: ID, event: recorded('high') }, open)).toThrow(InvalidError);
    expect(() => decideRecord({ kind: 'record', incidentId: ID, event: recorded('SEV-2') }, given(HISTORY.closed))).toThrow(ConflictError);
    expect(() => decideRecord({ kind: 'record', incidentId: ID, event: recorded('SEV-2') }, undefined)).toThrow(NotFoundError);
    // One stored before the check with a value that is no severity changes nothing.
    expect(given([declared, recorded('high')])).toEqual(open);
  });
});

describe('duplicate', () => {
  const OF = 'INC-00000001';
  const other = (status: Status, id = OF): Incident => ({ ...(given(HISTORY[status]) as Incident), id });
  /** `of`'s state: an open incident unless given (given undefined: none). */
  const mark = (state: IncidentState, of: unknown = OF, ...ofState: [IncidentState?]) =>
    decide({ kind: 'duplicate', incidentId: ID, time: T1, of, ofState: ofState.length ? ofState[0] : other('open') }, state);

  it.each(['open', 'acknowledged', 'mitigated'] as const)('marks a %s incident a duplicate of another, which records which', (from) => {
    const events = mark(given(HISTORY[from]));
    expect(events).toEqual([{ type: 'im.incident.duplicate', incidentId: ID, time: T1, data: { of: OF } }]);
    expect(events.reduce(evolve, given(HISTORY[from]))).toMatchObject({ status: 'duplicate', duplicateOf: OF, updatedAt: T1 });
  });

  it.each(['resolved', 'closed', 'canceled'] as const)('refuses to mark a %s incident (409)', (from) => {
    expect(() => mark(given(HISTORY[from]))).toThrow(ConflictError);
    expect(() => mark(given(HISTORY[from]))).toThrow(`it is ${from}`);
  });

  it('may duplicate a resolved or closed incident, not a canceled one or a duplicate (409)', () => {
    expect(mark(given(HISTORY.open), OF, other('closed'))).toHaveLength(1);
    expect(mark(given(HISTORY.open), OF, other('resolved'))).toHaveLength(1);
    expect(() => mark(given(HISTORY.open), OF, other('canceled'))).toThrow(`Cannot mark incident ${ID} a duplicate of ${OF}: it is canceled`);
    expect(() => mark(given(HISTORY.open), OF, other('duplicate'))).toThrow(ConflictError);
  });

  it('answers 404 for an `of` that does not exist (or is withheld), 409 for the incident itself, 400 for no id', () => {
    expect(() => mark(given(HISTORY.open), OF, undefined)).toThrow(NotFoundError);
    expect(() => mark(given(HISTORY.open), OF, undefined)).toThrow(`Incident ${OF} not found`);
    expect(() => mark(given(HISTORY.open), ID, given(HISTORY.open))).toThrow(`Incident ${ID} cannot be a duplicate of itself`);
    expect(() => mark(given(HISTORY.open), 42)).toThrow(InvalidError);
    expect(() => mark(given(HISTORY.open), '')).toThrow('of must be');
    expect(() => mark(undefined)).toThrow(`Incident ${ID} not found`);
  });

  it('changes nothing marked again with the same `of`; another `of` is 409', () => {
    const duplicate = given(HISTORY.duplicate);
    expect(mark(duplicate)).toEqual([]);
    expect(() => mark(duplicate, 'INC-00000002', other('open', 'INC-00000002'))).toThrow(`already a duplicate of ${OF}`);
  });

  it('is recorded only through its command: the timeline cannot vouch for `of`', () => {
    const event = { type: 'im.incident.duplicate', incidentId: ID, time: T1, data: { of: OF } };
    expect(() => decideRecord({ kind: 'record', incidentId: ID, event }, given(HISTORY.open))).toThrow('im.incident.duplicate is recorded by the service only');
  });

  it('cancel recorded through the timeline follows the table, as ack does', () => {
    const event = moved('cancel', T1);
    expect(decideRecord({ kind: 'record', incidentId: ID, event }, given(HISTORY.open))).toEqual([event]);
    expect(() => decideRecord({ kind: 'record', incidentId: ID, event }, given(HISTORY.resolved))).toThrow(ConflictError);
  });

  it('canceled and duplicate incidents still take notes and severity changes, as resolved ones do', () => {
    for (const state of [given(HISTORY.canceled), given(HISTORY.duplicate)]) {
      expect(noteRefusal(state as Incident)).toBeUndefined();
      expect(severityChangeRefusal(state as Incident)).toBeUndefined();
    }
  });
});
