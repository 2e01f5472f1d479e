import { hash } from 'node:crypto';
import { jcs } from './jcs';

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

/** The JSON Pointers of an event's redactable members, in member order. */
export function redactableMembers(event: LedgerEvent): string[] {
  const members: string[] = [];
  for (const [name, value] of Object.entries(event)) {
    if (READ_ATTRIBUTES.has(name) || value === undefined) continue;
    if (name === 'data') {
      if (isObject(value)) for (const key of Object.keys(value)) if (!DATA_IN_CLEAR.has(key)) members.push(`/data/${token(key)}`);
      if (!isObject(value)) members.push('/data');
    } else if (!ATTRIBUTES_IN_CLEAR.has(name)) members.push(`/${token(name)}`);
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

/** `sha256(salt ‖ UTF-8(JCS(value)))`. */
export function commitment(salt: Buffer, value: unknown): string {
  return sha256(Buffer.concat([salt, Buffer.from(jcs(value), 'utf8')]));
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

/** 16 bytes in base64url: 21 characters, then one whose low four bits are zero (any other would spell the same bytes). */
const SALT = /^[A-Za-z0-9_-]{21}[AQgw]$/;

/** base64url without padding, refusing any other spelling of the same bytes (so one changed character always counts). */
export function decodeBase64url(text: unknown, bytes?: number): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  if (bytes === 16) return SALT.test(text) ? Buffer.from(text, 'base64url') : undefined;
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url');
  if (decoded.toString('base64url') !== text || (bytes !== undefined && decoded.length !== bytes)) return undefined;
  return decoded;
}
