import { parseCreateIncidentBody } from './create-incident.body';

const invalid = (message: string) => expect.objectContaining({ kind: 'invalid', message });

describe('parseCreateIncidentBody (POST /api/v1/incidents)', () => {
  it('takes title, severity and description, and ignores any other field', () => {
    expect(parseCreateIncidentBody({ title: 'DB down', severity: 'SEV-1', description: 'primary', services: ['db'], commander: 'mallory' })).toEqual({
      title: 'DB down',
      severity: 'SEV-1',
      description: 'primary',
    });
  });

  it('leaves the values to the domain: any text passes here', () => {
    expect(parseCreateIncidentBody({ title: '', severity: 'SEV-9', description: null })).toEqual({ title: '', severity: 'SEV-9', description: null });
  });

  it.each([
    [undefined, 'Request body must be a JSON object'],
    [null, 'Request body must be a JSON object'],
    [[{ title: 'x', severity: 'SEV-1' }], 'Request body must be a JSON object'],
    ['x', 'Request body must be a JSON object'],
    [{ severity: 'SEV-1' }, 'title is required and must be a non-empty string'],
    [{ title: 'x', severity: 1 }, 'severity is required and must be one of SEV-1, SEV-2, SEV-3, SEV-4'],
    [{ title: 'x', severity: 'SEV-1', description: 5 }, 'description must be a string'],
    [{}, 'title is required and must be a non-empty string; severity is required and must be one of SEV-1, SEV-2, SEV-3, SEV-4'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseCreateIncidentBody(body)).toThrow(invalid(message));
  });
});
