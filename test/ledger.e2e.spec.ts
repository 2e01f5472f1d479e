import Database from 'better-sqlite3';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { asBundle, chainsOf, type LedgerBundle, type LedgerEvent, verifyBundle } from '@im/ledger-proof';
import { runVerify } from '../apps/api/src/ledger-proof/verify.cli';
import { LedgerContinuity, VERIFIED_FILE } from '../apps/api/src/ledger-proof/ledger-continuity';
import { SIGNED_HEADS_FILE, SignedHeads } from '../apps/api/src/ledger-proof/signed-heads';
import { startTestApp, type TestApp } from './support/app';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

// Each test starts the api once or more: seconds apiece on a loaded machine.
jest.setTimeout(60_000);

// A relay: its notes name other people as their actors.
const writer = bearer(token({ sub: 'writer', roles: ['timeline.writer', 'timeline.relay'] }));
const auditor = (clearance: string, dataAccess: string[] = ['pii', 'phi', 'legal_hold']) =>
  bearer(token({ sub: `auditor-${clearance}`, roles: ['timeline.exporter'], clearance, data_access: dataAccess }));
const CONFIDENTIAL = auditor('confidential');

async function declare(t: TestApp, title: string): Promise<string> {
  return (await t.http().post('/api/v1/incidents').send({ title, severity: 'SEV-2' }).expect(201)).body.id;
}

