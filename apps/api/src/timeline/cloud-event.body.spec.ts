import { parseAppendRequest, parseCloudEventBody } from './cloud-event.body';

const event = {
  specversion: '1.0',
  id: '6f1c5a52-1c1e-4f3e-9a51-3c7f2b1f0a11',
  source: 'im://monitoring',
  type: 'im.alert.trigger',
  time: '2026-11-22T10:00:00Z',
  data: { title: 'CPU high' },
};

describe('parseCloudEventBody (POST /api/v1/timeline/events)', () => {
  it('gives back a valid CloudEvent', () => {
    expect(parseCloudEventBody(event)).toEqual(event);
  });

  it.each([
    [[event], /^Invalid CloudEvent: .*JSON object/],
    [{ ...event, specversion: '0.3' }, /^Invalid CloudEvent: .*specversion/],
    [{ ...event, time: 'yesterday' }, /^Invalid CloudEvent: time must be /],
  ])('refuses %j as invalid input (400)', (body, message) => {
    expect(() => parseCloudEventBody(body)).toThrow(expect.objectContaining({ kind: 'invalid', message: expect.stringMatching(message) }));
  });

  it('refuses an event over the size limit as too large (413)', () => {
    const big = { ...event, data: { content: 'x'.repeat(64 * 1024) } };
    expect(() => parseCloudEventBody(big)).toThrow(expect.objectContaining({ kind: 'too_large', message: expect.stringMatching(/^Invalid CloudEvent: /) }));
  });
});

describe('parseAppendRequest: the content mode by Content-Type', () => {
  const binary = { 'ce-specversion': '1.0', 'ce-id': event.id, 'ce-source': event.source, 'ce-type': event.type, 'ce-time': event.time };

  it('reads structured, binary and batched requests', () => {
    expect(parseAppendRequest({ 'content-type': 'application/cloudevents+json' }, event)).toEqual({ mode: 'single', event });
    expect(parseAppendRequest({ ...binary, 'content-type': 'application/json' }, event.data)).toEqual({
      mode: 'single',
      event: { ...event, datacontenttype: 'application/json' },
    });
    expect(parseAppendRequest({ 'content-type': 'application/cloudevents-batch+json' }, [event, { ...event, id: '' }])).toEqual({
      mode: 'batch',
      batch: [{ event }, { refused: expect.objectContaining({ kind: 'invalid', message: 'Invalid CloudEvent: id must NOT have fewer than 1 characters' }) }],
    });
  });

  it.each([
    [{ 'content-type': 'application/cloudevents-batch+json' }, event, 'invalid', /must be a JSON array/],
    [{ 'content-type': 'application/cloudevents-batch+json' }, Array.from({ length: 1001 }, () => event), 'too_large', /at most 1000 events, not 1001/],
    [{ ...binary, 'ce-datacontenttype': 'x/y', 'content-type': 'application/json' }, {}, 'invalid', /^Invalid CloudEvent: ce-datacontenttype/],
    [{ ...binary, 'ce-imvisiblity': 'confidential', 'content-type': 'application/json' }, {}, 'invalid', /did you mean imvisibility/],
  ])('refuses %j', (headers, body, kind, message) => {
    expect(() => parseAppendRequest(headers, body)).toThrow(expect.objectContaining({ kind, message: expect.stringMatching(message) }));
  });
});
