import { ANONYMOUS, type Principal } from '@im/access';
import { parseCreateIncidentBody } from './create-incident.body';

const invalid = (message: string) => expect.objectContaining({ kind: 'invalid', message });
const alice: Principal = { ...ANONYMOUS, sub: 'alice', authenticated: true, clearance: 'internal' };
const CLEARED = ['public', 'internal'];
const parse = (body: unknown) => parseCreateIncidentBody(body, alice, CLEARED);

describe('parseCreateIncidentBody (POST /api/v1/incidents)', () => {
  it('takes title, severity and description, and ignores any other field', () => {
    expect(parse({ title: 'DB down', severity: 'SEV-1', description: 'primary', services: ['db'], commander: 'mallory' })).toEqual({
      input: { title: 'DB down', severity: 'SEV-1', description: 'primary' },
      attributes: undefined,
    });
  });

  it('leaves the values to the domain: any text passes here', () => {
    expect(parse({ title: '', severity: 'SEV-9', description: null }).input).toEqual({ title: '', severity: 'SEV-9', description: null });
  });

  it('records a visibility within the caller clearance as im.visibility, as GraphQL declareIncident does', () => {
    expect(parse({ title: 'DB down', severity: 'SEV-1', visibility: 'internal' }).attributes).toEqual({ 'im.visibility': 'internal' });
    expect(parse({ title: 'DB down', severity: 'SEV-1', visibility: null }).attributes).toBeUndefined();
  });

  it('refuses a visibility above the caller clearance as forbidden', () => {
    expect(() => parse({ title: 'DB down', severity: 'SEV-1', visibility: 'confidential' })).toThrow(
      expect.objectContaining({ kind: 'forbidden', message: 'visibility confidential ranks above your clearance (internal)' }),
    );
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
    [{ title: 'x', severity: 'SEV-1', visibility: 'secret' }, 'visibility must be one of public, internal, restricted, confidential'],
    [{ title: 'x', severity: 'SEV-1', visibility: 3 }, 'visibility must be one of public, internal, restricted, confidential'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parse(body)).toThrow(invalid(message));
  });
});
