import { commitment, committedFormText, isSalt, type LedgerEvent, redactableMembers, valueAt } from './committed-form';
import { jcs } from './jcs';
import { headSignedBy, type LedgerJwk, type SignedHead, thumbprint } from './signed-head';
import { type Chain, chainsOf, isChain, type LedgerRecord, linkHash } from './view-chains';

/** `im.ledger`: an exported event's link in the reader's chain, and what opens or stands for each redactable member. */
export interface LedgerAttribute {
  chain: Chain;
  n: number;
  prev: string | null;
  hash: string;
  /** Salts of the members shown. */
  salts: Record<string, string>;
  /** Commitments of the members redacted. */
  commitments: Record<string, string>;
}

export const BUNDLE_FORMAT = 'im-ledger/1';

/** What `?format=ledger` answers and an auditor keeps. */
export interface LedgerBundle {
  format: typeof BUNDLE_FORMAT;
  incident_id: string;
  events: LedgerEvent[];
  head: SignedHead;
  keys: LedgerJwk[];
}

/**
 * `im.ledger` of a stored event in `chain`, as shown to a reader: a member whose value the reader
 * is shown gets its salt, any other (replaced or left out) only its commitment. Deciding by what
 * is shown keeps this the redaction's consequence, whatever the policy redacts.
 */
export function ledgerAttribute(stored: LedgerEvent, shown: LedgerEvent, record: LedgerRecord, chain: Chain, prev: string | null): LedgerAttribute {
  const link = record.heads[chain];
  if (!link) throw new Error(`event ${String(stored.id)} is not in chain ${chain}`);
  const salts: Record<string, string> = {};
  const commitments: Record<string, string> = {};
  // A member the event lists as redacted is committed even when its value is the placeholder itself.
  const listed = new Set(redactedPointers(shown));
  for (const [pointer, salt] of Object.entries(record.salts)) {
    const value = valueAt(stored, pointer);
    const seen = valueAt(shown, pointer);
    if (seen !== undefined && !listed.has(pointer) && jcs(seen) === jcs(value)) salts[pointer] = salt;
    else commitments[pointer] = commitment(salt, value);
  }
  return { chain, n: link.n, prev, hash: link.hash, salts, commitments };
}

/** A file that is not a bundle at all (the CLI's exit 2), as opposed to a bundle that does not verify. */
export class NotABundleError extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
function isStringMap(value: unknown): value is Record<string, string> {
  if (!isObject(value)) return false;
  for (const name in value) if (typeof value[name] !== 'string') return false;
  return true;
}

/** The bundle's outline (format, incident, events, head, keys); everything inside is the verification's to judge. */
export function asBundle(value: unknown): LedgerBundle {
  if (!isObject(value)) throw new NotABundleError('not a JSON object');
  if (value.format !== BUNDLE_FORMAT) throw new NotABundleError(`format is not "${BUNDLE_FORMAT}"`);
  if (typeof value.incident_id !== 'string') throw new NotABundleError('incident_id is not a string');
  if (!Array.isArray(value.events) || !value.events.every(isObject)) throw new NotABundleError('events is not an array of objects');
  if (!isObject(value.head)) throw new NotABundleError('head is not an object');
  if (!Array.isArray(value.keys) || !value.keys.every(isObject)) throw new NotABundleError('keys is not an array of objects');
  return value as unknown as LedgerBundle;
}

export type Verdict =
  | { intact: true; chain: Chain; n: number; head: string | null; kid: string }
  | { intact: false; chain: unknown; brokenAt: { n: number; eventId: string } | 'head'; reason: string };

function asLedgerAttribute(value: unknown): LedgerAttribute | undefined {
  if (!isObject(value)) return undefined;
  const { chain, n, prev, hash, salts, commitments } = value;
  const ok = isChain(chain) && Number.isSafeInteger(n) && (prev === null || typeof prev === 'string') && typeof hash === 'string';
  return ok && isStringMap(salts) && isStringMap(commitments) ? (value as unknown as LedgerAttribute) : undefined;
}

/** The pointers a path of `im.redacted` stands for (the read view's names: content and title are data members). */
const REDACTED_PATHS: Record<string, string[]> = {
  actor: ['/im.actor'],
  // The sender: a data member, or the attribute of an event whose data is binary (docs/security.md, "Who wrote an event").
  sender: ['/data/im.sender', '/im.sender'],
  title: ['/data/title'],
  data: ['/data'],
  content: ['/data/content', '/data/description', '/data/message'],
};
const pointersOfPath = (path: string) => (Object.hasOwn(REDACTED_PATHS, path) ? REDACTED_PATHS[path] : path.startsWith('data.') ? [`/data/${path.slice(5).replace(/~/g, '~0').replace(/\//g, '~1')}`] : []);
/** The pointers an event's `im.redacted` names. */
const redactedPointers = (event: LedgerEvent): string[] => {
  const listed = event['im.redacted'];
  return Array.isArray(listed) ? listed.flatMap((path) => (typeof path === 'string' ? pointersOfPath(path) : [])) : [];
};

