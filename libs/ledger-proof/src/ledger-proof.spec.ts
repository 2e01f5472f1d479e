import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  asBundle,
  BUNDLE_FORMAT,
  chainAppends,
  chainsOf,
  chainView,
  commitment,
  describeVerdict,
  jcs,
  type LedgerBundle,
  type LedgerEvent,
  linkHash,
  publicJwkOf,
  redactableMembers,
  signHead,
  type StoredLedgerEvent,
  thumbprint,
  verifyBundle,
} from './index';

const note = (incident: string, i: number, extra: Record<string, unknown> = {}): LedgerEvent => ({
  specversion: '1.0',
  id: `${incident}-note-${i}`,
  source: 'im://test',
  type: 'im.incident.note',
  time: `2026-11-23T10:00:0${i % 10}Z`,
  subject: `incident/${incident}`,
  'im.actor': `actor-${i}`,
  'im.correlation_key': `corr-${i}`,
  data: { content: `secret-content-${i}`, host: `host-${i}`, severity: 'SEV-2', service: 'checkout' },
  ...extra,
});

function stored(incident: string, events: LedgerEvent[]): StoredLedgerEvent[] {
  const { records } = chainAppends({}, events, () => randomBytes(16));
  return events.map((event, i) => ({ event, ledger: records[i] }));
}

/** What the shipped policy shows a reader without pii access: data, actor and the other redactable attributes replaced or left out. */
const redacted = (event: LedgerEvent): LedgerEvent => {
  const { 'im.correlation_key': _key, x_email: _email, ...kept } = event;
  const data = Object.fromEntries(Object.entries(event.data as object).map(([k, v]) => [k, ['severity', 'service'].includes(k) ? v : '[REDACTED]']));
  return { ...kept, 'im.actor': '[REDACTED]', data, 'im.redacted': ['content', ...Object.keys(data).filter((k) => data[k] === '[REDACTED]').map((k) => `data.${k}`), 'actor'] };
};

const { privateKey } = generateKeyPairSync('ed25519');
const jwk = publicJwkOf(privateKey);

