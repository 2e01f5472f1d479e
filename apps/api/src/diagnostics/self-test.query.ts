import { InvalidError } from '@im/incidents';

/** GET /api/v1/validate?self_test=: whether to add the write-project-read round trip (off unless "true"). */
export function parseSelfTest(selfTest: unknown): boolean {
  if (selfTest !== undefined && selfTest !== 'true' && selfTest !== 'false') throw new InvalidError('self_test must be true or false');
  return selfTest === 'true';
}