/**
 * What a read adds around the committed members must match them too, so that no character of
 * an exported event goes unchecked: every redacted member shown shows the bundle's one
 * placeholder, and every path `im.redacted` lists is a redacted member.
 */
function redactionProblem(event: LedgerEvent, commitments: Record<string, string>, placeholder: { value?: unknown }): string | undefined {
  for (const pointer of Object.keys(commitments)) {
    const shown = valueAt(event, pointer);
    if (shown === undefined) continue;
    placeholder.value ??= shown;
    if (typeof shown !== 'string' || shown !== placeholder.value) return `redacted ${pointer} shows ${jcs(shown)}, not the placeholder ${jcs(placeholder.value)}`;
  }
  const listed = event['im.redacted'];
  if (listed === undefined) return undefined;
  if (!Array.isArray(listed)) return 'its im.redacted is not a list';
  const unmatched = listed.find((path) => typeof path !== 'string' || !pointersOfPath(path).some((pointer) => pointer in commitments));
  return unmatched === undefined ? undefined : `its im.redacted lists ${jcs(unmatched)}, which is not redacted`;
}

/** Why an event does not hold its place after `prev` at position `n` of `chain`; undefined when it does. */
function eventProblem(event: LedgerEvent, subject: string, chain: unknown, n: number, prev: string | null, placeholder: { value?: unknown }): string | undefined {
  if (typeof event.subject === 'string' && event.subject !== subject) return `its subject ${event.subject} is not ${subject}`;
  const ledger = asLedgerAttribute(event['im.ledger']);
  if (!ledger) return 'it has no well-formed im.ledger';
  if (ledger.chain !== chain) return `it is in chain ${ledger.chain}, the head in chain ${String(chain)}`;
  if (ledger.n !== n) return `it says it is event ${ledger.n} of its chain, expected ${n}`;
  if (ledger.prev !== prev) return 'its prev is not the hash of the event before it';
  const commitments: Record<string, string> = {};
  for (const pointer in ledger.commitments) commitments[pointer] = ledger.commitments[pointer];
  for (const [pointer, text] of Object.entries(ledger.salts)) {
    if (pointer in ledger.commitments) return `${pointer} is both shown and committed`;
    if (!isSalt(text)) return `the salt of ${pointer} is not 16 bytes of base64url`;
    const value = valueAt(event, pointer);
    if (value === undefined) return `${pointer} has a salt but no value`;
    commitments[pointer] = commitment(text, value);
  }
  const uncovered = redactableMembers(event).find((pointer) => !(pointer in commitments));
  if (uncovered) return `${uncovered} is neither salted nor committed`;
  if (linkHash(ledger.chain, n, prev, committedFormText(event, commitments)) !== ledger.hash) return 'its content does not match its hash';
  return redactionProblem(event, ledger.commitments, placeholder);
}

/** Why the head does not sign the chain just checked; undefined when it does. */
function headProblem(bundle: LedgerBundle, chain: Chain | undefined, n: number, last: string | null, keys: readonly LedgerJwk[]): string | undefined {
  const head = bundle.head;
  if (head.chain !== chain) return `the head is for chain ${String(head.chain)}, the events in chain ${String(chain)}`;
  if (head.incident_id !== bundle.incident_id) return `the head is for incident ${String(head.incident_id)}, the bundle for ${bundle.incident_id}`;
  if (head.n !== n || head.hash !== last) return `the head says ${String(head.n)} events ending in ${String(head.hash)}, the bundle has ${n} ending in ${String(last)}`;
  const key = keys.find((k) => k.kid === head.kid);
  if (!key) return `no key ${String(head.kid)} to check its signature with`;
  if (key.kty !== 'OKP' || key.crv !== 'Ed25519' || key.use !== 'sig' || typeof key.x !== 'string' || thumbprint(key) !== key.kid) {
    return `key ${key.kid} is not the Ed25519 signing key its id names`;
  }
  if (!headSignedBy(head, key)) return `its signature does not verify with key ${key.kid}`;
  return undefined;
}

/** Where a run of a bundle's events starts: the chain checked, its position (from 1) and the hash before it. */
export interface EventsStart {
  incidentId: string;
  chain: unknown;
  n: number;
  prev: string | null;
}

