import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type CloudEvent, DATA_CLASSES, VISIBILITIES } from '@im/cloudevents';
import type { AppConfig } from '@im/config';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { describeVerdict } from '@im/ledger-proof';
import { EmbeddedPdp, loadTimelinePolicy } from '@im/policy';
import type { Principal } from '../auth/principal';
import type { IncidentQueryService } from '../incidents/incident-query.service';
import { TimelineAuthorizer } from '../timeline/timeline-authorizer';
import { TimelineReader } from '../timeline/timeline-reader.service';
import { verifyBundleBytes } from './bundle-verification';
import { inTimelineOrder, LedgerExports } from './ledger-exports';
import { LedgerKeys } from './ledger-keys';
import { SignedHeads } from './signed-heads';

/**
 * An auditor's tool must never cry wolf: whatever an untampered ledger holds, every reader's
 * export verifies, through the real export (policy file, PDP, redaction, chain view) and the
 * verifier of both the verify endpoint and `npm run verify`.
 */
const dir = mkdtempSync(join(tmpdir(), 'ledger-exports-'));
const store = new SqliteEventStore(join(dir, 'events.sqlite'));
const policy = loadTimelinePolicy(resolve(__dirname, '../../../../policy/timeline-policy.json'));
const incidents = { get: async () => ({}), find: async () => ({}), withheld: async () => new Set<string>() } as unknown as IncidentQueryService;
const reader = new TimelineReader(undefined as never, new TimelineAuthorizer(new EmbeddedPdp(policy), policy, incidents), undefined as never, incidents, store);
const config = { dataDir: dir, ledgerSigningKey: null } as AppConfig;
const keys = new LedgerKeys(config);
const ledger = new LedgerExports(reader, new SignedHeads(store, keys, config), keys);

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Names a redaction treats specially (kept keys, the view's content and title, pointer escapes) and plain ones. */
const memberName = fc.constantFrom('__proto__', 'title', 'content', 'description', 'message', 'severity', 'service', 'host', 'actor', 'im.actor', 'data', 'a/b', 'x~y', '0', '');
const placeholderOr = <T>(other: fc.Arbitrary<T>) => fc.oneof(fc.constant(policy.redaction.replacement), other);
const value = placeholderOr(fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }), fc.dictionary(memberName, fc.string({ maxLength: 3 }), { maxKeys: 2 })));
const data = fc.oneof(
  fc.dictionary(memberName, value, { maxKeys: 5 }),
  fc.constant({}),
  fc.array(value, { maxLength: 3 }),
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.constant(null),
  fc.constant(policy.redaction.replacement),
);
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

const eventFields = fc.record({
  type: fc.constantFrom('im.incident.note', 'im.alert.trigger', 'im.incident.ack', 'im.custom.thing'),
  'im.actor': optional(placeholderOr(fc.constantFrom('alice', 'bob', 'im://x'))),
  'im.visibility': optional(fc.constantFrom(...VISIBILITIES)),
  'im.data_class': optional(fc.subarray([...DATA_CLASSES])),
  data: optional(data),
  data_base64: optional(fc.constant('aGVsbG8=')),
  datacontenttype: optional(fc.constantFrom('application/json', 'text/plain')),
  'im.origin_id': optional(fc.constant('origin-1')),
  'im.correlation_key': optional(placeholderOr(fc.constant('ck-1'))),
  'im.fingerprint': optional(fc.constant('fp-1')),
  dataschema: optional(fc.constant('https://example.com/s')),
  x_email: optional(fc.constant('someone@example.com')),
});

const readerOf = fc.record({ clearance: fc.constantFrom(...VISIBILITIES), dataAccess: fc.subarray([...DATA_CLASSES]) });

let incidentCount = 0;

async function stored(fields: Record<string, unknown>[]): Promise<string> {
  const incidentId = `INC-P${++incidentCount}`;
  const events = fields.map((f, i) => {
    const event: Record<string, unknown> = { specversion: '1.0', id: `${incidentId}-e${i + 1}`, source: 'im://property', time: `2026-11-23T10:00:0${i}Z`, subject: `incident/${incidentId}` };
    for (const [name, v] of Object.entries(f)) if (v !== undefined) event[name] = v;
    return event as unknown as CloudEvent;
  });
  await store.append(`incident-${incidentId}`, events, 'no_stream');
  return incidentId;
}

const principal = ({ clearance, dataAccess }: { clearance: Principal['clearance']; dataAccess: Principal['dataAccess'] }): Principal => ({
  sub: 'auditor',
  roles: ['timeline.reader', 'timeline.exporter'],
  clearance,
  dataAccess,
  authenticated: true,
});

describe('every reader\'s export of an untampered ledger', () => {
  it('verifies, on the verify endpoint and with npm run verify, whatever the events hold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventFields, { minLength: 1, maxLength: 5 }), fc.array(readerOf, { minLength: 1, maxLength: 3 }), async (fields, readers) => {
        const incidentId = await stored(fields);
        for (const caller of readers.map(principal)) {
          const answer = await ledger.verify(caller, incidentId);
          expect(answer.intact ? answer.chain : JSON.stringify(answer)).toBe(caller.clearance);
          const exported = await ledger.export(caller, incidentId, false);
          const bundle = ledger.bundle(incidentId, exported);
          const verdict = await verifyBundleBytes(new Uint8Array(Buffer.from(JSON.stringify(bundle))), [keys.active], []);
          expect(describeVerdict(verdict)).toMatch(/^intact: /);
          // The JSON export holds the same events, in the timeline's order.
          expect(new Set(inTimelineOrder(exported.events).map((e) => e.event))).toEqual(new Set(bundle.events));
        }
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});
