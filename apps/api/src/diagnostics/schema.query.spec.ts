import { parseSchemaQuery } from './schema.query';

const invalid = (message: string) => expect.objectContaining({ kind: 'invalid', message });

describe('parseSchemaQuery (GET /api/v1/schema)', () => {
  it.each([
    [undefined, undefined, { type: 'incident', format: 'openapi' }],
    ['event', 'jsonschema', { type: 'event', format: 'jsonschema' }],
    ['config', 'openapi', { type: 'config', format: 'openapi' }],
  ])('reads type=%j format=%j', (type, format, expected) => {
    expect(parseSchemaQuery(type, format)).toEqual(expected);
  });

  it.each([
    ['alert', 'openapi', 'type must be one of incident, event, config'],
    ['toString', 'openapi', 'type must be one of incident, event, config'],
    [['incident', 'event'], 'openapi', 'type must be one of incident, event, config'],
    ['alert', 'yaml', 'type must be one of incident, event, config'],
    ['incident', 'yaml', 'format must be openapi or jsonschema'],
    ['incident', ['openapi'], 'format must be openapi or jsonschema'],
  ])('refuses type=%j format=%j: %s', (type, format, message) => {
    expect(() => parseSchemaQuery(type, format)).toThrow(invalid(message));
  });
});
