import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { asBundle, BUNDLE_FORMAT, chainAppends, chainView, describeVerdict, type LedgerBundle, type LedgerEvent, publicJwkOf, signHead, verifyBundle } from '@im/ledger-proof';
import { startRunCheckers, stopRunCheckers, verifyBundleBytes } from './bundle-verification';

const { privateKey } = generateKeyPairSync('ed25519');
const jwk = publicJwkOf(privateKey);

/** A bundle of `count` notes, every third shown with its actor and content redacted. */
function bundleOf(count: number): string {
  const events: LedgerEvent[] = Array.from({ length: count }, (_, i) => ({
    specversion: '1.0',
    id: `n${i + 1}`,
    source: 'im://t',
    type: 'im.incident.note',
    time: '2026-11-23T10:00:00Z',
    subject: 'incident/INC-1',
    'im.actor': `actor-${i}`,
    data: { content: `note ${i}`, service: 'db' },
  }));
  const { records, heads } = chainAppends({}, events, () => randomBytes(16));
  const show = ({ event }: { event: LedgerEvent }, i: number): LedgerEvent =>
    i % 3 === 2 ? { ...event, 'im.actor': '[REDACTED]', data: { content: '[REDACTED]', service: 'db' }, 'im.redacted': ['content', 'actor'] } : event;
  const stored = events.map((event, i) => ({ event, ledger: records[i], i }));
  const bundle: LedgerBundle = {
    format: BUNDLE_FORMAT,
    incident_id: 'INC-1',
    events: chainView(stored, 'internal', (s) => show(s, s.i)).map((v) => v.event),
    head: signHead({ incident_id: 'INC-1', chain: 'internal', n: count, hash: heads.internal!.hash, signed_at: '2026-11-23T12:00:00.000Z', kid: jwk.kid }, privateKey),
    keys: [jwk],
  };
  return JSON.stringify(bundle);
}

/** What verifying the whole text in order says, or the error it throws. */
function inOrder(text: string): string {
  try {
    return describeVerdict(verifyBundle(asBundle(JSON.parse(text))));
  } catch (error) {
    return `${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
}

async function inRuns(text: string, helpers = startRunCheckers()): Promise<string> {
  try {
    return describeVerdict(await verifyBundleBytes(new Uint8Array(Buffer.from(text)), undefined, helpers));
  } catch (error) {
    return `${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
}

describe('verifying a bundle in runs', () => {
  it('says what verifying in order says, whatever one character is changed to', async () => {
    const text = bundleOf(12);
    expect(await inRuns(text, [])).toMatch(/^intact: 12 events/);
    const flip = (c: string) => (c === 'z' ? 'y' : c === '9' ? '8' : c === '"' ? ' ' : String.fromCharCode(c.charCodeAt(0) + 1));
    let broken = 0;
    for (let at = 0; at < text.length; at += 3) {
      const changed = `${text.slice(0, at)}${flip(text[at])}${text.slice(at + 1)}`;
      const expected = inOrder(changed);
      if (!expected.startsWith('intact')) broken++;
      // No helper threads: the runs are the same whichever thread checks them.
      expect([at, await inRuns(changed, [])]).toEqual([at, expected]);
    }
    expect(broken).toBeGreaterThan(1000);
  });

  it('says what verifying in order says when events are dropped, moved or redacted differently across runs', async () => {
    const bundle = JSON.parse(bundleOf(30)) as LedgerBundle;
    const variants: LedgerBundle[] = [
      { ...bundle, events: bundle.events.filter((_, i) => i !== 17) },
      { ...bundle, events: [...bundle.events.slice(0, 10), bundle.events[20], ...bundle.events.slice(11, 20), bundle.events[10], ...bundle.events.slice(21)] },
      { ...bundle, events: bundle.events.map((e, i) => (i === 26 ? { ...e, 'im.actor': '***' } : e)) },
      { ...bundle, events: bundle.events.slice(0, 29) },
    ];
    for (const variant of variants) {
      const text = JSON.stringify(variant);
      expect(inOrder(text)).toMatch(/^broken at/);
      expect(await inRuns(text, [])).toBe(inOrder(text));
    }
  });

  it('shares the runs with helper threads and joins them', async () => {
    const helpers = startRunCheckers();
    // Helpers that have started take runs; ones still starting leave them to this thread.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const text = bundleOf(3000);
    expect(await inRuns(text, helpers)).toBe(inOrder(text));
    expect(inOrder(text)).toMatch(/^intact: 3000 events/);
    const changed = text.replace('"note 2500"', '"note 2501"');
    expect(await inRuns(changed)).toBe('broken at event 2501 (n2501): its content does not match its hash');
    stopRunCheckers(helpers);
  }, 30_000);
});
