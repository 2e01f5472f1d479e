import { binaryModeEvent, contentModeOf, decodeHeaderValue, isJsonMediaType } from './http-binding';

describe('contentModeOf: the binding\'s table', () => {
  it.each([
    ['application/cloudevents+json', {}, 'structured'],
    ['application/cloudevents+json; charset=UTF-8', { 'ce-specversion': '1.0' }, 'structured'],
    ['application/cloudevents-batch+json', {}, 'batched'],
    ['Application/CloudEvents-Batch+JSON; charset=utf-8', { 'ce-specversion': '1.0' }, 'batched'],
    ['application/json', {}, 'structured'],
    ['application/json', { 'ce-specversion': '1.0' }, 'binary'],
    ['text/plain', { 'ce-specversion': '1.0' }, 'binary'],
    ['application/cloudevents+xml', { 'ce-specversion': '1.0' }, 'binary'],
    [undefined, { 'ce-specversion': '1.0' }, 'binary'],
    [undefined, {}, 'structured'],
    ['text/plain', {}, undefined],
    ['application/cloudevents+xml', {}, undefined],
  ])('%s with %j is %s', (contentType, headers, mode) => {
    expect(contentModeOf(contentType, headers)).toBe(mode);
  });

  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['application/vnd.alert+json', true],
    ['text/json', false],
    ['application/jsonx', false],
    ['text/plain', false],
  ])('isJsonMediaType(%s) is %s', (contentType, json) => {
    expect(isJsonMediaType(contentType)).toBe(json);
  });
});

describe('decodeHeaderValue (binding 1.0.2, 3.1.3.2)', () => {
  it.each([
    ['plain', 'plain'],
    ['Zo%C3%AB%20%F0%9F%8C%8E', 'Zoë 🌎'],
    ['%c3%ab', 'ë'],
    ['%61bc', 'abc'],
    ['100% sure', '100% sure'],
    ['50%', '50%'],
    ['%zz%4', '%zz%4'],
    ['%2541', '%41'],
    ['"quoted \\"value\\""', 'quoted "value"'],
    ['"a%20b"', 'a b'],
    ['"', '"'],
    [Buffer.from('Zoë', 'utf8').toString('latin1'), 'Zoë'],
  ])('%j reads as %j', (value, decoded) => {
    expect(decodeHeaderValue(value)).toBe(decoded);
  });

  it.each(['%C0%A0', '%FF', '%C3', Buffer.from('Zoë', 'latin1').toString('latin1')])('%j is not UTF-8 once decoded', (value) => {
    expect(decodeHeaderValue(value)).toBeUndefined();
  });
});

describe('binaryModeEvent', () => {
  const headers = { 'ce-specversion': '1.0', 'ce-id': 'e-1', 'ce-source': 'im://x', 'ce-type': 'im.alert.trigger', 'ce-time': '2026-11-22T10:00:00Z', host: 'ignored' };

  it('takes attributes from ce-* headers, datacontenttype from Content-Type and data from a parsed JSON body', () => {
    expect(binaryModeEvent({ ...headers, 'content-type': 'application/json; charset=utf-8', 'ce-imactor': 'a%20b' }, { title: 'x' })).toEqual({
      ok: true,
      event: { specversion: '1.0', id: 'e-1', source: 'im://x', type: 'im.alert.trigger', time: '2026-11-22T10:00:00Z', imactor: 'a b', datacontenttype: 'application/json; charset=utf-8', data: { title: 'x' } },
    });
  });

  it('keeps a body of another media type as data_base64, and an empty one as no data', () => {
    expect(binaryModeEvent({ ...headers, 'content-type': 'text/plain' }, Buffer.from('hi'))).toMatchObject({ ok: true, event: { datacontenttype: 'text/plain', data_base64: 'aGk=' } });
    const empty = binaryModeEvent({ ...headers, 'content-type': 'text/plain' }, Buffer.alloc(0));
    expect(empty.ok && ['data', 'data_base64'].filter((name) => name in empty.event)).toEqual([]);
  });

  it('refuses ce-datacontenttype and a header that is not UTF-8', () => {
    expect(binaryModeEvent({ ...headers, 'ce-datacontenttype': 'text/plain', 'ce-imactor': '%C0%A0' }, undefined)).toEqual({
      ok: false,
      errors: ['ce-datacontenttype must not be sent in binary mode: the Content-Type header is the datacontenttype', 'ce-imactor is not UTF-8 once percent-decoded'],
    });
  });

  it('keeps a ce-__proto__ header a plain attribute: the event keeps its prototype', () => {
    const binary = binaryModeEvent({ ...headers, 'content-type': 'application/json', 'ce-__proto__': 'polluted' }, { title: 'x' });
    if (!binary.ok) throw new Error('expected an event');
    expect(Object.getPrototypeOf(binary.event)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(binary.event, '__proto__')).toMatchObject({ value: 'polluted', enumerable: true });
    expect(JSON.parse(JSON.stringify(binary.event))).toMatchObject({ type: 'im.alert.trigger', data: { title: 'x' } });
  });

  it('refuses ce-data and ce-data_base64: the body is the data', () => {
    expect(binaryModeEvent({ ...headers, 'content-type': 'text/plain', 'ce-data': 'forged' }, Buffer.alloc(0))).toEqual({
      ok: false,
      errors: ["ce-data must not be sent in binary mode: the body is the event's data"],
    });
    expect(binaryModeEvent({ ...headers, 'content-type': 'application/json', 'ce-data_base64': 'aGk=' }, { title: 'x' })).toMatchObject({ ok: false });
  });
});
