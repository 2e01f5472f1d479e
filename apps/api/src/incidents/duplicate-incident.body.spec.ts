import { parseDuplicateIncidentBody } from './duplicate-incident.body';

const invalid = (message: string) => expect.objectContaining({ kind: 'invalid', message });

describe('parseDuplicateIncidentBody (POST /api/v1/incidents/{id}/duplicate)', () => {
  it('takes `of` as text and ignores any other field', () => {
    expect(parseDuplicateIncidentBody({ of: 'INC-0000abcd', reason: 'same outage' })).toEqual({ of: 'INC-0000abcd' });
  });

  it.each([[{}], [{ of: '' }], [{ of: 42 }], [{ of: null }], [{ of: ['INC-0000abcd'] }]])('refuses %j, naming of', (body) => {
    expect(() => parseDuplicateIncidentBody(body)).toThrow(invalid('of is required and must be the id of the incident this one duplicates'));
  });

  it('refuses a body that is not an object', () => {
    expect(() => parseDuplicateIncidentBody(['INC-0000abcd'])).toThrow(invalid('Request body must be a JSON object'));
    expect(() => parseDuplicateIncidentBody(undefined)).toThrow(invalid('Request body must be a JSON object'));
  });
});
