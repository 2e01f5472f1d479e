import { Inject, Injectable, Logger } from '@nestjs/common';
import { hkdfSync, randomBytes } from 'node:crypto';
import { APP_CONFIG, type AppConfig, DEVELOPMENT_JWT_SECRET } from '@im/config';
import { InvalidError } from '@im/incidents';
import type { TimelinePosition, TimelineQuery } from '@im/read-models';
import type { Principal } from '../auth/principal';
import { dataDirKey } from '../secrets/data-dir-key';
import { open, seal } from '../secrets/sealed-box';

export const CURSOR_KEY = Symbol('CURSOR_KEY');

/** Where the cursor key is kept when no JWT_SECRET is configured. */
export const CURSOR_KEY_FILE = 'cursor.key';
/** Ours are about 110 characters; anything much longer is refused before it is decoded. */
export const MAX_CURSOR_LENGTH = 256;

const logger = new Logger('TimelineCursors');

/**
 * The AES-256-GCM key of timeline cursors, derived (HKDF-SHA256) from
 * CURSOR_SECRET, else from the JWT_SECRET when one is configured, so every
 * instance sharing the secret reads the others' cursors. Without either (JWKS,
 * or development's public secret) it is
 * a random key generated into DATA_DIR/cursor.key on first start; if that file
 * cannot be kept, a key for this process only (cursors then end with it).
 */
export function cursorKey(config: AppConfig): Buffer {
  const jwtSecret = config.jwt.kind === 'secret' && config.jwt.secret !== DEVELOPMENT_JWT_SECRET ? config.jwt.secret : undefined;
  const secret = config.cursorSecret ?? jwtSecret;
  return Buffer.from(hkdfSync('sha256', secret ?? keyFileSecret(config.dataDir), '', 'incident-service timeline cursor v1', 32));
}

function keyFileSecret(dataDir: string): Buffer {
  try {
    return dataDirKey(dataDir, CURSOR_KEY_FILE);
  } catch (error) {
    return processKey((error as Error).message);
  }
}

function processKey(reason: string): Buffer {
  logger.warn(`Timeline cursors use a key for this process only, so they do not survive a restart: ${reason}`);
  return randomBytes(32);
}

/** The query a cursor belongs to, canonically: its filters and order, not its limit or position. */
function boundTo(caller: Principal, query: TimelineQuery): Buffer {
  const { limit: _limit, after: _after, ...shape } = query;
  const filters = Object.entries(shape).filter(([, value]) => value !== undefined).sort(([a], [b]) => a.localeCompare(b));
  return Buffer.from(JSON.stringify([caller.sub, filters]));
}

/**
 * Timeline cursors are sealed with AES-256-GCM: the position inside cannot be
 * read, and a cursor changed by one bit, or replayed with other filters or by
 * another caller (the query and the caller are its associated data), is refused.
 */
@Injectable()
export class TimelineCursors {
  constructor(@Inject(CURSOR_KEY) private readonly key: Buffer) {}

  seal(caller: Principal, query: TimelineQuery, last: TimelinePosition): string {
    return seal(this.key, JSON.stringify([last.eventTime, String(last.position)]), boundTo(caller, query));
  }

  /** The position a cursor resumes after; 400 unless this server sealed it for this caller and query. */
  open(caller: Principal, query: TimelineQuery, cursor: string): TimelinePosition {
    const invalid = new InvalidError('cursor is malformed or belongs to another query: pass next_cursor unchanged with the same filters');
    const text = cursor.length <= MAX_CURSOR_LENGTH ? open(this.key, cursor, boundTo(caller, query)) : undefined;
    if (text === undefined) throw invalid;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalid;
    }
    // Authentic, so ours; checked anyway, in case the format ever changes under a live cursor.
    if (!Array.isArray(value) || typeof value[0] !== 'string' || typeof value[1] !== 'string' || !/^\d{1,19}$/.test(value[1])) throw invalid;
    return { eventTime: value[0], position: BigInt(value[1]) };
  }
}