/** A run of events checked: the first that fails (its index in the run), else the last hash; the placeholder redacted members showed. */
export interface EventsOutcome {
  failure?: { index: number; reason: string };
  last: string | null;
  placeholder: { value?: unknown };
}

/**
 * Checks a run of a bundle's events in order from `start`, stopping at the first that fails.
 * Each event needs only the hash claimed before it, so runs of one bundle can be checked apart
 * and joined where each run's first `prev` is the run before's last hash.
 */
export function checkEvents(events: readonly LedgerEvent[], start: EventsStart, placeholder: { value?: unknown } = {}): EventsOutcome {
  let prev = start.prev;
  const subject = `incident/${start.incidentId}`;
  for (let i = 0; i < events.length; i++) {
    const reason = eventProblem(events[i], subject, start.chain, start.n + i, prev, placeholder);
    if (reason) return { failure: { index: i, reason }, last: prev, placeholder };
    prev = (events[i]['im.ledger'] as LedgerAttribute).hash;
  }
  return { last: prev, placeholder };
}

/** The chain a bundle claims: the head names it; a head too damaged to say leaves it to the first event (and fails at the end). */
export const chainOfBundle = (bundle: LedgerBundle): unknown => (isChain(bundle.head.chain) ? bundle.head.chain : asLedgerAttribute(bundle.events[0]?.['im.ledger'])?.chain);

/** Where an event claims to stand in its chain, if its im.ledger is well formed. */
export function claimedPosition(event: LedgerEvent): { n: number; prev: string | null } | undefined {
  const ledger = asLedgerAttribute(event['im.ledger']);
  return ledger && { n: ledger.n, prev: ledger.prev };
}

/** The verdict once every event has passed, `last` being the last event's hash: the head's checks. */
export function headVerdict(bundle: LedgerBundle, chain: unknown, n: number, last: string | null, pinnedKeys?: readonly LedgerJwk[]): Verdict {
  const reason = headProblem(bundle, chain as Chain | undefined, n, last, pinnedKeys ?? bundle.keys);
  if (reason) return { intact: false, chain, brokenAt: 'head', reason };
  return { intact: true, chain: chain as Chain, n, head: last, kid: bundle.head.kid };
}

/**
 * Checks every link of the bundle in order, every shown member against its salt, that the
 * head names the last link, and the head's signature with `pinnedKeys` (when given) or else
 * the bundle's own keys. Stops at the first event that fails.
 */
export function verifyBundle(bundle: LedgerBundle, pinnedKeys?: readonly LedgerJwk[]): Verdict {
  const chain = chainOfBundle(bundle);
  const { failure, last } = checkEvents(bundle.events, { incidentId: bundle.incident_id, chain, n: 1, prev: null });
  if (failure) return { intact: false, chain, brokenAt: { n: failure.index + 1, eventId: String(bundle.events[failure.index].id) }, reason: failure.reason };
  return headVerdict(bundle, chain, bundle.events.length, last, pinnedKeys);
}

/** The verify command's line for a verdict. */
export function describeVerdict(verdict: Verdict): string {
  if (verdict.intact) return `intact: ${verdict.n} events, chain ${verdict.chain}, head ${String(verdict.head)}, key ${verdict.kid}`;
  const at = verdict.brokenAt === 'head' ? 'head' : `event ${verdict.brokenAt.n} (${verdict.brokenAt.eventId})`;
  return `broken at ${at}: ${verdict.reason}`;
}

/** A stored event with its ledger record, in stream order (none: stored before the ledger and not upgraded). */
export interface StoredLedgerEvent {
  event: LedgerEvent;
  ledger?: LedgerRecord;
}

/**
 * The events a reader is shown (`show` answers undefined for a withheld one), in stream order,
 * each with its `im.ledger` in `chain`, next to the stored event it shows. An event shown that
 * the chain does not hold (a policy that shows more than the clearance covers, or an event
 * stored before the ledger that was not upgraded) has no link to show, and the bundle will
 * not verify there.
 */
export function chainView<T extends StoredLedgerEvent>(stream: readonly T[], chain: Chain, show: (stored: T) => LedgerEvent | undefined): { stored: T; event: LedgerEvent }[] {
  const shownEvents: { stored: T; event: LedgerEvent }[] = [];
  let prev: string | null = null;
  for (const stored of stream) {
    const shown = show(stored);
    const ledger = stored.ledger;
    const inChain = ledger !== undefined && chainsOf(stored.event).includes(chain);
    if (shown) shownEvents.push({ stored, event: inChain ? { ...shown, 'im.ledger': ledgerAttribute(stored.event, shown, ledger, chain, prev) } : shown });
    if (inChain) prev = ledger.heads[chain]!.hash;
  }
  return shownEvents;
}
