import fc from 'fast-check';
import { committedForm, committedFormText } from './committed-form';
import { canonicalizeReference, jcs } from './jcs';

describe('jcs', () => {
  it('gives canonicalize’s text for every JSON value', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    const keyed = fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String)), fc.jsonValue({ maxDepth: 2 }));
    fc.assert(fc.property(keyed, (value) => expect(jcs(value)).toBe(canonicalizeReference(value))), { numRuns: 1000 });
    fc.assert(fc.property(json, (value) => expect(jcs(value)).toBe(canonicalizeReference(value))), { numRuns: 2000 });
    fc.assert(fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.oneof(fc.string({ unit: 'binary' }), fc.double({ noNaN: true, noDefaultInfinity: true }))), (value) => {
      expect(jcs(value)).toBe(canonicalizeReference(value));
    }), { numRuns: 1000 });
  });

  it('follows RFC 8785: members by UTF-16 code unit, numbers in ECMAScript form', () => {
    // RFC 8785 section 3.2.3's sorting example, and numbers from its appendix B.
    expect(jcs({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' })).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
    expect(jcs([1e21, 1e-7, 0.000001, -0, 333333333.33333329, 4.5, 2e-3, 1e23])).toBe('[1e+21,1e-7,0.000001,0,333333333.3333333,4.5,0.002,1e+23]');
  });

  it('refuses what has no JSON form, as canonicalize does', () => {
    expect(() => jcs('\ud800')).toThrow('Lone surrogate is not allowed');
    expect(() => jcs({ a: Number.NaN })).toThrow('NaN is not allowed');
    expect(() => jcs(undefined)).toThrow('no JSON form');
  });
});

describe('committedFormText', () => {
  it('is the canonical text of committedForm for any event and any pointers', () => {
    const pointer = fc.array(fc.oneof(fc.constantFrom('data', 'im.ledger', 'im.redacted', 'im.actor', 'x', '__proto__', '1', 'a~b', 'a/b', ''), fc.string()), { minLength: 1, maxLength: 3 })
      .map((names) => `/${names.map((n) => n.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`);
    const member = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.dictionary(fc.constantFrom('x', 'content', '1', '__proto__', 'a/b'), fc.jsonValue({ maxDepth: 1 })));
    const event = fc.dictionary(fc.constantFrom('id', 'data', 'im.ledger', 'im.redacted', 'im.actor', 'x', '1', '__proto__'), member);
    const commitments = fc.dictionary(pointer, fc.string());
    fc.assert(fc.property(event, commitments, (e, c) => {
      const parsed = JSON.parse(JSON.stringify(e)) as Record<string, unknown>;
      expect(committedFormText(parsed, c)).toBe(canonicalizeReference(committedForm(parsed, c)));
    }), { numRuns: 3000 });
  });
});
