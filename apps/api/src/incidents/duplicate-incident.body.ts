import { InvalidError } from '@im/incidents';
import { jsonObjectBody } from '../http/json-body.parser';

/**
 * POST /api/v1/incidents/{id}/duplicate: `{of}`, the incident this one
 * duplicates, as text (any other field is ignored). Whether it exists and may
 * be duplicated is the domain's rule (404, 409).
 */
export function parseDuplicateIncidentBody(body: unknown): { of: string } {
  const { of } = jsonObjectBody(body);
  if (typeof of !== 'string' || of === '') throw new InvalidError('of is required and must be the id of the incident this one duplicates');
  return { of };
}
