import type { CloudEvent } from '@im/cloudevents';
import type { TimelineEntry } from '@im/read-models';
import type { PolicyDecision } from './policy.port';
import type { TimelinePolicy } from './timeline-policy';

export interface RedactedEntry {
  entry: TimelineEntry;
  /** Field paths shown as the replacement, e.g. ["content", "data.host", "actor"]. */
  redacted: string[];
}

type Redaction = TimelinePolicy['redaction'];

/** The data object with every value but the kept keys replaced; returns the keys it replaced. */
function redactData(data: Record<string, unknown>, rules: Redaction): [Record<string, unknown>, string[]] {
  const replaced: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (rules.data_keys_kept.includes(key)) out[key] = value;
    else {
      out[key] = rules.replacement;
      replaced.push(key);
    }
  }
  return [out, replaced];
}

/**
 * What a redacted event shows of the CloudEvent: only the allow-listed
 * attributes, plus `im.actor` and `data` for the decision to replace. Anything
 * else (`data_base64`, `im.origin_id`, `im.correlation_key`, `im.fingerprint`,
 * extensions the service does not know) is left out, so a new attribute is
 * hidden until the policy file names it.
 */
function allowListed(event: CloudEvent, rules: Redaction): CloudEvent {
  const kept = new Set([...rules.attributes_kept, 'im.actor', 'data']);
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
  if (decision.redact.includes('content')) {
    view.content = rules.replacement;
    redacted.push('content');
  }
  if (decision.redact.includes('data')) {
    const [data, keys] = redactData(entry.data, rules);
    view.data = data;
    if (typeof entry.event.data?.title === 'string' && !rules.data_keys_kept.includes('title')) {
      view.title = rules.replacement;
      redacted.push('title');
    }
    redacted.push(...keys.map((key) => `data.${key}`));
    if (entry.event.data) event.data = redactData(entry.event.data, rules)[0];
  }
  if (decision.redact.includes('actor')) {
    view.actor = rules.replacement;
    if (event['im.actor'] !== undefined) event['im.actor'] = rules.replacement;
    redacted.push('actor');
  }
  const shown: TimelineEntry = { ...view, event: { ...event, 'im.redacted': redacted } as CloudEvent };
  if (event['im.correlation_key'] !== undefined) shown.correlationKey = event['im.correlation_key'];
  if (event['im.fingerprint'] !== undefined) shown.fingerprint = event['im.fingerprint'];
  return { entry: shown, redacted };
}
