import { join } from 'node:path';
import { loadTimelinePolicy } from '@im/policy';
import { storedTimelineRow, type TimelineQuery } from '@im/read-models';
import { ShownRow } from './timeline-authorizer';
import { matchesAsShown } from './timeline-filter';

const rules = loadTimelinePolicy(join(__dirname, '../../../../policy/timeline-policy.json')).redaction;
const VIEW = '{"id":"evt-1","stored":"as is"}';
/** A row whose document cannot be parsed: any read of its entry throws. */
const row = () =>
  storedTimelineRow('not JSON', 7n, { incidentId: 'INC-00000001', eventTime: '2026-11-22T10:00:00.000Z', visibility: 'internal', dataClass: undefined, view: VIEW });
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
