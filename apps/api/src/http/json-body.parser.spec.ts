import { firstInexactNumber, jsonObjectBody, refusedJsonError } from './json-body.parser';

describe('numbers a JSON body may carry', () => {
  it.each([
    ['{"data":{"n":12345678901234567890}}', 'data.n', '12345678901234567890'],
    ['{"data":{"n":1e400}}', 'data.n', '1e400'],
    ['{"data":{"n":-1E+400}}', 'data.n', '-1E+400'],
    ['{"data":{"tiny":1e-400}}', 'data.tiny', '1e-400'],
    ['{"a":[1,2,{"b":9007199254740993}]}', 'a[2].b', '9007199254740993'],
    ['[{"data":{"x":"1e400"}},{"data":{"pi":3.14159265358979323846}}]', '[1].data.pi', '3.14159265358979323846'],
    ['{"we\\"ird":{"k\\\\":123456789012345678}}', 'we"ird.k\\', '123456789012345678'],
    ['1e999', '', '1e999'],
    ['{"a": [ 1e400]}', 'a[0]', '1e400'],
    ['{"fingerprint":"0e8a1e2b","a":\n-2.5e999}', 'a', '-2.5e999'],
    // Sixteen digits or more with a decimal point among them: parsing drops the last ones.
    ['{"reading":123456789012.345678}', 'reading', '123456789012.345678'],
    ['{"id":"7d3e2f1a-3e4f-4c1d-9e2b-1f0e3d2c1b0a","cost":[1234567.8901234567891]}', 'cost[0]', '1234567.8901234567891'],
  ])('finds the number parsing would change in %s', (text, path, literal) => {
    expect(firstInexactNumber(text)).toEqual({ path, literal });
  });

  it.each([
    '{"n":9007199254740992,"m":-9007199254740991}',
    '{"n":0.1,"m":1.0,"e":1e2,"f":2.5E-3,"z":-0,"big":1e300,"small":5e-324}',
    '{"s":"12345678901234567890 and 1e400 inside a string"}',
    '{"n":0.30000000000000004,"t":1.7976931348623157e308}',
    '{"id":"0e8a","time":"2026-11-22T10:00:00Z","n":123456789012345}',
    '{"id":"7d3e2f1a-3e4f-4c1d-9e2b-1f0e3d2c1b0a","phone":"4915112345678901234","n":12345678.9012345,"m":-0.000000000000001}',
  ])('keeps %s, whose numbers survive parsing', (text) => {
    expect(firstInexactNumber(text)).toBeUndefined();
  });

  it('answers a near-megabyte number of zeros (scanned in one pass: a quadratic scan stalled the server for minutes)', () => {
    const literal = `1${'0'.repeat(500_000)}1`;
    expect(firstInexactNumber(`{"a":${literal}}`)).toEqual({ path: 'a', literal });
    expect(firstInexactNumber(`{"a":1.${'0'.repeat(500_000)}}`)).toBeUndefined();
  });
});

describe('a body that must be a JSON object', () => {
  it('is given back as it is', () => {
    const body = { a: 1 };
    expect(jsonObjectBody(body)).toBe(body);
  });

  it.each([undefined, null, [], [{ a: 1 }], 'text', 42, true])('refuses %j as invalid input', (body) => {
    expect(() => jsonObjectBody(body)).toThrow(expect.objectContaining({ kind: 'invalid', message: 'Request body must be a JSON object' }));
  });
});

describe('a JSON body the parser refused', () => {
  it('is named not valid JSON when it does not parse', () => {
    expect(refusedJsonError('{"title": "x", ')).toMatchObject({ kind: 'invalid', message: 'The body is not valid JSON' });
  });

  it.each(['{"a":1,"__proto__":{"admin":true}}', '{"data":{"constructor":{"prototype":{"x":1}}}}'])('names the prototype member in %s, which is valid JSON', (text) => {
    expect(refusedJsonError(text).message).toMatch(/^The body has a member named __proto__, or a constructor member holding prototype/);
  });
});
