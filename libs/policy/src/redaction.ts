import { type CloudEvent, SENDER } from '@im/cloudevents';
import type { TimelineEntry } from '@im/read-models';
import type { PolicyDecision } from './policy.port';
import type { TimelinePolicy } from './timeline-policy';

export interface RedactedEntry {
  entry: TimelineEntry;
  /** Field paths shown as the replacement, e.g. ["content", "data.host", "actor"]. */
  redacted: string[];
}

type Redaction = TimelinePolicy['redaction'];

/** The data members the read view's content is taken from (toTimelineEntry): hiding the content hides them. */
const CONTENT_KEYS = ['content', 'description', 'message'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The data object with the hidden keys' values replaced; returns the keys it replaced. Built by fromEntries, so a key named __proto__ stays a key. */
function redactData(data: Record<string, unknown>, hidden: (key: string) => boolean, replacement: string): [Record<string, unknown>, string[]] {
  const replaced: string[] = [];
  const out = Object.fromEntries(
    Object.entries(data).map(([key, value]) => {
      if (!hidden(key)) return [key, value];
      replaced.push(key);
      return [key, replacement];
    }),
  );
  return [out, replaced];
}

/**
 * What a redacted event shows of the CloudEvent: only the allow-listed
 * attributes, plus `im.actor`, the sender and `data` for the decision to replace. Anything
 * else (`data_base64`, `im.origin_id`, `im.correlation_key`, `im.fingerprint`,
 * extensions the service does not know) is left out, so a new attribute is
 * hidden until the policy file names it.
 */
function allowListed(event: CloudEvent, rules: Redaction): CloudEvent {
  const kept = new Set([...rules.attributes_kept, 'im.actor', SENDER, 'data']);
  return Object.fromEntries(Object.entries(event).filter(([name]) => kept.has(name))) as unknown as CloudEvent;
}

/**
 * Applies a decision to a timeline entry: the read view and the CloudEvent an
 * export shows. The title is a data value too (it is lifted out of `data`), so
 * it is redacted with the data unless it is the service's own summary. The
 * view's correlation key and fingerprint are those of the event shown, so
 * nothing downstream (filters included) can use a value the caller cannot see.
 */
export function redactEntry(entry: TimelineEntry, decision: PolicyDecision, rules: Redaction): RedactedEntry {
  if (decision.redact.length === 0) return { entry, redacted: [] };
  const redacted: string[] = [];
  const event = allowListed(entry.event, rules);
  const { correlationKey: _key, fingerprint: _fingerprint, ...view } = entry;
  const data = decision.redact.includes('data');
  const content = decision.redact.includes('content');
  // The sender names a person as much as the actor does: it is hidden exactly when the actor is.
  const actor = decision.redact.includes('actor');
  const hidden = (key: string) => (key === SENDER ? actor : (data && !rules.data_keys_kept.includes(key)) || (content && CONTENT_KEYS.includes(key)));
  // A path is listed only where the event has a value it hides: the ledger's verifier holds every listed path to a committed member.
  if (content && entry.content !== '') {
    view.content = rules.replacement;
    redacted.push('content');
  }
  const stored: unknown = entry.event.data;
  if (isObject(stored)) {
    if (typeof stored.title === 'string' && hidden('title')) {
      view.title = rules.replacement;
      redacted.push('title');
    }
    const [shown, keys] = redactData(entry.data, hidden, rules.replacement);
    view.data = shown;
    redacted.push(...keys.map((key) => `data.${key}`));
    event.data = redactData(stored, hidden, rules.replacement)[0];
  } else if (data && stored !== undefined) {
    // Data that is not an object (an array, a string, a number, null: stored by earlier versions or written directly) is hidden whole.
    view.data = {};
    (event as unknown as Record<string, unknown>).data = rules.replacement;
    redacted.push('data');
  }
  if (actor && event['im.actor'] !== undefined) {
    // Without im.actor the actor shown is the event's source, which every reader is shown: nothing to hide.
    view.actor = rules.replacement;
    event['im.actor'] = rules.replacement;
    redacted.push('actor');
  }
  if (actor) {
    // Recorded in data (replaced above), or as the attribute of an event whose data is binary.
    const attribute = SENDER in event;
    if (attribute) (event as unknown as Record<string, unknown>)[SENDER] = rules.replacement;
    if (entry.sender !== undefined) view.sender = rules.replacement;
    if (attribute || entry.sender !== undefined) redacted.push('sender');
  }
  const shown: TimelineEntry = { ...view, event: { ...event, 'im.redacted': redacted } as CloudEvent };
  if (event['im.correlation_key'] !== undefined) shown.correlationKey = event['im.correlation_key'];
  if (event['im.fingerprint'] !== undefined) shown.fingerprint = event['im.fingerprint'];
  return { entry: shown, redacted };
}
