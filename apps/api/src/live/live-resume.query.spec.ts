import { InvalidError } from '@im/incidents';
import { parseLiveResume } from './live-resume.query';

describe('parseLiveResume', () => {
  it('resumes from the Last-Event-ID header, else from ?after=, else from now', () => {
    expect(parseLiveResume({ after: 'from-query' }, 'from-header')).toBe('from-header');
    expect(parseLiveResume({ after: 'from-query' }, undefined)).toBe('from-query');
    expect(parseLiveResume({}, undefined)).toBeUndefined();
  });

  it('treats an empty id as "from now"', () => {
    expect(parseLiveResume({ after: '' }, undefined)).toBeUndefined();
    expect(parseLiveResume({ after: 'from-query' }, '')).toBeUndefined();
  });

  it.each([
    [{ after: ['a', 'b'] }, undefined, 'after must be given once: the id of the last event received'],
    [{}, ['a', 'b'], 'the Last-Event-ID header must be given once: the id of the last event received'],
  ])('refuses a repeated value (%j, %j) as invalid input', (query, header, message) => {
    expect(() => parseLiveResume(query, header)).toThrow(new InvalidError(message));
  });
});
