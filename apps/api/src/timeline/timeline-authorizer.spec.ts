import { join } from 'node:path';
import { loadTimelinePolicy } from '@im/policy';
import { storedTimelineRow, type TimelineQuery } from '@im/read-models';
import type { Incident } from '@im/incidents';
import { type IncidentQueryService, ShownRow, TimelineAuthorizer } from '@im/access';
import { matchesAsShown } from './timeline-filter';

const rules = loadTimelinePolicy(join(__dirname, '../../../../policy/timeline-policy.json')).redaction;
const VIEW = '{"id":"evt-1","stored":"as is"}';
/** A row whose document cannot be parsed: any read of its entry throws. */
const row = (incidentId = 'INC-00000001') =>
  storedTimelineRow('not JSON', 7n, { incidentId, eventTime: '2026-11-22T10:00:00.000Z', visibility: 'internal', dataClass: undefined, view: VIEW });
const query = (filters: Partial<TimelineQuery> = {}): TimelineQuery => ({ incidentId: 'INC-00000001', order: 'desc', limit: 1000, ...filters });

describe('ShownRow', () => {
  it('answers an event the decision leaves unredacted with its stored view, never parsing its document', () => {
    const shown = new ShownRow(row(), { visible: true, redact: [] }, rules);
    expect(matchesAsShown(query({ type: { exact: 'im.incident.note' } }))(shown)).toBe(true);
    expect(shown.viewJson).toBe(VIEW);
    // The phone's quick timeline takes the view as an object, parsed from the stored text.
    expect(shown.view).toEqual({ id: 'evt-1', stored: 'as is' });
    expect(row()).toMatchObject({ position: 7n, incidentId: 'INC-00000001', visibility: 'internal', dataClass: [] });
  });

  it('parses the document of an event it redacts, or tests against a filter redaction can hide', () => {
    expect(() => new ShownRow(row(), { visible: true, redact: ['content'] }, rules).viewJson).toThrow(SyntaxError);
    expect(() => new ShownRow(row(), { visible: true, redact: ['content'] }, rules).view).toThrow(SyntaxError);
    expect(() => matchesAsShown(query({ actor: 'alice' }))(new ShownRow(row(), { visible: true, redact: [] }, rules))).toThrow(SyntaxError);
  });
});

describe('TimelineAuthorizer', () => {
  const caller = { sub: 'alice', roles: ['timeline.reader'], clearance: 'internal', dataAccess: [] };
  /** Every incident is withheld from the caller; the lookups asked for are kept. */
  const withheldAll = () => {
    const asked: string[][] = [];
    const incidents = { withheld: async (_: unknown, ids: string[]) => (asked.push(ids), new Set(ids)) } as unknown as IncidentQueryService;
    const pdp = { decide: async ({ resources }: { resources: unknown[] }) => resources.map(() => ({ visible: true, redact: [] })) };
    return { asked, authorizer: new TimelineAuthorizer(pdp as never, { redaction: rules } as never, incidents) };
  };

  it('looks up the incidents of the rows, and withholds the rows of an incident withheld from the caller', async () => {
    const { asked, authorizer } = withheldAll();
    expect(await authorizer.show(caller as never, 'timeline.read', [row(), row('INC-00000002')])).toEqual([]);
    expect(asked).toEqual([['INC-00000001', 'INC-00000002']]);
  });

  it('takes an incident the caller was already shown as shown, and still looks up the others', async () => {
    const { asked, authorizer } = withheldAll();
    const revealed = { id: 'INC-00000001' } as Incident;
    const shown = await authorizer.show(caller as never, 'timeline.read', [row(), row('INC-00000002')], revealed);
    expect(shown.map((s) => s.row.incidentId)).toEqual(['INC-00000001']);
    expect(asked).toEqual([['INC-00000002']]);
  });
});