function bundleOf(incident: string, stream: StoredLedgerEvent[], chain: 'public' | 'internal' | 'confidential', show = (s: StoredLedgerEvent): LedgerEvent | undefined => s.event): LedgerBundle {
  const visible = (s: StoredLedgerEvent) => (chainsOf(s.event).includes(chain) ? show(s) : undefined);
  const events = chainView(stream, chain, visible).map((v) => v.event);
  const last = stream[stream.length - 1].ledger!.heads[chain];
  const head = signHead({ incident_id: incident, chain, n: last?.n ?? 0, hash: last?.hash ?? null, signed_at: '2026-11-23T12:00:00.000Z', kid: jwk.kid }, privateKey);
  return { format: BUNDLE_FORMAT, incident_id: incident, events, head, keys: [jwk] };
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('the ledger proofs', () => {
  it('hashes a link as the SHA-256 of the JCS of {chain, n, prev, event}, assembled around the event JCS', () => {
    const event = { b: [1e21, 0.1, 'é'], a: { z: null, y: true } };
    const expected = require('node:crypto').createHash('sha256').update(jcs({ chain: 'internal', n: 2, prev: 'sha256:00', event })).digest('hex');
    expect(linkHash('internal', 2, 'sha256:00', jcs(event))).toBe(`sha256:${expected}`);
  });

  it('names a key by its RFC 7638 thumbprint (RFC 8037, appendix A.3)', () => {
    expect(thumbprint({ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' })).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
  });

  it('commits im.actor, every data member but severity and service, data_base64, and the attributes a redacted event leaves out', () => {
    expect(redactableMembers({ ...note('A', 1), 'im.origin_id': 'o', x_email: 'e', 'data/x': 1, 'im.redacted': [] })).toEqual([
      '/im.actor',
      '/im.correlation_key',
      '/data/content',
      '/data/host',
      '/im.origin_id',
      '/x_email',
      '/data~1x',
    ]);
    expect(redactableMembers({ specversion: '1.0', id: '1', source: 's', type: 't', data_base64: 'AAE=' })).toEqual(['/data_base64']);
    expect(redactableMembers({ specversion: '1.0', id: '1', source: 's', type: 't', data: 'text' })).toEqual(['/data']);
    const salt = Buffer.alloc(16, 7);
    expect(commitment(salt, 'x')).toBe(`sha256:${require('node:crypto').createHash('sha256').update(Buffer.concat([salt, Buffer.from('"x"')])).digest('hex')}`);
  });

  it('puts an event in every chain at or above its visibility, numbering each chain from 1', () => {
    const events = [note('A', 1, { 'im.visibility': 'public' }), note('A', 2), note('A', 3, { 'im.visibility': 'confidential' })];
    const { records, heads } = chainAppends({}, events, () => randomBytes(16));
    expect(Object.keys(records[0].heads)).toEqual(['public', 'internal', 'restricted', 'confidential']);
    expect(heads.public?.n).toBe(1);
    expect(heads.internal?.n).toBe(2);
    expect(heads.confidential?.n).toBe(3);
    expect(records[2].heads.internal).toEqual(records[1].heads.internal);
    // Appending in two steps from the heads gives the same links as in one.
    const salts = events.map((_, i) => records[i].salts);
    let s = 0;
    const draws = salts.flatMap((m) => Object.values(m)).map((b) => Buffer.from(b, 'base64url'));
    const first = chainAppends({}, events.slice(0, 2), () => draws[s++]);
    expect(chainAppends(first.heads, events.slice(2), () => draws[s++]).heads).toEqual(heads);
  });

  describe('verifying a bundle', () => {
    const stream = stored('INC-a', [note('INC-a', 1, { 'im.visibility': 'public' }), note('INC-a', 2), note('INC-a', 3, { 'im.visibility': 'confidential', x_email: 'mail-3' }), note('INC-a', 4), note('INC-a', 5)]);
    const other = stored('INC-b', [note('INC-b', 1), note('INC-b', 2)]);

    it('finds an export intact, for each chain', () => {
      expect(describeVerdict(verifyBundle(bundleOf('INC-a', stream, 'internal')))).toBe(`intact: 4 events, chain internal, head ${stream[4].ledger!.heads.internal!.hash}, key ${jwk.kid}`);
      expect(verifyBundle(bundleOf('INC-a', stream, 'public'))).toMatchObject({ intact: true, n: 1 });
      expect(verifyBundle(bundleOf('INC-a', stream, 'confidential'))).toMatchObject({ intact: true, n: 5 });
    });

    it('finds a redacted export intact, showing no salt of a redacted member and none of its values', () => {
      const bundle = bundleOf('INC-a', stream, 'confidential', (s) => (s.event.id === 'INC-a-note-3' ? redacted(s.event) : s.event));
      expect(describeVerdict(verifyBundle(bundle))).toMatch(/^intact: 5 events/);
      const text = JSON.stringify(bundle);
      for (const secret of ['secret-content-3', 'host-3', 'actor-3', 'corr-3', 'mail-3']) expect(text).not.toContain(secret);
      const third = stream[2].ledger!.salts;
      for (const pointer of ['/data/content', '/data/host', '/im.actor', '/im.correlation_key', '/x_email']) expect(text).not.toContain(third[pointer]);
    });

    it('names the first event that breaks: dropped, reordered, swapped in from another incident', () => {
      const bundle = bundleOf('INC-a', stream, 'confidential');
      const dropped = copy(bundle);
      dropped.events.splice(2, 1);
      expect(describeVerdict(verifyBundle(dropped))).toBe('broken at event 3 (INC-a-note-4): it says it is event 4 of its chain, expected 3');
      const reordered = copy(bundle);
      [reordered.events[1], reordered.events[3]] = [reordered.events[3], reordered.events[1]];
      expect(describeVerdict(verifyBundle(reordered))).toBe('broken at event 2 (INC-a-note-4): it says it is event 4 of its chain, expected 2');
      const swapped = copy(bundle);
      swapped.events[0] = bundleOf('INC-b', other, 'confidential').events[0];
      expect(describeVerdict(verifyBundle(swapped))).toBe('broken at event 1 (INC-b-note-1): its subject incident/INC-b is not incident/INC-a');
      const truncated = copy(bundle);
      truncated.events.pop();
      expect(describeVerdict(verifyBundle(truncated))).toMatch(/^broken at head: the head says 5 events ending in sha256:[0-9a-f]{64}, the bundle has 4 ending in sha256:/);
    });

    it('fails at the right place for one changed character anywhere in the bundle', () => {
      const bundle = bundleOf('INC-a', stream, 'confidential', (s) => (s.event.id === 'INC-a-note-3' ? redacted(s.event) : s.event));
      const parts = { start: `{"format":${JSON.stringify(bundle.format)},"incident_id":${JSON.stringify(bundle.incident_id)},"events":[`, events: bundle.events.map((e) => JSON.stringify(e)) };
      const text = `${parts.start}${parts.events.join(',')}],"head":${JSON.stringify(bundle.head)},"keys":${JSON.stringify(bundle.keys)}}`;
      const spans = parts.events.map((_, i) => {
        const from = parts.start.length + parts.events.slice(0, i).reduce((sum, e) => sum + e.length + 1, 0);
        return [from, from + parts.events[i].length];
      });
      const flip = (c: string) => (c === 'z' ? 'y' : c === 'Z' ? 'Y' : c === '9' ? '8' : String.fromCharCode(c.charCodeAt(0) + 1));
      let checked = 0;
      for (let at = 0; at < text.length; at++) {
        if (!/[A-Za-z0-9]/.test(text[at])) continue;
        const changed = `${text.slice(0, at)}${flip(text[at])}${text.slice(at + 1)}`;
        let verdict;
        try {
          verdict = verifyBundle(asBundle(JSON.parse(changed)));
        } catch {
          continue; // not JSON or not a bundle any more: the CLI's exit 2
        }
        checked++;
        const event = spans.findIndex(([from, to]) => at >= from && at < to);
        const where = verdict.intact ? 'intact' : verdict.brokenAt === 'head' ? 'head' : verdict.brokenAt.n;
        const expected = event >= 0 ? event + 1 : at < parts.start.length ? 1 : 'head';
        if (where !== expected) throw new Error(`changing ${JSON.stringify(text.slice(at - 20, at))}[${text[at]}]${JSON.stringify(text.slice(at + 1, at + 20))} gives ${describeVerdict(verdict)}`);
      }
      expect(checked).toBeGreaterThan(2000);
    });

    it('commits a member named __proto__ like any other', () => {
      const odd = JSON.parse('{"specversion":"1.0","id":"odd","source":"s","type":"t","subject":"incident/INC-a","data":{"__proto__":"secret"}}') as LedgerEvent;
      const bundle = bundleOf('INC-a', stored('INC-a', [odd]), 'internal');
      expect(bundle.events[0]['im.ledger']).toMatchObject({ salts: { '/data/__proto__': expect.any(String) } });
      expect(verifyBundle(bundle)).toMatchObject({ intact: true });
      const changed = JSON.parse(JSON.stringify(bundle).replace('"__proto__":"secret"', '"__proto__":"secreT"')) as LedgerBundle;
      expect(describeVerdict(verifyBundle(changed))).toBe('broken at event 1 (odd): its content does not match its hash');
    });

    it('checks the signature with a pinned key, not the bundle’s own', () => {
      const bundle = bundleOf('INC-a', stream, 'internal');
      const stranger = publicJwkOf(generateKeyPairSync('ed25519').privateKey);
      expect(describeVerdict(verifyBundle(bundle, [stranger]))).toBe(`broken at head: no key ${jwk.kid} to check its signature with`);
      const forged = copy(bundle);
      forged.keys = [{ ...stranger, kid: jwk.kid }];
      expect(describeVerdict(verifyBundle(forged))).toBe(`broken at head: key ${jwk.kid} is not the Ed25519 signing key its id names`);
      expect(verifyBundle(bundle, [jwk])).toMatchObject({ intact: true });
    });
  });
});
