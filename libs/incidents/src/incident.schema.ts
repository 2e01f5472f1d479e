import { DESCRIPTION_MAX_LENGTH, SEVERITIES, STATUSES, TITLE_MAX_LENGTH } from './incident';

/**
 * JSON Schemas of the incident as REST reads and writes it, built from the
 * same constants the decider checks, so the published contract cannot drift.
 */
export const INCIDENT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:incident-service:schema:incident',
  title: 'Incident',
  type: 'object',
  required: ['id', 'title', 'severity', 'status', 'created_at', 'updated_at', 'alerts_firing'],
  properties: {
    id: { type: 'string', pattern: '^INC-[0-9a-f]{8}$' },
    title: { type: 'string', minLength: 1, maxLength: TITLE_MAX_LENGTH },
    description: { type: 'string', maxLength: DESCRIPTION_MAX_LENGTH },
    severity: { enum: [...SEVERITIES] },
    status: { enum: [...STATUSES] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    alerts_firing: { type: 'integer', minimum: 0, description: 'How many of its alerts (distinct fingerprints) are firing now; an alert resolving does not resolve the incident' },
    duplicate_of: { type: 'string', pattern: '^INC-[0-9a-f]{8}$', description: 'Only on a duplicate: the incident it duplicates, where its alerts go' },
    service: {
      description: 'The service the incident belongs to, fixed when it opened; null for none (or one deleted since). Answered by the incident routes',
      type: ['object', 'null'],
      required: ['id', 'name'],
      properties: { id: { type: 'string' }, name: { type: 'string' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

export const CREATE_INCIDENT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:incident-service:schema:create-incident',
  title: 'CreateIncident',
  type: 'object',
  required: ['title', 'severity'],
  properties: {
    title: { type: 'string', minLength: 1, maxLength: TITLE_MAX_LENGTH, description: 'Not blank; stored trimmed' },
    severity: { enum: [...SEVERITIES] },
    description: { type: 'string', maxLength: DESCRIPTION_MAX_LENGTH },
    visibility: {
      type: 'string',
      description:
        "public, internal, restricted or confidential: recorded as im.visibility, and the incident is withheld from callers whose clearance ranks below it. At most the caller's own clearance (403 above it). Absent or null: seen by everyone who may use the incident endpoints",
    },
  },
} as const;
