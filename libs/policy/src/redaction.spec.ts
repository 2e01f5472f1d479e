import { join } from 'node:path';
import type { CloudEvent } from '@im/cloudevents';
import { toTimelineEntry } from '@im/read-models';
import type { PolicyDecision } from './policy.port';
import { redactEntry } from './redaction';
import { loadTimelinePolicy } from './timeline-policy';

const rules = loadTimelinePolicy(join(__dirname, '../../../policy/timeline-policy.json')).redaction;

/** An event carrying everything a producer may send: known attributes, binary data and unknown extensions. */
const event = {
  specversion: '1.0',
  id: 'evt-1',
  source: 'im://crm',
  type: 'im.incident.note',
  time: '2026-11-22T10:00:00Z',
  subject: 'incident/INC-0000000a',
  datacontenttype: 'application/json',
  dataschema: 'https://schemas.example/secret-customer-note',
  data: { title: 'Call from Ann Smith', content: 'ann@example.com called', severity: 'SEV-2', service: 'crm' },
  data_base64: Buffer.from('ann@example.com').toString('base64'),
  'im.actor': 'ann.smith',
  'im.origin_id': 'ticket-ann-smith-42',
  'im.correlation_key': 'customer-ann-smith',
  'im.fingerprint': 'crm:ann-smith',
  'im.data_class': ['pii'],
  'im.visibility': 'internal',
  x_email: 'ann@example.com',
} as unknown as CloudEvent;

const entry = toTimelineEntry({ incidentId: 'INC-0000000a', eventTime: '2026-11-22T10:00:00.000Z', createdAt: '2026-11-22T10:00:01.000Z', event });
const redact = (fields: PolicyDecision['redact']) => redactEntry(entry, { visible: true, redact: fields }, rules);

