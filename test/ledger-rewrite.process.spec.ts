import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chainAppends } from '@im/ledger-proof';
import { startServer, type ServerProcess } from './support/server-process';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

jest.setTimeout(120_000);

const AUTH = bearer(token({ sub: 'auditor', roles: ['timeline.writer', 'timeline.reader', 'timeline.exporter'], clearance: 'confidential' }));

async function call(server: ServerProcess, path: string, body?: unknown, contentType = 'application/json') {
  const res = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...AUTH, ...(body === undefined ? {} : { 'content-type': contentType }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

/** The heads file as signed heads, one per line. */
const signedHeads = (dir: string): { incident_id: string; chain: string; n: number; hash: string }[] =>
  readFileSync(join(dir, 'ledger-heads.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));

/**
 * The attack of docs/security.md ("Write access to the store"): with the service stopped, one
 * event's text changed in events.sqlite and the stream's links recomputed with the ledger's
 * own function, as if the history had always been so.
 */
function rewrite(dataDir: string, incidentId: string, eventId: string, content: string): void {
  const db = new Database(join(dataDir, 'events.sqlite'));
  try {
    const rows = db.prepare(`SELECT position, body FROM events WHERE stream_id = ? ORDER BY revision`).all(`incident-${incidentId}`) as { position: number; body: string }[];
    const events = rows.map((row) => JSON.parse(row.body) as Record<string, unknown>);
    const changed = events.find((event) => event.id === eventId)!;
    changed.data = { ...(changed.data as object), content };
    const { records } = chainAppends({}, events, () => randomBytes(16));
    const update = db.prepare(`UPDATE events SET body = ?, ledger = ? WHERE position = ?`);
    db.transaction(() => rows.forEach((row, i) => update.run(JSON.stringify(events[i]), JSON.stringify(records[i]), row.position)))();
  } finally {
    db.close();
  }
}

describe('a ledger rewritten by someone with write access to the store but not the signing key', () => {
  const dir = tempDir('ledger-rewrite');
  const files = tempDir('ledger-rewrite-files');
  afterAll(() => {
    dir.remove();
    files.remove();
  });

  it('is reported at start and by validate, and no head is signed for it', async () => {
    const env = { DATA_DIR: dir.path };
    const first = await startServer(env);
    let incident: string;
    const notes: string[] = [];
    try {
      incident = JSON.parse((await call(first, '/api/v1/incidents', { title: 'Checkout down', severity: 'SEV-2' })).text).id;
      for (const content of ['deploy 41 rolled out', 'deploy 41 broke checkout', 'rolled back to 40']) {
        const id = `note-${randomUUID()}`;
        const event = { specversion: '1.0', id, source: 'im://ledger-rewrite-test', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${incident}`, data: { content } };
        expect((await call(first, '/api/v1/timeline/events', event, 'application/cloudevents+json')).status).toBe(201);
        notes.push(id);
      }
      // The auditor keeps a bundle and pins the keys.
      writeFileSync(join(files.path, 'before.json'), (await call(first, `/api/v1/incidents/${incident}/timeline/export?format=ledger`)).text);
      writeFileSync(join(files.path, 'keys.json'), (await call(first, '/api/v1/ledger/keys')).text);
    } finally {
      await stop(first);
    }
    const signedBefore = signedHeads(dir.path);
    expect(signedBefore).toEqual([expect.objectContaining({ incident_id: incident, chain: 'confidential', n: 4 })]);

    rewrite(dir.path, incident, notes[1], 'nothing happened');

    const second = await startServer(env);
    try {
      // Start-up says so, as an error line naming the incident, chain and position.
      const errors = second.output().split('\n').filter((line) => line.includes('"level":"error"'));
      expect(errors.join('\n')).toContain(`REWRITTEN LEDGER: incident ${incident}, chain confidential, position 4`);

      const validate = JSON.parse((await call(second, '/api/v1/validate')).text);
      expect(validate.results.find((r: { component: string }) => r.component === 'ledger')).toMatchObject({
        check: 'continuity',
        status: 'fail',
        message: expect.stringContaining(`incident ${incident}, chain confidential, position 4`),
      });
      expect(validate.summary.failed).toBeGreaterThan(0);

      // The verify endpoint does not answer intact, and an export gets no new signature.
      const verified = JSON.parse((await call(second, `/api/v1/incidents/${incident}/timeline/verify`)).text);
      expect(verified).toMatchObject({ intact: false, chain: 'confidential', broken_at: { n: 4 } });
      const fresh = await call(second, `/api/v1/incidents/${incident}/timeline/export?format=ledger`);
      expect(fresh.status).toBe(409);
      expect(JSON.parse(fresh.text).error).toContain(`incident ${incident}, chain confidential, position 4`);
      // What an auditor saves and checks with the keys pinned before the rewrite is not "intact".
      writeFileSync(join(files.path, 'after.json'), fresh.text);
      const run = spawnSync('npm', ['run', '--silent', 'verify', '--', join(files.path, 'after.json'), '--key', join(files.path, 'keys.json')], { encoding: 'utf8', timeout: 60_000 });
      expect(run.stdout).not.toMatch(/^intact/);
      expect(run.status).not.toBe(0);
      // The bundle kept before the rewrite still verifies: it is the auditor's evidence.
      const kept = spawnSync('npm', ['run', '--silent', 'verify', '--', join(files.path, 'before.json'), '--key', join(files.path, 'keys.json')], { encoding: 'utf8', timeout: 60_000 });
      expect(kept.stdout).toMatch(/^intact: 4 events, chain confidential/);
    } finally {
      await stop(second);
    }
    // No second head for the same chain and position, nor any other head for the forged chain.
    expect(signedHeads(dir.path)).toEqual(signedBefore);

    // Deleting the verified record too leaves the signed head: the chain no longer passes through it.
    rmSync(join(dir.path, 'ledger-verified.json'));
    const third = await startServer(env);
    try {
      expect(third.output()).toContain(`REWRITTEN LEDGER: incident ${incident}, chain confidential, position 4 (event ${notes[2]}): the head signed at`);
      expect((await call(third, `/api/v1/incidents/${incident}/timeline/export?format=ledger`)).status).toBe(409);
    } finally {
      await stop(third);
    }
    // A stream found rewritten before it was ever verified is checked again at every start, not forgotten.
    const fourth = await startServer(env);
    try {
      expect(fourth.output()).toContain(`REWRITTEN LEDGER: incident ${incident}, chain confidential, position 4`);
    } finally {
      await stop(fourth);
    }
    expect(signedHeads(dir.path)).toEqual(signedBefore);
  });
});
