import { Inject, Injectable, Logger } from '@nestjs/common';
import { hkdfSync, randomBytes } from 'node:crypto';
import { APP_CONFIG, type AppConfig, DEVELOPMENT_JWT_SECRET } from '@im/config';
import { InvalidError } from '@im/incidents';
import type { TimelinePosition, TimelineQuery } from '@im/read-models';
import type { Principal } from '@im/access';
import { dataDirKey, open, seal } from '@im/secrets';

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

/** Where a live stream resumes: the log position of the last event sent, and for a timeline its revision in the incident's stream. */
export interface LivePosition {
  position: bigint;
  revision?: bigint;
}

/** What a live cursor belongs to: one incident's timeline, or the changes of every incident. */
export type LiveScope = { kind: 'timeline'; incidentId: string } | { kind: 'incidents' };

/** Distinct from boundTo's `[sub, filters]`, so a page cursor never opens as a live one, nor the reverse. */
const liveBinding = (caller: Principal, scope: LiveScope) =>
  Buffer.from(JSON.stringify(['live', scope.kind, caller.sub, scope.kind === 'timeline' ? scope.incidentId : null]));

const DECIMAL = /^\d{1,19}$/;

/**
 * Timeline cursors are sealed with AES-256-GCM: the position inside cannot be
 * read, and a cursor changed by one bit, or replayed with other filters or by
 * another caller (the query and the caller are its associated data), is refused.
 * Live streams' cursors (Last-Event-ID) are sealed the same way, bound to the
 * caller and the stream; they hold a log position, because a stream follows the
 * log while a page is ordered by event time.
 */
@Injectable()
export class TimelineCursors {
  constructor(@Inject(CURSOR_KEY) private readonly key: Buffer) {}

  seal(caller: Principal, query: TimelineQuery, last: TimelinePosition): string {
    return this.sealValues(boundTo(caller, query), [last.eventTime, String(last.position)]);
  }

  /** The position a cursor resumes after; 400 unless this server sealed it for this caller and query. */
  open(caller: Principal, query: TimelineQuery, cursor: string): TimelinePosition {
    const invalid = new InvalidError('cursor is malformed or belongs to another query: pass next_cursor unchanged with the same filters');
    const value = this.openValues(boundTo(caller, query), cursor, invalid);
    // Authentic, so ours; checked anyway, in case the format ever changes under a live cursor.
    if (value.length !== 2 || !DECIMAL.test(value[1])) throw invalid;
    return { eventTime: value[0], position: BigInt(value[1]) };
  }

  sealLive(caller: Principal, scope: LiveScope, last: LivePosition): string {
    return this.sealValues(liveBinding(caller, scope), last.revision === undefined ? [String(last.position)] : [String(last.position), String(last.revision)]);
  }

  /** Where a live stream resumes; 400 unless this server sealed it for this caller and this stream. */
  openLive(caller: Principal, scope: LiveScope, cursor: string): LivePosition {
    const invalid = new InvalidError('Last-Event-ID (or after) is malformed or belongs to another stream or caller: pass the id of the last event received, unchanged');
    const value = this.openValues(liveBinding(caller, scope), cursor, invalid);
    if (value.length < 1 || value.length > 2 || !value.every((v) => DECIMAL.test(v))) throw invalid;
    return value.length === 2 ? { position: BigInt(value[0]), revision: BigInt(value[1]) } : { position: BigInt(value[0]) };
  }

  private sealValues(binding: Buffer, values: string[]): string {
    return seal(this.key, JSON.stringify(values), binding);
  }

  /** The strings sealed for this binding, or `invalid`. */
  private openValues(binding: Buffer, cursor: string, invalid: InvalidError): string[] {
    const text = cursor.length <= MAX_CURSOR_LENGTH ? open(this.key, cursor, binding) : undefined;
    if (text === undefined) throw invalid;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalid;
    }
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw invalid;
    return value as string[];
  }
}
