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
 * Applies a decision to a timeline entry: the read view and the CloudEvent an
 * export shows. The title is a data value too (it is lifted out of `data`), so
 * it is redacted with the data unless it is the service's own summary.
 */
export function redactEntry(entry: TimelineEntry, decision: PolicyDecision, rules: Redaction): RedactedEntry {
  if (decision.redact.length === 0) return { entry, redacted: [] };
  const redacted: string[] = [];
  const view: TimelineEntry = { ...entry };
  const event: CloudEvent = { ...entry.event };
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
  view.event = { ...event, 'im.redacted': redacted } as CloudEvent;
  return { entry: view, redacted };
}
