import { parseTimelineExportFormat } from './timeline-export.query';

describe('parseTimelineExportFormat (GET /api/v1/incidents/:id/timeline/export)', () => {
  it.each([
    [undefined, 'json'],
    ['json', 'json'],
    ['markdown', 'markdown'],
  ])('reads %j as %s', (format, expected) => {
    expect(parseTimelineExportFormat(format)).toBe(expected);
  });

  it.each(['md', '', ['json', 'markdown']])('refuses %j', (format) => {
    expect(() => parseTimelineExportFormat(format)).toThrow(expect.objectContaining({ kind: 'invalid', message: 'format must be json or markdown or ledger' }));
  });
});
