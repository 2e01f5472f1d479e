import { ANONYMOUS, type Principal } from '@im/access';
import { parseDeclareIncidentInput } from './declare-incident.input';
import { Severity } from './schema.types';

const alice: Principal = { ...ANONYMOUS, sub: 'alice', authenticated: true, clearance: 'internal' };
const CLEARED = ['public', 'internal'];
const input = { title: 'DB down', severity: Severity.SEV_2 };

describe('parseDeclareIncidentInput (declareIncident(input:))', () => {
  it('makes the caller commander, with the severity as the domain names it, and no attributes without a visibility', () => {
    expect(parseDeclareIncidentInput({ ...input, visibility: null } as never, alice, CLEARED)).toEqual({
      input: { ...input, visibility: null, severity: 'SEV-2', commander: 'alice' },
      attributes: undefined,
    });
  });

  it('records a visibility within the caller clearance as im.visibility', () => {
    expect(parseDeclareIncidentInput({ ...input, visibility: 'public' }, alice, CLEARED).attributes).toEqual({ 'im.visibility': 'public' });
  });

  it('refuses an unknown visibility as invalid input', () => {
    expect(() => parseDeclareIncidentInput({ ...input, visibility: 'secret' }, alice, CLEARED)).toThrow(
      expect.objectContaining({ kind: 'invalid', message: 'visibility must be one of public, internal, restricted, confidential' }),
    );
  });

  it('refuses a visibility above the caller clearance as forbidden', () => {
    expect(() => parseDeclareIncidentInput({ ...input, visibility: 'confidential' }, alice, CLEARED)).toThrow(
      expect.objectContaining({ kind: 'forbidden', message: 'visibility confidential ranks above your clearance (internal)' }),
    );
  });
});
