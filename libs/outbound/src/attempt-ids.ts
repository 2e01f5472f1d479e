import { randomBytes } from 'node:crypto';

/** The most ids within one millisecond: six hex digits of sequence, the id format's. */
const MAX_SEQUENCE = 0xffffff;
/** An id begins with its millisecond in this many hex digits. */
const TIME_DIGITS = 12;

/** Sorts after every id made before `time` (ms since the epoch) and before every id made at or after it. */
export const firstAttemptIdAt = (time: number): string => Math.max(0, Math.floor(time)).toString(16).padStart(TIME_DIGITS, '0');

/**
 * Attempt ids in the order they were made, strictly increasing whatever the
 * clock does: milliseconds, never less than the last id's (a clock stepped
 * back keeps counting on from there), then a sequence within that
 * millisecond, then a tail fixed per process, so a process started after a
 * clock step back cannot repeat an id the previous one committed.
 */
export class AttemptIds {
  private lastTime = 0;
  private sequence = 0;
  private readonly tail = randomBytes(4).toString('hex');

  next(now: number): string {
    if (now > this.lastTime) {
      this.lastTime = now;
      this.sequence = 0;
    } else if (this.sequence < MAX_SEQUENCE) {
      this.sequence += 1;
    } else {
      this.lastTime += 1;
      this.sequence = 0;
    }
    return `${this.lastTime.toString(16).padStart(TIME_DIGITS, '0')}${this.sequence.toString(16).padStart(6, '0')}${this.tail}`;
  }
}
