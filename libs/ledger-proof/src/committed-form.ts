import { hash } from 'node:crypto';
import { jcs, jcsReplacing, Replacements } from './jcs';

/** A CloudEvent as the ledger stores it (or as an export shows it): JSON members by name. */
export type LedgerEvent = Record<string, unknown>;

/** SHA-256 as the ledger writes it: `sha256:` and lowercase hex. */
// crypto.hash: one call, no Hash object (a verification hashes several times per event).
export const sha256 = (bytes: Buffer | string): string => `sha256:${hash('sha256', bytes, 'hex')}`;

/** Data members every reader is shown (the policy's data_keys_kept): committed in clear. */
const DATA_IN_CLEAR = new Set(['severity', 'service']);

/**
 * Attributes every reader is shown (the shipped policy's attributes_kept), committed in clear.
 * Every other attribute besides `data` is a redactable member too: a redacted event leaves
 * it out (im.origin_id, im.correlation_key, im.fingerprint, dataschema, unknown extensions),
 * so the chain must still verify without its value.
 */
const ATTRIBUTES_IN_CLEAR = new Set(['specversion', 'id', 'source', 'type', 'time', 'subject', 'datacontenttype', 'im.visibility', 'im.data_class']);

/** Added by a read, so never part of the committed form. */
const READ_ATTRIBUTES = new Set(['im.redacted', 'im.ledger']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** RFC 6901 reference token. */
const token = (name: string) => (name.includes('~') || name.includes('/') ? name.replace(/~/g, '~0').replace(/\//g, '~1') : name);
/** Parsed pointers: an incident's events name the same few members over and over. */
const parsedPointers = new Map<string, readonly string[]>();
/** A bound on that map's memory: when full it is emptied and fills again. */
const POINTERS_KEPT = 10_000;

function tokensOf(pointer: string): readonly string[] {
  let tokens = parsedPointers.get(pointer);
  if (!tokens) {
    tokens = pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (parsedPointers.size >= POINTERS_KEPT) parsedPointers.clear();
    parsedPointers.set(pointer, tokens);
  }
  return tokens;
}

/** Pointers by member name (`/name`, and `/data/name` for data's): the same few names come back event after event. */
const memberPointers = new Map<string, string>();
const dataPointers = new Map<string, string>();

function pointerOf(pointers: Map<string, string>, prefix: string, name: string): string {
  let pointer = pointers.get(name);
  if (pointer === undefined) {
    pointer = `${prefix}${token(name)}`;
    if (pointers.size >= POINTERS_KEPT) pointers.clear();
    pointers.set(name, pointer);
  }
  return pointer;
}

/** The JSON Pointers of an event's redactable members, in member order. */
export function redactableMembers(event: LedgerEvent): string[] {
  const members: string[] = [];
  for (const name of Object.keys(event)) {
    const value = event[name];
    if (READ_ATTRIBUTES.has(name) || value === undefined) continue;
    if (name === 'data') {
      if (isObject(value)) for (const key of Object.keys(value)) if (!DATA_IN_CLEAR.has(key)) members.push(pointerOf(dataPointers, '/data/', key));
      if (!isObject(value)) members.push('/data');
    } else if (!ATTRIBUTES_IN_CLEAR.has(name)) members.push(pointerOf(memberPointers, '/', name));
  }
  return members;
}

/** The value a pointer names, or undefined. */
export function valueAt(event: LedgerEvent, pointer: string): unknown {
  let at: unknown = event;
  for (const name of tokensOf(pointer)) {
    if (!isObject(at) || !Object.prototype.hasOwnProperty.call(at, name)) return undefined;
    at = at[name];
  }
  return at;
}

/** Where salt ‖ UTF-8(JCS(value)) is assembled, so a commitment allocates no buffer of its own; views of it by length. */
let scratch = Buffer.allocUnsafe(1024);
let scratchViews: Buffer[] = [];

/** `sha256(salt ‖ UTF-8(JCS(value)))`; the salt as its 16 bytes or their base64url. */
export function commitment(salt: Buffer | string, value: unknown): string {
  const text = jcs(value);
  // At most three UTF-8 bytes per UTF-16 code unit.
  if (scratch.length < 16 + text.length * 3) {
    scratch = Buffer.allocUnsafe(16 + text.length * 3);
    scratchViews = [];
  }
  if (typeof salt === 'string') scratch.write(salt, 0, 16, 'base64url');
  else salt.copy(scratch, 0, 0, 16);
  const length = 16 + scratch.write(text, 16, 'utf8');
  return sha256((scratchViews[length] ??= scratch.subarray(0, length)));
}

/** Sets a member, even one named __proto__ (which assignment would take for the prototype). */
function setMember(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

/** The event without what reads add, with each given member's value replaced by its commitment (parents copied, never changed). */
export function committedForm(event: LedgerEvent, commitments: Record<string, string>): LedgerEvent {
  const form: LedgerEvent = {};
  for (const [name, value] of Object.entries(event)) if (!READ_ATTRIBUTES.has(name)) setMember(form, name, value);
  for (const [pointer, committed] of Object.entries(commitments)) {
    const names = tokensOf(pointer);
    let parent = form;
    for (const name of names.slice(0, -1)) {
      const copy: Record<string, unknown> = {};
      if (isObject(parent[name])) for (const [key, value] of Object.entries(parent[name] as object)) setMember(copy, key, value);
      setMember(parent, name, copy);
      parent = copy;
    }
    setMember(parent, names[names.length - 1], committed);
  }
  return form;
}

/** The replacements that turn an event into its committed form, as committedForm makes it. */
function committedReplacements(event: LedgerEvent, commitments: Record<string, string>): Replacements {
  const root = new Replacements();
  for (const name of READ_ATTRIBUTES) if (Object.prototype.hasOwnProperty.call(event, name)) root.members.set(name, null);
  for (const [pointer, committed] of Object.entries(commitments)) {
    const names = tokensOf(pointer);
    let parent = root;
    for (const name of names.slice(0, -1)) {
      const inner = parent.members.get(name);
      // A member already replaced by a value becomes an object of the replacements alone, as committedForm's copy does.
      const next = inner instanceof Replacements ? inner : new Replacements(typeof inner === 'string' || inner === null || (parent.fresh && inner === undefined));
      parent.members.set(name, next);
      parent = next;
    }
    parent.members.set(names[names.length - 1], committed);
  }
  return root;
}

/** JCS of the committed form: the event without what reads add, each given member's value replaced by its commitment. */
export function committedFormText(event: LedgerEvent, commitments: Record<string, string>): string {
  return jcsReplacing(event, committedReplacements(event, commitments), () => committedForm(event, commitments));
}

/** 16 bytes in base64url: 21 characters, then one whose low four bits are zero (any other would spell the same bytes). */
const SALT = /^[A-Za-z0-9_-]{21}[AQgw]$/;
export const isSalt = (text: unknown): text is string => typeof text === 'string' && SALT.test(text);

/** base64url without padding, refusing any other spelling of the same bytes (so one changed character always counts). */
export function decodeBase64url(text: unknown, bytes?: number): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url');
  if (decoded.toString('base64url') !== text || (bytes !== undefined && decoded.length !== bytes)) return undefined;
  return decoded;
}
