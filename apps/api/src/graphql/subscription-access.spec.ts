import { getOperationAST, parse } from 'graphql';
import type { Principal } from '@im/access';
import { missingRole, rootFields } from './subscription-access';

const caller = (roles: string[]): Principal => ({ sub: 'ann', roles, clearance: 'internal', dataAccess: [], authenticated: true });
const fieldsOf = (query: string) => {
  const document = parse(query);
  return rootFields(document, getOperationAST(document)!);
};

describe('rootFields', () => {
  it('finds the field through fragment spreads and inline fragments, skipped or not', () => {
    expect(fieldsOf('subscription { timelineEvent(incidentId: "x") { id } }')).toEqual(['timelineEvent']);
    expect(fieldsOf('subscription { ...F } fragment F on Subscription { timelineEvent(incidentId: "x") { id } }')).toEqual(['timelineEvent']);
    expect(fieldsOf('subscription { ... on Subscription { ... @skip(if: true) { timelineEvent(incidentId: "x") { id } } } }')).toEqual(['timelineEvent']);
  });
});

describe('missingRole', () => {
  it('asks timeline.reader for timelineEvent and any role for the other two', () => {
    expect(missingRole(caller(['timeline.writer']), 'timelineEvent')).toBe('timelineEvent needs the timeline.reader role');
    expect(missingRole(caller(['timeline.reader']), 'timelineEvent')).toBeUndefined();
    expect(missingRole(caller([]), 'incidentUpdated')).toBe('incidentUpdated needs a token with a role');
    expect(missingRole(caller(['timeline.writer']), 'myIncidentsChanged')).toBeUndefined();
    expect(missingRole(caller(['timeline.reader']), 'somethingElse')).toBe('somethingElse is not a subscription');
  });
});