async function note(t: TestApp, incident: string, content: string, extra: Record<string, unknown> = {}): Promise<string> {
  const id = `note-${randomUUID()}`;
  await t
    .http()
    .post('/api/v1/timeline/events')
    .set({ ...writer, 'content-type': 'application/cloudevents+json' })
    .send(JSON.stringify({ specversion: '1.0', id, source: 'im://ledger-test', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${incident}`, data: { content }, ...extra }))
    .expect(201);
  return id;
}

const exportBundle = async (t: TestApp, incident: string, auth = CONFIDENTIAL): Promise<LedgerBundle> =>
  (await t.http().get(`/api/v1/incidents/${incident}/timeline/export?format=ledger`).set(auth).expect(200)).body;

describe('the verifiable ledger', () => {
  const files = tempDir('ledger-bundles');
  const save = (name: string, content: unknown) => {
    const path = join(files.path, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  let t: TestApp;
  let incident: string;
  let other: string;
  let notes: string[];

  beforeAll(async () => {
    t = await startTestApp();
    incident = await declare(t, 'Checkout down');
    other = await declare(t, 'Search slow');
    notes = [];
    for (let i = 1; i <= 4; i++) notes.push(await note(t, incident, `step ${i}`));
    await note(t, other, 'elsewhere');
  });
  afterAll(async () => {
    await t.close();
    files.remove();
  });

  it('exports a bundle that the verify command and the verify endpoint find intact', async () => {
    const bundle = await exportBundle(t, incident);
    expect(bundle).toMatchObject({ format: 'im-ledger/1', incident_id: incident, head: { incident_id: incident, chain: 'confidential', n: 5 } });
    const keys = (await t.http().get('/api/v1/ledger/keys').expect(200)).body;
    expect(keys.keys).toEqual([expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', use: 'sig', status: 'active', kid: bundle.head.kid })]);
    expect(bundle.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: keys.keys[0].x, kid: bundle.head.kid, use: 'sig' }]);
    expect(await runVerify([save('bundle.json', bundle), '--key', save('jwks.json', keys)])).toEqual({
      code: 0,
      line: `intact: 5 events, chain confidential, head ${bundle.head.hash}, key ${bundle.head.kid}`,
    });
    expect((await t.http().get(`/api/v1/incidents/${incident}/timeline/verify`).set(CONFIDENTIAL).expect(200)).body).toEqual({
      intact: true,
      chain: 'confidential',
      n: 5,
      head: bundle.head.hash,
    });
    // The JSON export is the same events with the same links, in timeline order.
    const json = (await t.http().get(`/api/v1/incidents/${incident}/timeline/export`).set(CONFIDENTIAL).expect(200)).body;
    expect(json).toEqual(bundle.events);
  });

  it('names the first event that breaks: one changed character, a dropped event, two reordered, an event from another incident', async () => {
    const bundle = await exportBundle(t, incident);
    const verify = (name: string, changed: LedgerBundle) => runVerify([save(name, changed)]);
    const copy = () => JSON.parse(JSON.stringify(bundle)) as LedgerBundle;

    const edited = copy();
    (edited.events[2].data as { content: string }).content = 'step 3!';
    expect(await verify('edited.json', edited)).toEqual({ code: 1, line: `broken at event 3 (${notes[1]}): its content does not match its hash` });

    const dropped = copy();
    dropped.events.splice(1, 1);
    expect(await verify('dropped.json', dropped)).toEqual({ code: 1, line: `broken at event 2 (${notes[1]}): it says it is event 3 of its chain, expected 2` });

    const reordered = copy();
    [reordered.events[2], reordered.events[3]] = [reordered.events[3], reordered.events[2]];
    expect(await verify('reordered.json', reordered)).toEqual({ code: 1, line: `broken at event 3 (${notes[2]}): it says it is event 4 of its chain, expected 3` });

    const swapped = copy();
    const foreign = (await exportBundle(t, other)).events[1];
    swapped.events[1] = foreign;
    expect(await verify('swapped.json', swapped)).toEqual({ code: 1, line: `broken at event 2 (${String(foreign.id)}): its subject incident/${other} is not incident/${incident}` });

    const resigned = copy();
    resigned.head.n = 4;
    expect((await verify('head.json', resigned)).line).toMatch(/^broken at head: the head says 4 events/);
  });

  it('answers where the stored chain breaks when the ledger itself was changed', async () => {
    const victim = await declare(t, 'Tampered');
    const ids = [await note(t, victim, 'one'), await note(t, victim, 'two'), await note(t, victim, 'three')];
    const db = new Database(join(t.config.dataDir, 'events.sqlite'));
    db.prepare(`UPDATE events SET body = json_set(body, '$.data.content', 'TWO') WHERE event_id = ?`).run(ids[1]);
    db.close();
    expect((await t.http().get(`/api/v1/incidents/${victim}/timeline/verify`).set(CONFIDENTIAL).expect(200)).body).toEqual({
      intact: false,
      chain: 'confidential',
      broken_at: { n: 3, event_id: ids[1], reason: 'its content does not match its hash' },
    });
  });

  it('shows a reader their own chain: redacted members committed, nothing of a withheld event', async () => {
    const mixed = await declare(t, 'Mixed visibility');
    await note(t, mixed, 'public step', { 'im.visibility': 'public' });
    await note(t, mixed, 'the root password is hunter2', { 'im.visibility': 'confidential' });
    await note(t, mixed, 'ann@example.com reported it', { 'im.visibility': 'public', 'im.data_class': ['pii'], 'im.actor': 'ann@example.com', x_email: 'ann@example.com' });
    const reader = auditor('public', []);
    const bundle = await exportBundle(t, mixed, reader);
    expect(verifyBundle(asBundle(bundle))).toMatchObject({ intact: true, chain: 'public', n: 2 });
    expect((await t.http().get(`/api/v1/incidents/${mixed}/timeline/verify`).set(reader).expect(200)).body).toMatchObject({ intact: true, chain: 'public', n: 2 });
    const text = JSON.stringify(bundle);
    for (const secret of ['hunter2', 'ann@example.com']) expect(text).not.toContain(secret);
    const stored = await t.app.get<EventStore>(EVENT_STORE).readStream(`incident-${mixed}`);
    const withheld = stored.find((r) => r.event['im.visibility'] === 'confidential')!;
    const redacted = stored[stored.length - 1];
    // Neither the withheld event's id, salts or links (in every chain that holds it), nor the salts of the redacted members.
    const ownLinks = chainsOf(withheld.event as unknown as LedgerEvent).map((chain) => withheld.ledger!.heads[chain]!.hash);
    for (const value of [withheld.event.id, ...Object.values(withheld.ledger!.salts), ...ownLinks]) expect(text).not.toContain(value);
    const ledger = bundle.events[1]['im.ledger'] as { salts: Record<string, string>; commitments: Record<string, string> };
    expect(Object.keys(ledger.commitments).sort()).toEqual(['/data/content', '/data/im.sender', '/im.actor', '/x_email']);
    for (const pointer of Object.keys(ledger.commitments)) expect(text).not.toContain(redacted.ledger!.salts[pointer]);
  });

  it('answers an unknown incident, or one withheld from the caller, with 404, and a caller without timeline.exporter with 403', async () => {
    const declared = await t
      .http()
      .post('/api/v1/timeline/events')
      .set({ ...writer, 'content-type': 'application/cloudevents+json' })
      .send(JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://ledger-test', type: 'im.incident.declare', time: new Date().toISOString(), 'im.visibility': 'confidential', data: { title: 'Confidential', severity: 'SEV-1' } }))
      .expect(201);
    const hidden: string = declared.body.incident_id;
    for (const id of ['INC-00000000', hidden]) {
      expect((await t.http().get(`/api/v1/incidents/${id}/timeline/verify`).set(auditor('internal'))).status).toBe(404);
      expect((await t.http().get(`/api/v1/incidents/${id}/timeline/export?format=ledger`).set(auditor('internal'))).status).toBe(404);
    }
    const reader = bearer(token({ sub: 'reader', roles: ['timeline.reader'] }));
    expect((await t.http().get(`/api/v1/incidents/${incident}/timeline/verify`).set(reader)).status).toBe(403);
  });

  it('signs the head of every chain that changed, once a minute, into the heads file', async () => {
    const heads = t.app.get(SignedHeads);
    await heads.signChanged();
    const fresh = await declare(t, 'Signed every minute');
    await note(t, fresh, 'public', { 'im.visibility': 'public' });
    await heads.signChanged();
    const lines = readFileSync(join(t.config.dataDir, SIGNED_HEADS_FILE), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const signed = lines.filter((head) => head.incident_id === fresh);
    expect(signed.map((head) => [head.chain, head.n]).sort()).toEqual([['confidential', 2], ['internal', 2], ['public', 1], ['restricted', 2]]);
    const bundle = await exportBundle(t, fresh, auditor('public'));
    expect(verifyBundle({ ...bundle, head: signed.find((head) => head.chain === 'public') })).toMatchObject({ intact: true });
  });
});

describe('the ledger across versions and keys', () => {
  it('upgrades a data directory written before the ledger in place, and its exports verify', async () => {
    const dir = tempDir('ledger-upgrade');
    cpSync(join(__dirname, 'fixtures/data-before-ledger'), dir.path, { recursive: true });
    const t = await startTestApp({}, dir.path);
    try {
      const incidents = (await t.http().get('/api/v1/incidents').expect(200)).body as { id: string }[];
      expect(incidents).toHaveLength(2);
      for (const { id } of incidents) {
        for (const clearance of ['public', 'internal', 'restricted', 'confidential']) {
          const bundle = await exportBundle(t, id, auditor(clearance, []));
          expect(verifyBundle(asBundle(bundle))).toMatchObject({ intact: true, chain: clearance });
          expect((await t.http().get(`/api/v1/incidents/${id}/timeline/verify`).set(auditor(clearance)).expect(200)).body).toMatchObject({ intact: true });
        }
      }
    } finally {
      await t.close();
      dir.remove();
    }
  });

  it('keeps verifying bundles signed with a key retired by a restart with a new LEDGER_SIGNING_KEY', async () => {
    const dir = tempDir('ledger-rotation');
    const files = tempDir('ledger-rotation-files');
    try {
      let t = await startTestApp({}, dir.path);
      const incident = await declare(t, 'Rotated');
      await note(t, incident, 'before the rotation');
      const old = await exportBundle(t, incident);
      await t.app.close();

      const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      t = await startTestApp({ LEDGER_SIGNING_KEY: pem }, dir.path);
      const keys = (await t.http().get('/api/v1/ledger/keys').expect(200)).body;
      expect(keys.keys.map((k: { status: string }) => k.status)).toEqual(['active', 'retired']);
      expect(keys.keys[1].kid).toBe(old.head.kid);
      const jwks = join(files.path, 'jwks.json');
      writeFileSync(jwks, JSON.stringify(keys));
      const bundle = join(files.path, 'old.json');
      writeFileSync(bundle, JSON.stringify(old));
      expect(await runVerify([bundle, '--key', jwks])).toMatchObject({ code: 0, line: expect.stringContaining(`key ${old.head.kid}`) });
      const fresh = await exportBundle(t, incident);
      expect(fresh.head.kid).toBe(keys.keys[0].kid);
      expect(verifyBundle(asBundle(fresh), keys.keys)).toMatchObject({ intact: true, n: 2 });
      await t.app.close();
    } finally {
      dir.remove();
      files.remove();
    }
  });

  it('refuses to start with a signing key that is not Ed25519', async () => {
    const dir = tempDir('ledger-bad-key');
    try {
      const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      await expect(startTestApp({ LEDGER_SIGNING_KEY: pem }, dir.path)).rejects.toThrow('LEDGER_SIGNING_KEY must be an Ed25519 key (got ec)');
    } finally {
      dir.remove();
    }
  });
});

describe('the ledger checked from where it was last verified', () => {
  const continuityOf = (t: TestApp) => t.app.get(LedgerContinuity);
  const validateLedger = async (t: TestApp) =>
    ((await t.http().get('/api/v1/validate').expect(200)).body.results as { component: string; status: string; message: string }[]).find((r) => r.component === 'ledger');

  it('reads at a restart only the events written since, plus one per incident stream', async () => {
    const dir = tempDir('ledger-incremental');
    try {
      let t = await startTestApp({}, dir.path);
      const incidents = [await declare(t, 'One'), await declare(t, 'Two')];
      for (let i = 0; i < 20; i++) await note(t, incidents[i % 2], `step ${i}`);
      await t.app.close();
      expect(existsSync(join(dir.path, VERIFIED_FILE))).toBe(true);

      t = await startTestApp({}, dir.path);
      // 22 events verified before the restart: the start reads the last verified event of each stream, nothing else.
      expect(continuityOf(t).eventsRead).toBe(2);
      await note(t, incidents[0], 'after the restart');
      const before = continuityOf(t).eventsRead;
      expect(await validateLedger(t)).toMatchObject({ status: 'pass' });
      // The new event, found in the log and read with its stream, and the last verified event of each stream.
      expect(continuityOf(t).eventsRead - before).toBe(1 + 1 + 2);
      await t.app.close();
    } finally {
      dir.remove();
    }
  });

  it('reads an export overtaken by later signed events again, and calls it no rewrite', async () => {
    const t = await startTestApp();
    try {
      const incident = await declare(t, 'Busy');
      await note(t, incident, 'one');
      const stale = await t.app.get<EventStore>(EVENT_STORE).readStream(`incident-${incident}`);
      await note(t, incident, 'two');
      expect((await exportBundle(t, incident)).head.n).toBe(3);
      // What an export that read before the note and checked after the signature holds.
      expect(await continuityOf(t).checkRead(incident, stale)).toBeUndefined();
      expect(continuityOf(t).found()).toEqual([]);
      expect((await exportBundle(t, incident)).head.n).toBe(3);
      expect(await validateLedger(t)).toMatchObject({ status: 'pass' });
    } finally {
      await t.close();
    }
  });

  it('leaves out a head in the heads file that no ledger key signed, rather than taking it for a rewrite', async () => {
    const dir = tempDir('ledger-forged-head');
    try {
      let t = await startTestApp({}, dir.path);
      const incident = await declare(t, 'Forged head');
      const head = (await exportBundle(t, incident)).head;
      await t.app.close();
      writeFileSync(join(dir.path, SIGNED_HEADS_FILE), `${JSON.stringify({ ...head, n: 99, hash: `sha256:${'0'.repeat(64)}` })}\n`, { flag: 'a' });
      t = await startTestApp({}, dir.path);
      expect(await validateLedger(t)).toMatchObject({ status: 'pass' });
      expect((await exportBundle(t, incident)).head).toMatchObject({ n: 1, hash: head.hash });
      await t.app.close();
    } finally {
      dir.remove();
    }
  });

  it('passes start and validate unchanged on an untampered ledger written before the check existed, and on one upgraded in place', async () => {
    for (const fixture of ['written-by-the-previous-version', 'data-before-ledger']) {
      const dir = tempDir('ledger-unchanged');
      try {
        if (fixture === 'data-before-ledger') cpSync(join(__dirname, 'fixtures/data-before-ledger'), dir.path, { recursive: true });
        else {
          const earlier = await startTestApp({}, dir.path);
          const incident = await declare(earlier, 'Before the check');
          await note(earlier, incident, 'one');
          await exportBundle(earlier, incident);
          await earlier.app.close();
          // What the previous version left: the store and the heads file, no verified record.
          rmSync(join(dir.path, VERIFIED_FILE));
        }
        const t = await startTestApp({}, dir.path);
        try {
          expect(continuityOf(t).found()).toEqual([]);
          expect(await validateLedger(t)).toMatchObject({ status: 'pass' });
          const [{ id }] = (await t.http().get('/api/v1/incidents').expect(200)).body as { id: string }[];
          expect(verifyBundle(asBundle(await exportBundle(t, id)))).toMatchObject({ intact: true });
        } finally {
          await t.app.close();
        }
      } finally {
        dir.remove();
      }
    }
  });
});
