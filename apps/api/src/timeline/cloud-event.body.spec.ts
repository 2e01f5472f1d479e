import { parseCloudEventBody } from './cloud-event.body';

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
