/**
 * The one parser of timestamps the service is given (a CloudEvent's `time`, a
 * query's `from`/`to`). It accepts exactly what the read side can order: RFC
 * 3339 with a real calendar date, seconds 00-59 and a `Z` or `±hh:mm` offset.
 * A leap second (`23:59:60`) is refused: a JavaScript Date, and so every sort
 * key, cannot represent it (send `23:59:59.999` instead).
 */

/** How a refused timestamp is described to the client. */
export const TIMESTAMP_RULE =
  'an RFC 3339 timestamp with a real calendar date, seconds 00-59 (no leap second) and Z or a ±hh:mm offset, e.g. 2026-11-22T10:00:00Z';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** The number written by `count` ASCII digits from `at`, or -1 if one of them is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    // Past the end charCodeAt answers NaN, which fails this too.
    if (!(digit >= 0 && digit <= 9)) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The instant as the canonical UTC text every read model sorts and filters on
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`, fractions beyond milliseconds cut off), or
 * undefined when the text is not a timestamp the service accepts. Read
 * character by character rather than by a regular expression: alert sources
 * send four timestamps per alert, and a text already canonical is answered
 * as it is, without a new string.
 */
export function parseTimestamp(text: string): string | undefined {
  // YYYY-MM-DD, then T, t or a space, then HH:mm:ss: 19 characters at fixed places.
  if (text.length < 20 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const separator = text.charCodeAt(10);
  if (separator !== 84 && separator !== 116 && separator !== 32) return undefined;
  const [year, month, day, hour, minute, second] = [digitsAt(text, 0, 4), digitsAt(text, 5, 2), digitsAt(text, 8, 2), digitsAt(text, 11, 2), digitsAt(text, 14, 2), digitsAt(text, 17, 2)];
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1])) return undefined;
  // An optional fraction of at least one digit, then Z, z or ±hh:mm, and nothing after.
  let zone = 19;
  if (text.charCodeAt(19) === 46) {
    zone = 20;
    while (zone < text.length && text.charCodeAt(zone) >= 48 && text.charCodeAt(zone) <= 57) zone++;
    if (zone === 20) return undefined;
  }
  const zoneMark = text.charCodeAt(zone);
  let offsetMs = 0;
  if (zoneMark === 90 || zoneMark === 122) {
    if (text.length !== zone + 1) return undefined;
  } else if (zoneMark === 43 || zoneMark === 45) {
    const [offsetHours, offsetMinutes] = [digitsAt(text, zone + 1, 2), digitsAt(text, zone + 4, 2)];
    if (text.length !== zone + 6 || text.charCodeAt(zone + 3) !== 58 || offsetHours < 0 || offsetHours > 23 || offsetMinutes < 0 || offsetMinutes > 59) return undefined;
    offsetMs = (offsetHours * 60 + offsetMinutes) * 60_000 * (zoneMark === 45 ? -1 : 1);
  } else return undefined;
  // Already canonical (UTC, T, three fraction digits, Z): answered as it is.
  if (offsetMs === 0 && zone === 23 && zoneMark === 90 && separator === 84) return text;
  const milliseconds = (zone === 19 ? '' : text.slice(20, Math.min(zone, 23))).padEnd(3, '0');
  // Already UTC (the usual case): the fields are the answer, no Date needed.
  if (offsetMs === 0) return `${text.slice(0, 10)}T${text.slice(11, 19)}.${milliseconds}Z`;
  const instant = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute, second, Number(milliseconds));
  instant.setTime(instant.getTime() - offsetMs);
  return utcText(instant);
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/**
 * `YYYY-MM-DDTHH:mm:ss.sssZ`, as Date#toISOString writes it but several times
 * faster. An offset can carry year 0000 or 9999 out of four digits: undefined
 * then, as text order would break.
 */
function utcText(instant: Date): string | undefined {
  const year = instant.getUTCFullYear();
  if (year < 0 || year > 9999) return undefined;
  const date = `${pad(year, 4)}-${pad(instant.getUTCMonth() + 1, 2)}-${pad(instant.getUTCDate(), 2)}`;
  return `${date}T${pad(instant.getUTCHours(), 2)}:${pad(instant.getUTCMinutes(), 2)}:${pad(instant.getUTCSeconds(), 2)}.${pad(instant.getUTCMilliseconds(), 3)}Z`;
}
