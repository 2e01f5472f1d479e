import { Logger } from '@nestjs/common';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@im/config';
import { InvalidError } from '@im/incidents';
import type { TimelineQuery } from '@im/read-models';
import { ANONYMOUS, type Principal } from '@im/access';
import { CURSOR_KEY_FILE, cursorKey, TimelineCursors } from './timeline-cursor';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'im-cursor-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const alice: Principal = { ...ANONYMOUS, sub: 'alice', authenticated: true };
const query: TimelineQuery = { correlationKey: 'deploy-42', order: 'desc', limit: 10 };
const position = { eventTime: '2026-11-22T10:00:00.000Z', position: 1234n };

describe('cursorKey', () => {
  it('is generated into DATA_DIR once and kept across restarts', () => {
    const dir = dataDir();
    const key = cursorKey(loadConfig({ DATA_DIR: dir }));
    expect(cursorKey(loadConfig({ DATA_DIR: dir }))).toEqual(key);
    expect(readFileSync(join(dir, CURSOR_KEY_FILE), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(join(dir, CURSOR_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(cursorKey(loadConfig({ DATA_DIR: dataDir() }))).not.toEqual(key);
  });

  it('derives from JWT_SECRET when one is configured, so instances sharing it share cursors', () => {
    const secret = { JWT_SECRET: 's'.repeat(40) };
    expect(cursorKey(loadConfig({ ...secret, DATA_DIR: dataDir() }))).toEqual(cursorKey(loadConfig({ ...secret, DATA_DIR: dataDir() })));
  });

  it('derives from CURSOR_SECRET first, so api instances verifying tokens by JWKS can share cursors', () => {
    const jwks = { APP_ENV: 'production', JWT_JWKS_URL: 'https://idp.example.com/jwks', CURSOR_SECRET: 'c'.repeat(40) };
    const key = cursorKey(loadConfig({ ...jwks, DATA_DIR: dataDir() }));
    expect(cursorKey(loadConfig({ ...jwks, DATA_DIR: dataDir() }))).toEqual(key);
    expect(cursorKey(loadConfig({ ...jwks, CURSOR_SECRET: 'd'.repeat(40), DATA_DIR: dataDir() }))).not.toEqual(key);
    expect(() => loadConfig({ CURSOR_SECRET: 'short' })).toThrow(/CURSOR_SECRET must be at least 32 characters/);
  });

  it('falls back to a key for this process, with a warning, when DATA_DIR cannot keep one', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const file = join(dataDir(), 'not-a-directory');
    writeFileSync(file, '');
    expect(cursorKey(loadConfig({ DATA_DIR: file }))).toHaveLength(32);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/key for this process only.*ENOTDIR/));
    warn.mockRestore();
  });
});

describe('TimelineCursors', () => {
  const cursors = new TimelineCursors(cursorKey(loadConfig({ DATA_DIR: dataDir() })));
  const cursor = cursors.seal(alice, query, position);

  it('opens what it sealed, for the same caller and query (any limit)', () => {
    expect(cursors.open(alice, { ...query, limit: 500 }, cursor)).toEqual(position);
  });

  it('cannot be read: neither the time nor the position is in it', () => {
    const bytes = Buffer.from(cursor, 'base64url').toString('latin1');
    expect(bytes).not.toContain('2026');
    expect(bytes).not.toContain('1234');
    expect(cursors.seal(alice, query, position)).not.toBe(cursor);
  });

  it.each([
    ['another caller', { ...alice, sub: 'bob' }, query, cursor],
    ['other filters', alice, { ...query, actor: 'bob' }, cursor],
    ['another order', alice, { ...query, order: 'asc' as const }, cursor],
    ['a changed byte', alice, query, `${cursor.slice(0, 30)}${cursor[30] === 'x' ? 'y' : 'x'}${cursor.slice(31)}`],
    ['a truncated cursor', alice, query, cursor.slice(0, 20)],
    ['an oversized cursor', alice, query, cursor + 'A'.repeat(400)],
    ['another server', alice, query, new TimelineCursors(cursorKey(loadConfig({ DATA_DIR: dataDir() }))).seal(alice, query, position)],
    ['text that is not base64url', alice, query, '!!!!'.repeat(20)],
    ['an empty cursor', alice, query, ''],
  ])('refuses a cursor from %s as invalid input (400)', (_, caller, other, text) => {
    const open = () => cursors.open(caller, other, text);
    expect(open).toThrow(InvalidError);
    expect(open).toThrow('cursor is malformed or belongs to another query: pass next_cursor unchanged with the same filters');
  });
});
