/**
 * The one parser of timestamps the service is given (a CloudEvent's `time`, a
 * query's `from`/`to`). It accepts exactly what the read side can order: RFC
 * 3339 with a real calendar date, seconds 00-59 and a `Z` or `±hh:mm` offset.
 * A leap second (`23:59:60`) is refused: a JavaScript Date, and so every sort
 * key, cannot represent it (send `23:59:59.999` instead).
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** How a refused timestamp is described to the client. */
export const TIMESTAMP_RULE =
  'an RFC 3339 timestamp with a real calendar date, seconds 00-59 (no leap second) and Z or a ±hh:mm offset, e.g. 2026-11-22T10:00:00Z';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/**
 * The instant as the canonical UTC text every read model sorts and filters on
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`, fractions beyond milliseconds cut off), or
 * undefined when the text is not a timestamp the service accepts.
 */
export function parseTimestamp(text: string): string | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const [, , , , , , , fraction = '', sign, offsetHours = '00', offsetMinutes = '00'] = match;
  const daysInMonth = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return undefined;
  const milliseconds = fraction.slice(0, 3).padEnd(3, '0');
  const offsetMs = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  // Already UTC (the usual case): the fields are the answer, no Date needed.
  if (offsetMs === 0) return `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}.${milliseconds}Z`;
  const instant = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute, second, Number(milliseconds));
  instant.setTime(instant.getTime() - (sign === '-' ? -offsetMs : offsetMs));
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
