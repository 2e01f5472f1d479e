import { parseTimestamp, TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';

/**
 * Reads a JSON body's fields by their shape only (text, number, list, object,
 * time), collecting every problem with the field's path, so one 400 names
 * them all. What a value may be (ranges, names, zones) is the domain's rule.
 * A wrong field reads as an empty value; `done` throws before anyone uses it.
 */
export class BodyFields {
  private readonly problems: string[] = [];

  private refuse<T>(path: string, what: string, empty: T): T {
    this.problems.push(`${path} is required and must be ${what}`);
    return empty;
  }

  object(value: unknown, path: string): Record<string, unknown> {
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : this.refuse(path, 'an object', {});
  }

  text(value: unknown, path: string): string {
    return typeof value === 'string' ? value : this.refuse(path, 'a string', '');
  }

  /** Absent or null: null. */
  optionalText(value: unknown, path: string): string | null {
    if (value === undefined || value === null || typeof value === 'string') return value ?? null;
    this.problems.push(`${path} must be a string or null`);
    return null;
  }

  number(value: unknown, path: string): number {
    return typeof value === 'number' ? value : this.refuse(path, 'a number', 0);
  }

  list(value: unknown, path: string): unknown[] {
    return Array.isArray(value) ? value : this.refuse(path, 'a list', []);
  }

  texts(value: unknown, path: string): string[] {
    return this.list(value, path).map((item, i) => this.text(item, `${path}[${i}]`));
  }

  /** An RFC 3339 time, as the canonical UTC text the service stores. */
  time(value: unknown, path: string): string {
    const utc = typeof value === 'string' ? parseTimestamp(value) : undefined;
    if (utc !== undefined) return utc;
    this.problems.push(`${path} must be ${TIMESTAMP_RULE}`);
    return '';
  }

  /** The value read, or an InvalidError naming every problem found. */
  done<T>(value: T): T {
    if (this.problems.length) throw new InvalidError(this.problems.join('; '));
    return value;
  }
}