describe('redactEntry', () => {
  it('shows an event the caller may read in full unchanged', () => {
    expect(redact([])).toEqual({ entry, redacted: [] });
  });

  it('shows a redacted event only through the allow-list: no binary data, origin id, correlation key, fingerprint or unknown extension', () => {
    const { entry: shown, redacted } = redact(['content', 'data', 'actor']);
    expect(shown.event).toEqual({
      specversion: '1.0',
      id: 'evt-1',
      source: 'im://crm',
      type: 'im.incident.note',
      time: '2026-11-22T10:00:00Z',
      subject: 'incident/INC-0000000a',
      datacontenttype: 'application/json',
      data: { title: '[REDACTED]', content: '[REDACTED]', severity: 'SEV-2', service: 'crm' },
      'im.actor': '[REDACTED]',
      'im.data_class': ['pii'],
      'im.visibility': 'internal',
      'im.redacted': ['content', 'title', 'data.content', 'actor'],
    });
    expect(redacted).toEqual(['content', 'title', 'data.content', 'actor']);
    expect(JSON.stringify(shown)).not.toMatch(/ann|Ann|smith|ticket|YW5u/);
  });

  it('hides the correlation key and fingerprint from the read view too, so nothing downstream can match on them', () => {
    const { entry: shown } = redact(['content', 'data']);
    expect(shown).not.toHaveProperty('correlationKey');
    expect(shown).not.toHaveProperty('fingerprint');
    expect(shown.actor).toBe('ann.smith');
    expect(shown.event['im.actor']).toBe('ann.smith');
  });

  it('keeps an attribute the policy file adds to the allow-list', () => {
    const kept = redactEntry(entry, { visible: true, redact: ['content', 'data'] }, { ...rules, attributes_kept: [...rules.attributes_kept, 'im.correlation_key'] });
    expect(kept.entry.event['im.correlation_key']).toBe('customer-ann-smith');
    expect(kept.entry.correlationKey).toBe('customer-ann-smith');
    expect(kept.entry).not.toHaveProperty('fingerprint');
  });

  describe('lists only what the event has to hide (every listed path must be a committed member of the ledger)', () => {
    const entryOf = (fields: Record<string, unknown>) =>
      toTimelineEntry({ incidentId: 'INC-0000000a', eventTime: '2026-11-22T10:00:00.000Z', createdAt: '2026-11-22T10:00:01.000Z', event: { ...event, ...fields } as CloudEvent });
    const all: PolicyDecision = { visible: true, redact: ['content', 'data', 'actor'] };

    it('does not list the actor of an event without im.actor: its actor is the source, shown to everyone', () => {
      const { 'im.actor': _actor, ...rest } = event as unknown as Record<string, unknown>;
      const shown = redactEntry(toTimelineEntry({ incidentId: 'INC-0000000a', eventTime: '2026-11-22T10:00:00.000Z', createdAt: '2026-11-22T10:00:01.000Z', event: rest as unknown as CloudEvent }), all, rules);
      expect(shown.redacted).toEqual(['content', 'title', 'data.content']);
      expect(shown.entry.actor).toBe('im://crm');
      expect(shown.entry.event).not.toHaveProperty('im.actor');
    });

    it('does not list a content or title the event does not have', () => {
      expect(redactEntry(entryOf({ data: { host: 'db-1', severity: 'SEV-2' } }), all, rules).redacted).toEqual(['data.host', 'actor']);
      expect(redactEntry(entryOf({ data: undefined }), all, rules).redacted).toEqual(['actor']);
    });

    it('hides data that is not an object whole, as one member', () => {
      for (const data of ['ann@example.com', ['ann'], 42, null]) {
        const shown = redactEntry(entryOf({ data }), all, rules);
        expect(shown.redacted).toEqual(['data', 'actor']);
        expect(shown.entry.event.data).toBe('[REDACTED]');
        expect(shown.entry.data).toEqual({});
      }
    });

    it('hides the members the content comes from even when only the content is redacted', () => {
      const shown = redactEntry(entryOf({ data: { description: 'ann called', host: 'db-1' } }), { visible: true, redact: ['content'] }, rules);
      expect(shown.redacted).toEqual(['content', 'data.description']);
      expect(shown.entry.event.data).toEqual({ description: '[REDACTED]', host: 'db-1' });
    });
  });

  describe('the sender (who wrote the event) is hidden exactly where the actor is', () => {
    const relayed = (fields: Record<string, unknown>) =>
      toTimelineEntry({ incidentId: 'INC-0000000a', eventTime: '2026-11-22T10:00:00.000Z', createdAt: '2026-11-22T10:00:01.000Z', event: { ...event, ...fields } as CloudEvent });
    const fromBridge = relayed({ data: { content: 'ann called', severity: 'SEV-2', 'im.sender': 'ann-bridge' } });

    it('is read beside the actor, out of the data', () => {
      expect(fromBridge.sender).toBe('ann-bridge');
      expect(fromBridge.data).toEqual({ content: 'ann called', severity: 'SEV-2' });
    });

    it('is replaced, and listed, where the actor is', () => {
      const shown = redactEntry(fromBridge, { visible: true, redact: ['content', 'data', 'actor'] }, rules);
      expect(shown.entry.sender).toBe('[REDACTED]');
      expect(shown.entry.event.data).toEqual({ content: '[REDACTED]', severity: 'SEV-2', 'im.sender': '[REDACTED]' });
      expect(shown.redacted).toEqual(['content', 'data.content', 'actor', 'sender']);
      expect(JSON.stringify(shown)).not.toContain('ann-bridge');
    });

    it('is shown where only the data is hidden, as the actor is', () => {
      const shown = redactEntry(fromBridge, { visible: true, redact: ['content', 'data'] }, rules);
      expect(shown.entry.sender).toBe('ann-bridge');
      expect(shown.entry.event.data).toEqual({ content: '[REDACTED]', severity: 'SEV-2', 'im.sender': 'ann-bridge' });
      expect(shown.redacted).not.toContain('sender');
    });

    it('is hidden when recorded as the attribute of binary data too', () => {
      const binary = relayed({ data: undefined, 'im.sender': 'ann-bridge' });
      expect(binary.sender).toBe('ann-bridge');
      const shown = redactEntry(binary, { visible: true, redact: ['content', 'data', 'actor'] }, rules);
      expect(shown.entry.event).toMatchObject({ 'im.sender': '[REDACTED]', 'im.redacted': ['actor', 'sender'] });
      expect(redactEntry(binary, { visible: true, redact: ['content', 'data'] }, rules).entry.event['im.sender' as 'id']).toBe('ann-bridge');
    });
  });
});
