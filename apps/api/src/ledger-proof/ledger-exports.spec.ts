import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type CloudEvent, DATA_CLASSES, SENDER, VISIBILITIES, withSender } from '@im/cloudevents';
import type { AppConfig } from '@im/config';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { canonicalizeReference as canonicalize, describeVerdict } from '@im/ledger-proof';
import { EmbeddedPdp, loadTimelinePolicy } from '@im/policy';
import { type IncidentQueryService, type Principal, TimelineAuthorizer } from '@im/access';
import { TimelineReader } from '../timeline/timeline-reader.service';
import { verifyBundleBytes } from './bundle-verification';
import { LedgerContinuity } from './ledger-continuity';
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
const continuity = new LedgerContinuity(store, keys, config);
const ledger = new LedgerExports(reader, new SignedHeads(store, keys, continuity, config), keys, continuity);

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
const rare = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary, weight: 1 });

const eventFields = fc.record({
  type: fc.constantFrom('im.incident.note', 'im.alert.trigger', 'im.incident.ack', 'im.custom.thing'),
  'im.actor': optional(placeholderOr(fc.constantFrom('alice', 'bob', 'im://x'))),
  'im.visibility': optional(fc.constantFrom(...VISIBILITIES)),
  'im.data_class': optional(fc.subarray([...DATA_CLASSES])),
  data: optional(data),
  data_base64: rare(fc.constant('aGVsbG8=')),
  datacontenttype: rare(fc.constantFrom('application/json', 'text/plain')),
  'im.origin_id': optional(fc.constant('origin-1')),
  'im.correlation_key': optional(placeholderOr(fc.constant('ck-1'))),
  'im.fingerprint': optional(fc.constant('fp-1')),
  dataschema: optional(fc.constant('https://example.com/s')),
  x_email: optional(fc.constant('someone@example.com')),
  // Recorded by this version (in data, or as an attribute beside binary data); absent on events stored before.
  sender: optional(placeholderOr(fc.constantFrom('sender-alice', 'sender-relay'))),
  // Half the events (notes, lifecycle events) carry no attribute beyond §7's list.
  plain: fc.boolean(),
});

const readerOf = fc.record({ clearance: fc.constantFrom(...VISIBILITIES), dataAccess: fc.subarray([...DATA_CLASSES]) });

/**
 * The link of an exported event as a verifier written from the contract's text alone (docs/api.md, "Verifiable ledger") computes
 * it (JCS by canonicalize, the reference): the redactable members are `/im.actor`, every member of an object `data` but `severity`
 * and `service` (else `/data`) and `/data_base64` (present, or left out and committed), and
 * every other attribute stays in clear.
 */
function literalLinkHash(event: Record<string, unknown>): string {
  const ledger = event['im.ledger'] as { chain: string; n: number; prev: string | null; salts: Record<string, string>; commitments: Record<string, string> };
  const { 'im.ledger': _ledger, 'im.redacted': _redacted, ...form } = event;
  const data = form.data;
  const members = new Set<string>(Object.keys(ledger.commitments).filter((p) => p === '/im.actor' || p === '/data' || p === '/data_base64' || p.startsWith('/data/')));
  if ('im.actor' in form) members.add('/im.actor');
  if ('data_base64' in form) members.add('/data_base64');
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    for (const key of Object.keys(data)) if (key !== 'severity' && key !== 'service') members.add(`/data/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  } else if ('data' in form) members.add('/data');
  const sha = (text: Buffer | string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
  for (const pointer of members) {
    const names = pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const parent = names.length === 2 ? ((form.data = { ...(form.data as object) }) as Record<string, unknown>) : form;
    const name = names[names.length - 1];
    const salt = ledger.salts[pointer];
    const committed = salt === undefined ? ledger.commitments[pointer] : sha(Buffer.concat([Buffer.from(salt, 'base64url'), Buffer.from(canonicalize(parent[name])!, 'utf8')]));
    Object.defineProperty(parent, name, { value: committed, enumerable: true, writable: true, configurable: true });
  }
  return sha(canonicalize({ chain: ledger.chain, n: ledger.n, prev: ledger.prev, event: form })!);
}

/** Attributes the service's committed form commits beyond §7's list (docs/decisions.md, "The committed form commits more than …"). */
const BEYOND_SECTION_7 = ['im.origin_id', 'im.correlation_key', 'im.fingerprint', 'dataschema', 'x_email', SENDER];

let incidentCount = 0;
let literalChecks = 0;
/** Ids of stored events with an attribute beyond §7's list (a redacted export leaves it out, but the link commits it). */
const beyondSection7 = new Set<string>();

async function stored(fields: (Record<string, unknown> & { sender?: string; plain: boolean })[]): Promise<string> {
  const incidentId = `INC-P${++incidentCount}`;
  const events = fields.map((f, i) => {
    const event: Record<string, unknown> = { specversion: '1.0', id: `${incidentId}-e${i + 1}`, source: 'im://property', time: `2026-11-23T10:00:0${i}Z`, subject: `incident/${incidentId}` };
    const { sender, plain, ...fields } = f;
    for (const [name, v] of Object.entries(fields)) if (v !== undefined && !(plain && BEYOND_SECTION_7.includes(name))) event[name] = v;
    if (sender === undefined) return event as unknown as CloudEvent;
    // Data of other shapes is only stored by earlier versions or direct writes: give such an event the attribute.
    const shaped = event.data === undefined || (typeof event.data === 'object' && event.data !== null && !Array.isArray(event.data));
    return shaped ? withSender(event as unknown as CloudEvent, sender) : ({ ...event, [SENDER]: sender } as unknown as CloudEvent);
  });
  for (const event of events) if (BEYOND_SECTION_7.some((name) => name in event)) beyondSection7.add(event.id);
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
          const text = JSON.stringify(bundle);
          const verdict = await verifyBundleBytes(new Uint8Array(Buffer.from(text)), [keys.active], []);
          expect(describeVerdict(verdict)).toMatch(/^intact: /);
          // Whatever hides the actor hides the sender.
          const actorHidden = (e: Record<string, unknown>) =>
            ((e['im.data_class'] as string[] | undefined) ?? []).some((c) => policy.redaction.actor_redacted_for.includes(c) && !(caller.dataAccess as string[]).includes(c));
          for (const event of bundle.events.filter(actorHidden)) {
            expect(JSON.stringify(event)).not.toMatch(/sender-(alice|relay)/);
          }
          // A verifier written from §7's text alone checks every event that has no attribute beyond its list: senders included.
          for (const event of bundle.events.filter((e) => !beyondSection7.has(e.id as string))) {
            literalChecks++;
            expect([event.id, literalLinkHash(event)]).toEqual([event.id, (event['im.ledger'] as { hash: string }).hash]);
          }
          // The JSON export holds the same events, in the timeline's order.
          expect(new Set(inTimelineOrder(exported.events).map((e) => e.event))).toEqual(new Set(bundle.events));
        }
      }),
      { numRuns: 100 },
    );
    // Not vacuous: 100 runs check 50-80 events literally (a run fell on exactly 50 once), so a bound of 20 fails only when the check stops running.
    expect(literalChecks).toBeGreaterThan(20);
  }, 60_000);
});
