import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_FORMAT, chainAppends, chainView, type LedgerBundle, publicJwkOf, signHead } from '@im/ledger-proof';
import { runVerify } from './verify.cli';

const dir = mkdtempSync(join(tmpdir(), 'verify-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

const { privateKey } = generateKeyPairSync('ed25519');
const jwk = publicJwkOf(privateKey);
const events = [1, 2, 3].map((i) => ({ specversion: '1.0', id: `e${i}`, source: 'im://t', type: 'im.incident.note', time: '2026-11-23T10:00:00Z', subject: 'incident/INC-1', data: { content: `c${i}` } }));
const { records, heads } = chainAppends({}, events, () => randomBytes(16));
const bundle: LedgerBundle = {
  format: BUNDLE_FORMAT,
  incident_id: 'INC-1',
  events: chainView(events.map((event, i) => ({ event, ledger: records[i] })), 'internal', (s) => s.event).map((v) => v.event),
  head: signHead({ incident_id: 'INC-1', chain: 'internal', n: 3, hash: heads.internal!.hash, signed_at: '2026-11-23T12:00:00.000Z', kid: jwk.kid }, privateKey),
  keys: [jwk],
};

describe('npm run verify', () => {
  it('prints intact and exits 0, through the npm script', () => {
    const run = spawnSync('npm', ['run', '--silent', 'verify', '--', file('good.json', bundle)], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout.trim()).toBe(`intact: 3 events, chain internal, head ${heads.internal!.hash}, key ${jwk.kid}`);
    expect(run.status).toBe(0);
  });

  it('exits 1 naming the first broken event, and checks against a pinned JWK set', async () => {
    const changed = JSON.parse(JSON.stringify(bundle)) as LedgerBundle;
    (changed.events[1].data as Record<string, string>).content = 'c2!';
    expect(await runVerify([file('changed.json', changed)])).toEqual({ code: 1, line: 'broken at event 2 (e2): its content does not match its hash' });
    const other = publicJwkOf(generateKeyPairSync('ed25519').privateKey);
    expect(await runVerify([file('good.json', bundle), '--key', file('other.json', { keys: [other] })])).toEqual({ code: 1, line: `broken at head: no key ${jwk.kid} to check its signature with` });
    expect(await runVerify([file('good.json', bundle), '--key', file('jwks.json', { keys: [other, jwk] })])).toMatchObject({ code: 0 });
  });

  it('exits 2 for a file that is missing or not a bundle', async () => {
    expect(await runVerify([join(dir, 'missing.json')])).toMatchObject({ code: 2, line: expect.stringMatching(/^cannot read bundle .*missing\.json: ENOENT/) });
    expect(await runVerify([file('text.json', 'not json')])).toMatchObject({ code: 2, line: expect.stringMatching(/is not JSON$/) });
    expect(await runVerify([file('array.json', [])])).toMatchObject({ code: 2, line: expect.stringMatching(/is not a ledger bundle: not a JSON object$/) });
    expect(await runVerify([])).toMatchObject({ code: 2, line: expect.stringMatching(/^usage: npm run verify/) });
  });

  it('names the first broken event of a large bundle, through the npm script', () => {
    const count = 4000;
    const many = Array.from({ length: count }, (_, i) => ({ ...events[0], id: `m${i + 1}`, 'im.actor': 'alice', data: { content: `note ${i + 1} ${'x'.repeat(500)}`, service: 'db' } }));
    const chained = chainAppends({}, many, () => randomBytes(16));
    const large: LedgerBundle = {
      ...bundle,
      events: chainView(many.map((event, i) => ({ event, ledger: chained.records[i] })), 'internal', (s) => s.event).map((v) => v.event),
      head: signHead({ incident_id: 'INC-1', chain: 'internal', n: count, hash: chained.heads.internal!.hash, signed_at: '2026-11-23T12:00:00.000Z', kid: jwk.kid }, privateKey),
    };
    const text = JSON.stringify(large);
    const verify = (name: string, changed: (copy: LedgerBundle) => void) => {
      const copy = JSON.parse(text) as LedgerBundle;
      changed(copy);
      const run = spawnSync('npm', ['run', '--silent', 'verify', '--', file(name, copy)], { encoding: 'utf8', timeout: 120_000 });
      return { line: run.stdout.trim() || run.stderr.trim(), status: run.status };
    };
    expect(verify('large.json', () => undefined)).toEqual({ line: `intact: ${count} events, chain internal, head ${chained.heads.internal!.hash}, key ${jwk.kid}`, status: 0 });
    // A change late in the bundle, and one earlier: the earliest is reported.
    const late = (copy: LedgerBundle) => ((copy.events[3499].data as Record<string, string>).content = 'changed');
    expect(verify('late.json', late)).toEqual({ line: 'broken at event 3500 (m3500): its content does not match its hash', status: 1 });
    expect(verify('both.json', (copy) => {
      late(copy);
      copy.events[1199]['im.actor'] = 'mallory';
    })).toEqual({ line: 'broken at event 1200 (m1200): its content does not match its hash', status: 1 });
  });
});
