import { distance } from 'fastest-levenshtein';
import { isDeepStrictEqual } from 'node:util';
import { setOwnMember } from './own-member';

/**
 * The spec-legal spelling of each `im.*` attribute. CloudEvents names may only
 * hold `a-z0-9`, so SDKs cannot send the seed's dotted names; both spellings
 * mean the same attribute, and the ledger keeps the seed's.
 */
export const ATTRIBUTE_ALIASES = {
  imactor: 'im.actor',
  imoriginid: 'im.origin_id',
  imcorrelationkey: 'im.correlation_key',
  imfingerprint: 'im.fingerprint',
  imdataclass: 'im.data_class',
  imvisibility: 'im.visibility',
} as const;
type Alias = keyof typeof ATTRIBUTE_ALIASES;

/** Attributes the CloudEvents spec defines (v1.0 and its JSON format): never an extension. */
const CORE_ATTRIBUTES = new Set(['specversion', 'id', 'source', 'type', 'time', 'subject', 'datacontenttype', 'dataschema', 'data', 'data_base64']);
const SEED_NAMES = new Set<string>(Object.values(ATTRIBUTE_ALIASES));
/** An unknown `im<x>` this close to a service attribute is taken for a typo of it. */
const MAX_TYPO_DISTANCE = 2;

const isAlias = (name: string): name is Alias => Object.hasOwn(ATTRIBUTE_ALIASES, name);

/**
 * The service attribute an unknown extension named `im.<x>` or `im<x>` looks
 * like a misspelling of (`<x>` without `.` and `_` within edit distance 2 of
 * the alias's stem), as its alias; undefined for any other name.
 */
export function resembledAttribute(name: string): Alias | undefined {
  const match = /^im\.?(.*)$/i.exec(name);
  if (!match || CORE_ATTRIBUTES.has(name) || SEED_NAMES.has(name) || isAlias(name)) return undefined;
  const stem = match[1].toLowerCase().replace(/[._]/g, '');
  let closest: { alias: Alias; distance: number } | undefined;
  for (const alias of Object.keys(ATTRIBUTE_ALIASES) as Alias[]) {
    const d = distance(stem, alias.slice(2));
    if (d <= MAX_TYPO_DISTANCE && (!closest || d < closest.distance)) closest = { alias, distance: d };
  }
  return closest?.alias;
}

/** `imdataclass` may be one comma-separated string (a binary-mode header; repeated headers arrive joined by ", "). */
const aliasValue = (alias: Alias, value: unknown): unknown =>
  alias === 'imdataclass' && typeof value === 'string'
    ? value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '')
    : value;

export type AttributeNamesCheck = { ok: true; event: Record<string, unknown> } | { ok: false; errors: string[] };

/**
 * Rewrites alias names to the seed's (the one place aliases are read, for every
 * content mode), refusing an event that gives one attribute two values and an
 * `im*` name that is a misspelling of a service attribute: a misspelt
 * `imvisibility` must not publish a confidential note.
 */
export function normaliseAttributeNames(event: Record<string, unknown>): AttributeNamesCheck {
  const names = Object.keys(event);
  if (!names.some((name) => isAlias(name) || resembledAttribute(name))) return { ok: true, event };
  const errors: string[] = [];
  const normalised: Record<string, unknown> = {};
  for (const name of names) {
    const value = event[name];
    const resembled = resembledAttribute(name);
    if (resembled) {
      errors.push(`${name} is not an attribute of the service: did you mean ${resembled} (${ATTRIBUTE_ALIASES[resembled]})?`);
    } else if (isAlias(name)) {
      const seed = ATTRIBUTE_ALIASES[name];
      const meant = aliasValue(name, value);
      if (Object.hasOwn(event, seed) && !isDeepStrictEqual(event[seed], meant)) {
        errors.push(`${name} and ${seed} are one attribute spelt two ways, with different values`);
      } else setOwnMember(normalised, seed, meant);
    } else setOwnMember(normalised, name, value);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, event: normalised };
}
