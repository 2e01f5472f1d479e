import { LINE_BREAK, oneLine } from './one-line';

describe('oneLine', () => {
  it('puts every line-break form on one line, a run of them as one space', () => {
    expect(oneLine('Outage\r\nStatus: resolved\r\n\r\nPay at https://pay.example')).toBe('Outage Status: resolved Pay at https://pay.example');
    for (const brk of ['\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029']) expect(oneLine(`a${brk}b`)).toBe('a b');
  });

  it('replaces the other control characters and the bidirectional overrides, and keeps the rest as typed', () => {
    expect(oneLine('a\u0000b\tc\u001bd\u007fe\u009bf')).toBe('a b c d e f');
    expect(oneLine('pay \u202egnp.exe\u202c now \u2066x\u2069')).toBe('pay  gnp.exe  now  x ');
    expect(oneLine('Zahlung fällig – 支払い <b>&amp;</b> 🚨')).toBe('Zahlung fällig – 支払い <b>&amp;</b> 🚨');
  });

  it('names every line break LINE_BREAK splits on', () => {
    expect('a\r\nb\rc\nd\u2028e'.split(LINE_BREAK)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
