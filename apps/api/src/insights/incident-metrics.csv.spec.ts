import fc from 'fast-check';
import type { MetricsGroup } from '@im/incidents';
import { METRICS_CSV_HEADER, metricsCsv, metricsCsvDisposition } from './incident-metrics.csv';

const none = { p50: null, p90: null, mean: null };
const COUNTS = ['incidents', 'acknowledged', 'resolved', 'escalated', 'canceled', 'duplicates', 'alerts'];
const group = (key: string | null, more: Partial<MetricsGroup> = {}): MetricsGroup =>
  ({ key, ...Object.fromEntries(COUNTS.map((count) => [count, 0])), time_to_acknowledge: none, time_to_resolve: none, ...more }) as MetricsGroup;

/** A reader of RFC 4180 as a spreadsheet reads it, to check the writer against. */
function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let at = 0;
  while (at < text.length) {
    let value = '';
    if (text[at] === '"') {
      at++;
      for (;;) {
        const quote = text.indexOf('"', at);
        value += text.slice(at, quote);
        at = quote + 1;
        if (text[at] !== '"') break;
        value += '"';
        at++;
      }
    } else {
      const end = text.slice(at).search(/,|\r\n/);
      value = text.slice(at, at + end);
      at += end;
    }
    fields.push(value);
    if (text.startsWith('\r\n', at)) {
      records.push(fields);
      fields = [];
      at += 2;
    } else {
      expect(text[at]).toBe(',');
      at++;
    }
  }
  return records;
}

describe('metricsCsv', () => {
  it('writes the header row, then one row per group, every line ended by CRLF, nulls empty', () => {
    const csv = metricsCsv([
      group(null, { incidents: 3, acknowledged: 2, resolved: 1, escalated: 1, canceled: 1, duplicates: 1, alerts: 4, time_to_acknowledge: { p50: 60, p90: 120.5, mean: 90.25 } }),
      group('SEV-1'),
    ]);
    expect(csv).toBe(`${METRICS_CSV_HEADER}\r\n,3,2,1,1,1,1,4,60,120.5,90.25,,,\r\nSEV-1,0,0,0,0,0,0,0,,,,,,\r\n`);
    expect(METRICS_CSV_HEADER).toBe('key,incidents,acknowledged,resolved,escalated,canceled,duplicates,alerts,tta_p50,tta_p90,tta_mean,ttr_p50,ttr_p90,ttr_mean');
  });

  it('quotes a key holding a comma, a quote or a line break, doubling its quotes', () => {
    expect(metricsCsv([group('Checkout, "EU"')]).split('\r\n')[1]).toBe('"Checkout, ""EU""",0,0,0,0,0,0,0,,,,,,');
    expect(metricsCsv([group('a\nb')]).split('\r\n')[1]).toBe('"a\nb",0,0,0,0,0,0,0,,,,,,');
    expect(metricsCsv([group('a\rb')]).split('\r\n')[1]).toBe('"a\rb",0,0,0,0,0,0,0,,,,,,');
  });

  it('reads back as the keys and numbers written, whatever the keys hold', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.string({ unit: 'grapheme' }), { nil: null }), { maxLength: 5 }), fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }), (keys, p50) => {
        const groups = keys.map((key, i) => group(key, { incidents: i, time_to_resolve: { p50, p90: null, mean: null } }));
        const [header, ...rows] = readCsv(metricsCsv(groups));
        expect(header.join(',')).toBe(METRICS_CSV_HEADER);
        expect(rows.map((row) => [row[0], Number(row[1]), row[11]])).toEqual(keys.map((key, i) => [key ?? '', i, p50 === null ? '' : String(p50)]));
        for (const row of rows) expect(row).toHaveLength(14);
      }),
    );
  });
});

describe('metricsCsvDisposition', () => {
  it('names the file after the window, without colons', () => {
    expect(metricsCsvDisposition({ from: '2026-01-01T00:00:00.000Z', to: '2026-02-01T12:30:00.000Z' })).toBe(
      'attachment; filename="incident-metrics-20260101T000000Z-20260201T123000Z.csv"',
    );
  });
});
